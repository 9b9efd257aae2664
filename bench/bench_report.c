/* The SpMV bench's output: an aligned table for the terminal, warning lines
 * when the timings cannot be trusted, and a JSON array of records for
 * scripts (bench/results/). Failed records keep their names and carry the
 * error; their numbers are null in JSON. */
#include <math.h>
#include <string.h>

#include "bench_internal.h"
#include "bench_report.h"

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

void spx_bench_label(const char *format, const char *params, const char *chosen, char *buf,
                     size_t len)
{
    if (params)
        snprintf(buf, len, "%s[%s]", format, params);
    else if (chosen)
        snprintf(buf, len, "%s:%s", format, chosen);
    else
        snprintf(buf, len, "%s", format);
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

static int name_width(const char *matrix, const spx_bench_record *r, int n)
{
    char label[96];
    int w = (int)strlen(matrix);
    for (int i = 0; i < n; i++) {
        spx_bench_label(r[i].format, r[i].params, r[i].chosen, label, sizeof label);
        if ((int)strlen(label) > w) w = (int)strlen(label);
    }
    return w < 6 ? 6 : w;
}

static void print_row(FILE *f, int w, const char *matrix, const spx_bench_record *r,
                      double stream_gbs)
{
    char be[32], bp[32], label[96];
    spx_bench_label(r->format, r->params, r->chosen, label, sizeof label);
    fprintf(f, "%-*s %-*s %-6s %-4s %12lld ", w, matrix, w, label,
            spx_bench_device_name(r->device), spx_bench_precision_name(r->precision),
            (long long)r->nnz);
    if (r->status != SPX_OK) {
        fprintf(f, "error: %s: %s\n", spx_status_name(r->status), r->error);
        return;
    }
    breakeven_text(r->breakeven, be, sizeof be);
    breakeven_text(r->breakeven_peer, bp, sizeof bp);
    fprintf(f, "%10.4f %10.4f %10.4f %10.4f %8.2f %8.2f ", r->t.median_ms, r->t.min_ms,
            r->t.max_ms, r->first_ms, r->gflops, r->gbs);
    if (stream_gbs > 0.0) fprintf(f, "%7.1f ", 100.0 * r->gbs / stream_gbs);
    fprintf(f, "%10.3f %12zu %9s %9s %11.2e %s\n", r->prep_ms, r->bytes, be, bp, r->max_rel_err,
            r->ok ? "yes" : "NO");
}

void spx_bench_print_table(FILE *f, const char *matrix, const spx_bench_record *r, int n,
                           double stream_gbs)
{
    int w = name_width(matrix, r, n);
    fprintf(f, "%-*s %-*s %-6s %-4s %12s %10s %10s %10s %10s %8s %8s ", w, "matrix", w, "format",
            "device", "prec", "nnz", "median_ms", "min_ms", "max_ms", "first_ms", "gflops", "gbs");
    if (stream_gbs > 0.0) fprintf(f, "%7s ", "%stream");
    fprintf(f, "%10s %12s %9s %9s %11s %s\n", "prep_ms", "bytes", "breakeven", "be_peer",
            "max_rel_err", "ok");
    for (int i = 0; i < n; i++)
        print_row(f, w, matrix, &r[i], stream_gbs);
}

int spx_bench_print_warnings(FILE *f, const spx_bench_record *r, int n, int threads)
{
    bench_spread_note w;
    bench_spread_begin(&w);
    for (int i = 0; i < n; i++)
        if (r[i].status == SPX_OK)
            bench_spread_add(&w, r[i].format, r[i].params, r[i].chosen, r[i].precision,
                             r[i].device, &r[i].t, r[i].load1);
    return bench_spread_print(f, &w, threads);
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

static void write_record(FILE *f, const char *matrix, const spx_bench_record *r)
{
    fputs("  {\"matrix\": ", f);
    spx_bench_json_string(f, matrix);
    bench_json_names(f, r->format, r->params, r->chosen, r->device, r->precision);
    fprintf(f, ", \"nnz\": %lld", (long long)r->nnz);
    bench_json_field(f, "median_ms", r->t.median_ms);
    bench_json_spread(f, "", &r->t);
    bench_json_field(f, "first_ms", r->first_ms);
    bench_json_field(f, "gflops", r->gflops);
    bench_json_field(f, "gbs", r->gbs);
    bench_json_field(f, "prep_ms", r->status == SPX_OK ? r->prep_ms : NAN);
    if (r->status == SPX_OK)
        fprintf(f, ", \"bytes\": %zu", r->bytes);
    else
        fputs(", \"bytes\": null", f);
    bench_json_field(f, "max_rel_err", r->max_rel_err);
    fprintf(f, ", \"ok\": %s", r->ok ? "true" : "false");
    json_calls(f, "breakeven_calls", r->breakeven);
    json_calls(f, "breakeven_peer_calls", r->breakeven_peer);
    if (r->fastest_peer) fprintf(f, ", \"fastest_peer\": \"%s\"", r->fastest_peer);
    bench_json_field(f, "load1", r->status == SPX_OK && r->load1 >= 0.0 ? r->load1 : NAN);
    bench_json_status(f, r->status, r->error);
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
