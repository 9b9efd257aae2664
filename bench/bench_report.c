/* The bench's output: an aligned table for the terminal and a JSON array of
 * records for scripts (bench/results/). Failed records keep their names and
 * carry the error; their numbers are null in JSON. */
#include <math.h>
#include <string.h>

#include "bench.h"

void spx_bench_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void spx_bench_json_number(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void breakeven_text(double b, char *buf, size_t len)
{
    if (isnan(b))
        snprintf(buf, len, "-");
    else if (isinf(b))
        snprintf(buf, len, "never");
    else
        snprintf(buf, len, "%.0f", b);
}

void spx_bench_label(const spx_bench_record *r, char *buf, size_t len)
{
    if (r->params)
        snprintf(buf, len, "%s[%s]", r->format, r->params);
    else if (r->chosen)
        snprintf(buf, len, "%s:%s", r->format, r->chosen);
    else
        snprintf(buf, len, "%s", r->format);
}

static int name_width(const char *matrix, const spx_bench_record *r, int n)
{
    char label[96];
    int w = (int)strlen(matrix);
    for (int i = 0; i < n; i++) {
        spx_bench_label(&r[i], label, sizeof label);
        if ((int)strlen(label) > w) w = (int)strlen(label);
    }
    return w < 6 ? 6 : w;
}

static void print_row(FILE *f, int w, const char *matrix, const spx_bench_record *r,
                      double stream_gbs)
{
    char be[32], bp[32], label[96];
    spx_bench_label(r, label, sizeof label);
    fprintf(f, "%-*s %-*s %-6s %-4s %12lld ", w, matrix, w, label,
            spx_bench_device_name(r->device), spx_bench_precision_name(r->precision),
            (long long)r->nnz);
    if (r->status != SPX_OK) {
        fprintf(f, "error: %s: %s\n", spx_status_name(r->status), r->error);
        return;
    }
    breakeven_text(r->breakeven, be, sizeof be);
    breakeven_text(r->breakeven_peer, bp, sizeof bp);
    fprintf(f, "%10.4f %8.2f %8.2f ", r->median_ms, r->gflops, r->gbs);
    if (stream_gbs > 0.0) fprintf(f, "%7.1f ", 100.0 * r->gbs / stream_gbs);
    fprintf(f, "%10.3f %12zu %9s %9s %11.2e %s\n", r->prep_ms, r->bytes, be, bp, r->max_rel_err,
            r->ok ? "yes" : "NO");
}

void spx_bench_print_table(FILE *f, const char *matrix, const spx_bench_record *r, int n,
                           double stream_gbs)
{
    int w = name_width(matrix, r, n);
    fprintf(f, "%-*s %-*s %-6s %-4s %12s %10s %8s %8s ", w, "matrix", w, "format", "device", "prec",
            "nnz", "median_ms", "gflops", "gbs");
    if (stream_gbs > 0.0) fprintf(f, "%7s ", "%stream");
    fprintf(f, "%10s %12s %9s %9s %11s %s\n", "prep_ms", "bytes", "breakeven", "be_peer",
            "max_rel_err", "ok");
    for (int i = 0; i < n; i++)
        print_row(f, w, matrix, &r[i], stream_gbs);
}

/* A break-even as JSON: a count, "never", or null when not applicable. */
static void json_calls(FILE *f, const char *key, double calls)
{
    fprintf(f, ", \"%s\": ", key);
    if (isinf(calls))
        fputs("\"never\"", f);
    else if (isnan(calls))
        fputs("null", f);
    else
        fprintf(f, "%.0f", calls);
}

static void json_field(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    spx_bench_json_number(f, v);
}

static void write_record(FILE *f, const char *matrix, const spx_bench_record *r)
{
    fputs("  {\"matrix\": ", f);
    spx_bench_json_string(f, matrix);
    fputs(", \"format\": ", f);
    spx_bench_json_string(f, r->format);
    if (r->chosen) {
        fputs(", \"chosen\": ", f);
        spx_bench_json_string(f, r->chosen);
    }
    if (r->params) {
        fputs(", \"params\": ", f);
        spx_bench_json_string(f, r->params);
    }
    fprintf(f, ", \"device\": \"%s\", \"precision\": \"%s\", \"nnz\": %lld",
            spx_bench_device_name(r->device), spx_bench_precision_name(r->precision),
            (long long)r->nnz);
    json_field(f, "median_ms", r->median_ms);
    json_field(f, "gflops", r->gflops);
    json_field(f, "gbs", r->gbs);
    json_field(f, "prep_ms", r->status == SPX_OK ? r->prep_ms : NAN);
    if (r->status == SPX_OK)
        fprintf(f, ", \"bytes\": %zu", r->bytes);
    else
        fputs(", \"bytes\": null", f);
    json_field(f, "max_rel_err", r->max_rel_err);
    fprintf(f, ", \"ok\": %s", r->ok ? "true" : "false");
    json_calls(f, "breakeven_calls", r->breakeven);
    json_calls(f, "breakeven_peer_calls", r->breakeven_peer);
    if (r->fastest_peer) fprintf(f, ", \"fastest_peer\": \"%s\"", r->fastest_peer);
    if (r->status != SPX_OK) {
        fprintf(f, ", \"status\": \"%s\", \"error\": ", spx_status_name(r->status));
        spx_bench_json_string(f, r->error);
    }
    fputc('}', f);
}

void spx_bench_write_json(FILE *f, const char *matrix, const spx_bench_record *r, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_record(f, matrix, &r[i]);
    }
    fputs("\n]\n", f);
}
