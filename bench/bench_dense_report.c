/* The SpMM bench's output: a table (one row per format, AUTO and peer) whose
 * x column compares each row with the first peer that ran on its device and
 * precision (cuSPARSE on CUDA, Eigen on the CPU when compiled in), and a JSON
 * array of records like the other modes'. Its warnings are the SpMV mode's
 * (spx_bench_print_warnings), on the same records. */
#include <math.h>
#include <string.h>

#include "bench_internal.h"
#include "bench_report.h"
#include "bench_spmm.h"

/* The first peer that ran on row's device and precision, or NULL. */
static const spx_bench_record *reference_peer(const spx_bench_record *r, int n,
                                              const spx_bench_record *row)
{
    for (int i = 0; i < n; i++)
        if (r[i].status == SPX_OK && r[i].device == row->device &&
            r[i].precision == row->precision && strncmp(r[i].format, "peer-", 5) == 0)
            return &r[i];
    return NULL;
}

/* The peer's median over the row's (above 1: the row is faster), or NAN. */
static double versus_peer(const spx_bench_record *r, int n, const spx_bench_record *row,
                          const char **peer)
{
    const spx_bench_record *p = reference_peer(r, n, row);
    *peer = p ? p->format : NULL;
    return p && row->status == SPX_OK ? p->t.median_ms / row->t.median_ms : NAN;
}

static void print_row(FILE *f, int w, const spx_bench_record *r, int n, const spx_bench_record *row)
{
    char label[96];
    const char *peer;
    double x = versus_peer(r, n, row, &peer);
    spx_bench_label(row->format, row->params, row->chosen, label, sizeof label);
    fprintf(f, "%-*s %-6s %-4s ", w, label, spx_bench_device_name(row->device),
            spx_bench_precision_name(row->precision));
    if (row->status != SPX_OK) {
        fprintf(f, "error: %s: %s\n", spx_status_name(row->status), row->error);
        return;
    }
    fprintf(f, "%9.2f ", row->gflops);
    if (isnan(x))
        fprintf(f, "%7s ", "-");
    else
        fprintf(f, "%7.2f ", x);
    fprintf(f, "%10.4f %10.4f %10.4f %10.4f %10.3f %12zu %11.2e %s\n", row->t.median_ms,
            row->t.min_ms, row->t.max_ms, row->first_ms, row->prep_ms, row->bytes, row->max_rel_err,
            row->ok ? "yes" : "NO");
}

void spx_bench_spmm_print_table(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                int n)
{
    char label[96];
    int w = 6;
    for (int i = 0; i < n; i++) {
        spx_bench_label(r[i].format, r[i].params, r[i].chosen, label, sizeof label);
        w = (int)strlen(label) > w ? (int)strlen(label) : w;
    }
    if (n > 0)
        fprintf(f,
                "SpMM %s: nnz %lld, k %lld (X and Y row-major, leading dimension k), %.4g flop a "
                "call; x: the first peer's median_ms over the row's, same device and precision\n",
                matrix, (long long)r[0].nnz, (long long)k, 2.0 * (double)r[0].nnz * (double)k);
    fprintf(f, "%-*s %-6s %-4s %9s %7s %10s %10s %10s %10s %10s %12s %11s %s\n", w, "format",
            "device", "prec", "gflops", "x", "median_ms", "min_ms", "max_ms", "first_ms", "prep_ms",
            "bytes", "max_rel_err", "ok");
    for (int i = 0; i < n; i++)
        print_row(f, w, r, n, &r[i]);
}

static void write_record(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r, int n,
                         const spx_bench_record *row)
{
    const char *peer;
    const int ran = row->status == SPX_OK;
    double x = versus_peer(r, n, row, &peer);
    fputs("  {\"operation\": \"spmm\", \"matrix\": ", f);
    spx_bench_json_string(f, matrix);
    bench_json_names(f, row->format, row->params, row->chosen, row->device, row->precision);
    fprintf(f, ", \"nnz\": %lld, \"k\": %lld", (long long)row->nnz, (long long)k);
    bench_json_field(f, "median_ms", row->t.median_ms);
    bench_json_spread(f, "", &row->t);
    bench_json_field(f, "first_ms", row->first_ms);
    bench_json_field(f, "gflops", row->gflops);
    bench_json_field(f, "x_peer", x);
    if (peer && !isnan(x)) {
        fputs(", \"peer\": ", f);
        spx_bench_json_string(f, peer);
    }
    bench_json_field(f, "prep_ms", ran ? row->prep_ms : NAN);
    if (ran)
        fprintf(f, ", \"bytes\": %zu", row->bytes);
    else
        fputs(", \"bytes\": null", f);
    bench_json_field(f, "max_rel_err", row->max_rel_err);
    fprintf(f, ", \"ok\": %s", row->ok ? "true" : "false");
    bench_json_field(f, "load1", ran && row->load1 >= 0.0 ? row->load1 : NAN);
    bench_json_status(f, row->status, row->error);
    fputc('}', f);
}

void spx_bench_spmm_write_json(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                               int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_record(f, matrix, k, r, n, &r[i]);
    }
    fputs("\n]\n", f);
}
