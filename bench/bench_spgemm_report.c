/* The SpGEMM bench's output: a table (one row per format, variant, AUTO and
 * peer), warning lines when the batches spread or the machine was loaded, and
 * a JSON array of records like the SpMV mode's. */
#include <math.h>
#include <string.h>

#include "bench_internal.h"
#include "bench_report.h"

static int name_width(const spx_bench_spgemm_record *r, int n)
{
    char label[96];
    int w = 6;
    for (int i = 0; i < n; i++) {
        spx_bench_label(r[i].format, r[i].params, r[i].chosen, label, sizeof label);
        if ((int)strlen(label) > w) w = (int)strlen(label);
    }
    return w;
}

static void print_row(FILE *f, int w, const spx_bench_spgemm_record *r)
{
    char label[96];
    spx_bench_label(r->format, r->params, r->chosen, label, sizeof label);
    fprintf(f, "%-*s %-6s %-4s ", w, label, spx_bench_device_name(r->device),
            spx_bench_precision_name(r->precision));
    if (r->status != SPX_OK) {
        fprintf(f, "error: %s: %s\n", spx_status_name(r->status), r->error);
        return;
    }
    fprintf(f, "%12lld %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %8.3f %8.3f %12zu %11.2e %8lld %s",
            (long long)r->nnz_c, r->prep_ms, r->first_ms, r->run.median_ms, r->run.min_ms,
            r->run.max_ms, r->whole.median_ms, r->gflops, r->gflops_whole, r->bytes,
            r->max_rel_err, (long long)r->dropped, r->ok ? "yes" : "NO");
    fprintf(f, "%s%s\n", r->detail[0] ? " " : "", r->detail);
}

void spx_bench_spgemm_print_table(FILE *f, const char *matrix, const spx_bench_spgemm_record *r,
                                  int n)
{
    int w = name_width(r, n);
    if (n > 0)
        fprintf(f, "SpGEMM %s: nnz(A) %lld, nnz(B) %lld, %lld intermediate products\n", matrix,
                (long long)r[0].nnz_a, (long long)r[0].nnz_b, (long long)r[0].products);
    fprintf(f, "%-*s %-6s %-4s %12s %10s %10s %10s %10s %10s %10s %8s %8s %12s %11s %8s %s\n", w,
            "format", "device", "prec", "nnz_c", "prep_ms", "first_ms", "run_ms", "run_min",
            "run_max", "whole_ms", "gflops", "gf_whole", "bytes", "max_rel_err", "dropped", "ok");
    for (int i = 0; i < n; i++)
        print_row(f, w, &r[i]);
}

int spx_bench_spgemm_print_warnings(FILE *f, const spx_bench_spgemm_record *r, int n, int threads)
{
    bench_spread_note w;
    bench_spread_begin(&w);
    for (int i = 0; i < n; i++)
        if (r[i].status == SPX_OK)
            bench_spread_add(&w, r[i].format, r[i].params, r[i].chosen, r[i].precision,
                             r[i].device, &r[i].run, r[i].load1);
    return bench_spread_print(f, &w, threads);
}

static void write_record(FILE *f, const char *matrix, const char *b,
                         const spx_bench_spgemm_record *r)
{
    int ran = r->status == SPX_OK;
    fputs("  {\"operation\": \"spgemm\", \"matrix\": ", f);
    spx_bench_json_string(f, matrix);
    fputs(", \"b\": ", f);
    spx_bench_json_string(f, b ? b : matrix);
    bench_json_names(f, r->format, r->params, r->chosen, r->device, r->precision);
    if (r->detail[0]) {
        fputs(", \"detail\": ", f);
        spx_bench_json_string(f, r->detail);
    }
    fprintf(f, ", \"nnz_a\": %lld, \"nnz_b\": %lld, \"products\": %lld", (long long)r->nnz_a,
            (long long)r->nnz_b, (long long)r->products);
    if (r->nnz_c >= 0)
        fprintf(f, ", \"nnz_c\": %lld", (long long)r->nnz_c);
    else
        fputs(", \"nnz_c\": null", f);
    bench_json_field(f, "prep_ms", ran ? r->prep_ms : NAN);
    bench_json_field(f, "first_ms", r->first_ms);
    bench_json_field(f, "run_ms", r->run.median_ms);
    bench_json_spread(f, "run_", &r->run);
    bench_json_field(f, "whole_ms", r->whole.median_ms);
    bench_json_spread(f, "whole_", &r->whole);
    bench_json_field(f, "gflops", r->gflops);
    bench_json_field(f, "gflops_whole", r->gflops_whole);
    if (ran)
        fprintf(f, ", \"bytes\": %zu", r->bytes);
    else
        fputs(", \"bytes\": null", f);
    bench_json_field(f, "max_rel_err", r->max_rel_err);
    fprintf(f, ", \"dropped\": %lld, \"ok\": %s", (long long)r->dropped, r->ok ? "true" : "false");
    bench_json_field(f, "load1", ran && r->load1 >= 0.0 ? r->load1 : NAN);
    bench_json_status(f, r->status, r->error);
    fputc('}', f);
}

void spx_bench_spgemm_write_json(FILE *f, const char *matrix, const char *b,
                                 const spx_bench_spgemm_record *r, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_record(f, matrix, b, &r[i]);
    }
    fputs("\n]\n", f);
}
