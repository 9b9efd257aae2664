/* The SpMM and SDDMM benches' output: a table (one row per format, AUTO and
 * peer) whose x column compares each row with the first peer that ran on
 * its device and precision (SpMM: cuSPARSE on CUDA, Eigen on the CPU when
 * compiled in; SDDMM: cuSPARSE on CUDA, GraphBLAS on the CPU), and a JSON
 * array of records like the other modes'. SDDMM rows also have gbs (the
 * bytes model over the time). Their warnings are the SpMV mode's
 * (spx_bench_print_warnings), on the same records. */
#include <math.h>
#include <string.h>

#include "bench_internal.h"
#include "bench_report.h"
#include "bench_sddmm.h"
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

/* "%*.2f " of v, or "-" in that width when v is NAN. */
static void print_ratio(FILE *f, int w, double v)
{
    if (isnan(v))
        fprintf(f, "%*s ", w, "-");
    else
        fprintf(f, "%*.2f ", w, v);
}

static void print_row(FILE *f, int w, int with_gbs, const spx_bench_record *r, int n,
                      const spx_bench_record *row)
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
    if (with_gbs) print_ratio(f, 7, row->gbs);
    print_ratio(f, 7, x);
    fprintf(f, "%10.4f %10.4f %10.4f %10.4f %10.3f %12zu %11.2e %s\n", row->t.median_ms,
            row->t.min_ms, row->t.max_ms, row->first_ms, row->prep_ms, row->bytes, row->max_rel_err,
            row->ok ? "yes" : "NO");
}

/* The table of op (SPX_OP_SPMM or SPX_OP_SDDMM), after its title line. */
static void print_table(FILE *f, spx_operation op, const spx_bench_record *r, int n)
{
    const int with_gbs = op == SPX_OP_SDDMM;
    char label[96];
    int w = 6;
    for (int i = 0; i < n; i++) {
        spx_bench_label(r[i].format, r[i].params, r[i].chosen, label, sizeof label);
        w = (int)strlen(label) > w ? (int)strlen(label) : w;
    }
    fprintf(f, "%-*s %-6s %-4s %9s ", w, "format", "device", "prec", "gflops");
    if (with_gbs) fprintf(f, "%7s ", "gbs");
    fprintf(f, "%7s %10s %10s %10s %10s %10s %12s %11s %s\n", "x", "median_ms", "min_ms", "max_ms",
            "first_ms", "prep_ms", "bytes", "max_rel_err", "ok");
    for (int i = 0; i < n; i++)
        print_row(f, w, with_gbs, r, n, &r[i]);
}

void spx_bench_spmm_print_table(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                int n)
{
    if (n > 0)
        fprintf(f,
                "SpMM %s: nnz %lld, k %lld (X and Y row-major, leading dimension k), %.4g flop a "
                "call; x: the first peer's median_ms over the row's, same device and precision\n",
                matrix, (long long)r[0].nnz, (long long)k, 2.0 * (double)r[0].nnz * (double)k);
    print_table(f, SPX_OP_SPMM, r, n);
}

void spx_bench_sddmm_print_table(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                 int n)
{
    if (n > 0)
        fprintf(f,
                "SDDMM %s: nnz %lld, k %lld (X rows x k, Y cols x k, row-major, leading "
                "dimension k; Z one value an entry), %.4g flop a call; gbs: bytes model (pattern, "
                "Z written, X and Y read once) over median_ms; x: the first peer's median_ms over "
                "the row's, same device and precision\n",
                matrix, (long long)r[0].nnz, (long long)k, 2.0 * (double)r[0].nnz * (double)k);
    print_table(f, SPX_OP_SDDMM, r, n);
}

static void write_record(FILE *f, spx_operation op, const char *matrix, int64_t k,
                         const spx_bench_record *r, int n, const spx_bench_record *row)
{
    const char *peer;
    const int ran = row->status == SPX_OK;
    double x = versus_peer(r, n, row, &peer);
    fprintf(f, "  {\"operation\": \"%s\", \"matrix\": ", op == SPX_OP_SDDMM ? "sddmm" : "spmm");
    spx_bench_json_string(f, matrix);
    bench_json_names(f, row->format, row->params, row->chosen, row->device, row->precision);
    fprintf(f, ", \"nnz\": %lld, \"k\": %lld", (long long)row->nnz, (long long)k);
    bench_json_field(f, "median_ms", row->t.median_ms);
    bench_json_spread(f, "", &row->t);
    bench_json_field(f, "first_ms", row->first_ms);
    bench_json_field(f, "gflops", row->gflops);
    if (op == SPX_OP_SDDMM) bench_json_field(f, "gbs", row->gbs);
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

static void write_json(FILE *f, spx_operation op, const char *matrix, int64_t k,
                       const spx_bench_record *r, int n)
{
    fputc('[', f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n" : "\n", f);
        write_record(f, op, matrix, k, r, n, &r[i]);
    }
    fputs("\n]\n", f);
}

void spx_bench_spmm_write_json(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                               int n)
{
    write_json(f, SPX_OP_SPMM, matrix, k, r, n);
}

void spx_bench_sddmm_write_json(FILE *f, const char *matrix, int64_t k, const spx_bench_record *r,
                                int n)
{
    write_json(f, SPX_OP_SDDMM, matrix, k, r, n);
}
