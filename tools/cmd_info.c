/* spx info M [--json] [--formats [--device D]]: spx_matrix_stats of a
 * matrix, as aligned lines or one JSON object; --formats adds, for each
 * registered SpMV format of device D (cpu by default, or cuda), the bytes its
 * prepared form holds and its own description (AXC/AXT: the occupancy beta). */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

static const char usage[] =
    "Usage: spx info M [--json] [--formats [--device cpu|cuda]]\n\n"
    "Statistics of the matrix M (a .mtx, .mtx.gz or .spx file, or gen:SPEC):\n"
    "sizes, row lengths (min, mean, max, standard deviation, its % of the mean),\n"
    "DASP's row classes (length 1..4, 5..255, 256, > 256), non-empty 8x8 tiles\n"
    "and their density, symmetry, whether every stored value is one number (iso)\n"
    "and which.\n\n"
    "  --json     one JSON object with the keys rows cols nnz rmin rave rmax rsd\n"
    "             rsdp empty_rows rows_len1 rows_len2 rows_len3 rows_len4\n"
    "             rows_5_255 rows_256 rows_gt256 tiles8 tile_density symmetric\n"
    "             iso iso_value\n"
    "  --formats  also prepare M with every registered SpMV format of the device\n"
    "             and show the bytes it holds and its description (JSON: a\n"
    "             \"formats\" array); AXC and AXT describe their occupancy beta\n"
    "  --device   cpu (default) or cuda: whose formats --formats prepares\n";

enum field_kind { FIELD_I64, FIELD_F64, FIELD_BOOL };

typedef struct stat_field {
    const char *key;
    enum field_kind kind;
    size_t offset;
} stat_field;

/* The keys of `spx info --json`, in order. */
static const stat_field fields[] = {
    {"rows", FIELD_I64, offsetof(spx_stats, rows)},
    {"cols", FIELD_I64, offsetof(spx_stats, cols)},
    {"nnz", FIELD_I64, offsetof(spx_stats, nnz)},
    {"rmin", FIELD_I64, offsetof(spx_stats, rmin)},
    {"rave", FIELD_F64, offsetof(spx_stats, rave)},
    {"rmax", FIELD_I64, offsetof(spx_stats, rmax)},
    {"rsd", FIELD_F64, offsetof(spx_stats, rsd)},
    {"rsdp", FIELD_F64, offsetof(spx_stats, rsdp)},
    {"empty_rows", FIELD_I64, offsetof(spx_stats, empty_rows)},
    {"rows_len1", FIELD_I64, offsetof(spx_stats, rows_len1)},
    {"rows_len2", FIELD_I64, offsetof(spx_stats, rows_len2)},
    {"rows_len3", FIELD_I64, offsetof(spx_stats, rows_len3)},
    {"rows_len4", FIELD_I64, offsetof(spx_stats, rows_len4)},
    {"rows_5_255", FIELD_I64, offsetof(spx_stats, rows_5_255)},
    {"rows_256", FIELD_I64, offsetof(spx_stats, rows_256)},
    {"rows_gt256", FIELD_I64, offsetof(spx_stats, rows_gt256)},
    {"tiles8", FIELD_I64, offsetof(spx_stats, tiles8)},
    {"tile_density", FIELD_F64, offsetof(spx_stats, tile_density)},
    {"symmetric", FIELD_BOOL, offsetof(spx_stats, symmetric)},
    {"iso", FIELD_BOOL, offsetof(spx_stats, iso)},
    {"iso_value", FIELD_F64, offsetof(spx_stats, iso_value)},
};

#define NFIELDS (sizeof fields / sizeof fields[0])

static void print_field(FILE *f, const spx_stats *s, const stat_field *fd, int json)
{
    const char *base = (const char *)s + fd->offset;
    if (fd->kind == FIELD_I64) {
        fprintf(f, "%lld", (long long)*(const int64_t *)(const void *)base);
    } else if (fd->kind == FIELD_BOOL) {
        int b = *(const int *)(const void *)base;
        fputs(json ? (b ? "true" : "false") : (b ? "yes" : "no"), f);
    } else if (json) {
        spx_bench_json_number(f, *(const double *)(const void *)base);
    } else {
        fprintf(f, "%.6g", *(const double *)(const void *)base);
    }
}

/* The precision a format is shown in: f64 when it has it. */
static spx_type first_precision(unsigned precisions)
{
    if (precisions & (1u << SPX_F64)) return SPX_F64;
    return (precisions & (1u << SPX_F32)) ? SPX_F32 : SPX_F16;
}

/* Prepare A for SpMV with registered format i on device d; *P is NULL when
 * it failed (the message is then in spx_last_error()). Returns 0 for a format
 * without SpMV on d. */
static int prepare_format(const spx_matrix *A, int i, spx_device d, const char **name,
                          spx_plan **P)
{
    spx_format_info f;
    *P = NULL;
    if (spx_format_get(i, &f) != SPX_OK) return 0;
    if (!(f.devices & d) || !(f.operations & (1u << SPX_OP_SPMV))) return 0;
    *name = f.name;
    spx_plan_opts o = spx_plan_opts_default();
    o.format = *name;
    o.device = d;
    o.precision = first_precision(f.precisions);
    spx_plan_create(A, SPX_OP_SPMV, &o, P);
    return 1;
}

static void print_formats_plain(const spx_matrix *A, spx_device d)
{
    printf("\n%-16s %14s  %s\n", "format", "bytes", "description");
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        spx_plan *P;
        if (!prepare_format(A, i, d, &name, &P)) continue;
        if (P)
            printf("%-16s %14zu  %s\n", name, spx_plan_bytes(P), spx_plan_describe(P));
        else
            printf("%-16s %14s  error: %s\n", name, "-", spx_last_error());
        spx_plan_destroy(P);
    }
}

static void print_formats_json(const spx_matrix *A, spx_device d)
{
    const char *sep = "";
    printf(",\n  \"formats\": [");
    for (int i = 0; i < spx_format_count(); i++) {
        const char *name;
        spx_plan *P;
        if (!prepare_format(A, i, d, &name, &P)) continue;
        printf("%s\n    {\"name\": ", sep);
        spx_bench_json_string(stdout, name);
        if (P) {
            printf(", \"bytes\": %zu, \"describe\": ", spx_plan_bytes(P));
            spx_bench_json_string(stdout, spx_plan_describe(P));
        } else {
            printf(", \"error\": ");
            spx_bench_json_string(stdout, spx_last_error());
        }
        printf("}");
        sep = ",";
        spx_plan_destroy(P);
    }
    printf("\n  ]");
}

static void print_stats(const char *source, const spx_stats *s, int json)
{
    if (!json) printf("%-14s %s\n", "matrix", source);
    for (size_t k = 0; k < NFIELDS; k++) {
        if (json)
            printf("%s\n  \"%s\": ", k ? "," : "{", fields[k].key);
        else
            printf("%-14s ", fields[k].key);
        print_field(stdout, s, &fields[k], json);
        if (!json) putchar('\n');
    }
}

int spx_cmd_info(int argc, char **argv)
{
    int json = 0, formats = 0;
    const char *device = "cpu";
    const cli_opt opts[] = {{"--json", NULL, &json},
                            {"--formats", NULL, &formats},
                            {"--device", &device, NULL},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"info", usage, opts, 1, 1};
    const char *pos[1];
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;
    spx_plan_opts probe = spx_plan_opts_default();
    if ((rc = cli_parse_device("info", device, &probe.device)) != CLI_PARSED) return rc;
    /* a device without SpMV (no GPU, or a build without CUDA): said before the read */
    if (formats && (rc = cli_check_plan("info", SPX_OP_SPMV, &probe)) != CLI_PARSED) return rc;
    spx_device d = probe.device;

    spx_matrix *A = NULL;
    spx_stats s;
    cli_load_info info;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK) return cli_library_error("info", pos[0], st);
    st = spx_matrix_stats(A, &s);
    if (st != SPX_OK) {
        spx_matrix_destroy(A);
        return cli_library_error("info", "statistics", st);
    }
    print_stats(pos[0], &s, json);
    if (formats) (json ? print_formats_json : print_formats_plain)(A, d);
    if (json) printf("\n}\n");
    spx_matrix_destroy(A);
    return CLI_OK;
}
