/* What the format registry says, for the commands: which format names an
 * operation takes, the devices and precisions they run on (help texts list
 * only these, so a format added to the library shows up without edits here),
 * and whether a plan can be made at all before a large matrix is read. */
#include <string.h>

#include "cli.h"

static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};
static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};

/* Registered format i when it computes op, else 0. */
static int format_for(int i, spx_operation op, spx_format_info *f)
{
    return spx_format_get(i, f) == SPX_OK && (f->operations & (1u << (unsigned)op));
}

/* Appends word to buf, '|'-separated, unless it is there already. */
static void add_word(char *buf, size_t len, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = buf; (p = strstr(p, word)) != NULL; p += n)
        if ((p == buf || p[-1] == '|') && (p[n] == '\0' || p[n] == '|')) return;
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "|" : "", word);
}

int cli_check_format(const char *cmd, spx_operation op, const char *name)
{
    char names[512];
    spx_format_info f;
    if (strcmp(name, "auto") == 0) return CLI_PARSED;
    for (int i = 0; i < spx_format_count(); i++)
        if (format_for(i, op, &f) && strcmp(f.name, name) == 0) return CLI_PARSED;
    cli_format_names(op, names, sizeof names);
    return cli_usage_error(cmd, "unknown format '%s' (%s)", name, names);
}

int cli_check_plan(const char *cmd, spx_operation op, const spx_plan_opts *o)
{
    static const int64_t rowptr[] = {0, 1};
    static const int32_t colidx[] = {0};
    static const double one[] = {1.0};
    spx_plan_opts probe = spx_plan_opts_default();
    spx_matrix *A = NULL;
    spx_plan *P = NULL;
    probe.format = o->format;
    probe.device = o->device;
    probe.precision = o->precision;
    spx_status st = spx_matrix_wrap_csr(1, 1, rowptr, colidx, one, &A);
    if (st == SPX_OK) st = spx_plan_create(A, op, &probe, &P);
    spx_plan_destroy(P);
    spx_matrix_destroy(A);
    if (st == SPX_ERR_NO_FORMAT || st == SPX_ERR_NO_DEVICE || st == SPX_ERR_NOT_COMPILED)
        return cli_library_error(cmd, NULL, st);
    return CLI_PARSED;
}

void cli_format_names(spx_operation op, char *buf, size_t len)
{
    spx_format_info f;
    buf[0] = '\0';
    add_word(buf, len, "auto");
    for (int i = 0; i < spx_format_count(); i++)
        if (format_for(i, op, &f)) add_word(buf, len, f.name);
}

void cli_device_names(spx_operation op, char *buf, size_t len)
{
    unsigned served = 0;
    spx_format_info f;
    buf[0] = '\0';
    for (int i = 0; i < spx_format_count(); i++)
        if (format_for(i, op, &f)) served |= f.devices;
    for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++)
        if (served & (unsigned)devices[k]) add_word(buf, len, cli_device_name(devices[k]));
}

void cli_precision_names(spx_operation op, spx_device d, char *buf, size_t len)
{
    unsigned bits = cli_format_precisions(op, "auto", d);
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
        if (bits & (1u << (unsigned)types[k])) add_word(buf, len, cli_precision_name(types[k]));
}

unsigned cli_format_precisions(spx_operation op, const char *name, spx_device d)
{
    unsigned bits = 0;
    int any = strcmp(name, "auto") == 0;
    spx_format_info f;
    for (int i = 0; i < spx_format_count(); i++)
        if (format_for(i, op, &f) && (f.devices & (unsigned)d) && (any || !strcmp(f.name, name)))
            bits |= f.precisions;
    return bits;
}
