/* spx bench M: load (or generate) M, optionally measure STREAM, run the bench
 * driver (bench/bench.h, bench/bench_spmm.h, bench/bench_sddmm.h) for SpMV,
 * SpGEMM, SpMM or SDDMM and print its table, its warnings and its JSON. Also
 * spx bench --list-peers and --copy (no M). */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "bench_sddmm.h"
#include "bench_spmm.h"
#include "cli.h"

static const char usage[] =
    "Usage: spx bench M [--op spmv|spgemm|spmm|sddmm] [--b B] [--k K] [--format F[,F...]]\n"
    "                 [--device cpu|cuda|all] [--precision f64|f32|f16|all[,...]]\n"
    "                 [--json FILE|-] [--calls N] [--batches N] [--peers] [--threads T]\n"
    "                 [--param k=v,...[;k=v,...]] [--tune] [--stream] [--gather]\n"
    "                 [--resident] [--resident-only] [--numeric]\n"
    "       spx bench --list-peers\n"
    "       spx bench --copy [--device cpu|cuda|all]\n"
    "       spx bench M --multi N [--device cpu|cuda] [--spread] [--no-graph]\n"
    "                 [--format F] [--calls C] [--batches K]\n\n"
    "Time SpMV y = A*x of the matrix M (a .mtx, .mtx.gz or .spx file, or gen:SPEC,\n"
    "e.g. gen:lap3d27:64) with every registered format on every available device\n"
    "and precision asked. For each: prepare a plan (prep_ms), multiply once with x\n"
    "uniform in [-1, 1] (fixed seed) and compare with the `ref` format in fp64:\n"
    "max_rel_err = |y - y_ref|_inf / (|A| |x|)_inf, ok when at most 1e-12 (f64),\n"
    "1e-5 (f32) or 1e-2 (f16); that first call is also timed alone (first_ms:\n"
    "cold caches, lazy initialisation); then time batches of calls (>= 50 ms\n"
    "each, 10 of them; CUDA batches end with a device sync) and report the median\n"
    "per call (median_ms), the fastest and slowest batch (min_ms, max_ms; JSON\n"
    "also q1_ms, q3_ms), gflops (2*nnz/t), gbs (bytes model of DESIGN.md: 12*nnz + 4*(m+1)\n"
    "+ 8*n + 8*m for f64, 4-byte values and vectors for f32, 2-byte values for\n"
    "f16), bytes held, and breakeven: calls after which the extra preparation is\n"
    "paid against csr on the same device and precision ((prep - prep_csr) /\n"
    "(t_csr - t)), or never. csr always runs as that baseline. be_peer: the same\n"
    "against the fastest peer of the run (JSON: breakeven_peer_calls, fastest_peer).\n"
    "A warning follows the table when a row's slowest batch took over 1.5x its\n"
    "fastest, or the load average exceeded the threads: its ratios are then noise.\n\n"
    "--op spgemm: C = A*B (B = M, or --b B) with every SpGEMM format and, with\n"
    "--peers, the SpGEMM peers; each C is checked against a long-double product\n"
    "(max_rel_err = max |c_ij - ref_ij| / (|A||B|)_ij over the symbolic pattern;\n"
    "an entry outside it fails; dropped counts pattern entries a format left out,\n"
    "which must be zeros within the tolerance); prep_ms (plan), first_ms (first\n"
    "product), run_ms (product on the plan, batches as above, run_min..run_max),\n"
    "whole_ms (plan + product, as one call of a user), nnz(C), the intermediate\n"
    "products and gflops = 2 * products / time. --stream and --gather are SpMV's.\n"
    "SpX's CUDA rows take B from the host and give C on the host (their times\n"
    "hold both copies); peer-cusparse-spgemm keeps A, B and C on the device.\n"
    "--resident adds rows F[resident] (cuda f64 and f16, auto and the formats that take\n"
    "device matrices): A and B on the device before timing, C left there.\n\n"
    "--op spmm: Y = A*X with X dense (M's columns x K) and Y (M's rows x K), both\n"
    "row-major with leading dimension K, with every SpMM format and, with --peers,\n"
    "the SpMM peers; X uniform in [-1, 1) (fixed seed), one per precision, and Y\n"
    "checked against `ref` on the cpu in f64 (max_rel_err = max |Y - Y_ref| /\n"
    "max (|A| |X|), tolerances as SpMV's); X and Y on the device for CUDA rows.\n"
    "Columns: gflops (2*nnz*K/t), x (the first peer of the same device and\n"
    "precision, cuSPARSE on cuda, Eigen on cpu: its median_ms over the row's),\n"
    "median_ms, min_ms, max_ms (batches as above), first_ms, prep_ms (peers: with\n"
    "what they make for K), bytes, max_rel_err, ok.\n\n"
    "--op sddmm: Z = X*Y^T sampled at M's entries (one value an entry, in M's CSR\n"
    "order) with X (M's rows x K) and Y (M's columns x K) dense, row-major with\n"
    "leading dimension K, with every SDDMM format and, with --peers, the SDDMM\n"
    "peers (GraphBLAS on cpu, cuSPARSE on cuda); X and Y uniform in [-1, 1) (fixed\n"
    "seeds), Z checked against `ref` on the cpu in f64 (max_rel_err = max |Z -\n"
    "Z_ref| / max over entries (i, j) of sum_c |X(i, c)| |Y(j, c)|). Columns as\n"
    "SpMM's (gflops 2*nnz*K/t) and gbs: bytes model (8-byte row offsets, M's 4-\n"
    "or 8-byte columns, Z written, X and Y read once) over median_ms; the model\n"
    "is printed before the table.\n\n"
    "  --op O            spmv (default), spgemm, spmm or sddmm\n"
    "  --b B             SpGEMM: the right operand (file or gen:SPEC; default M)\n"
    "  --k K             SpMM, SDDMM: columns of X and Y (default 32)\n"
    "  --format F,...    formats (and peers) to run; default all (spx formats)\n"
    "  --device D        cpu, cuda or all available (default all)\n"
    "  --precision P,... f64 (default), f32, f16, or all\n"
    "  --json FILE|-     also write the records as a JSON array (- : stdout; the\n"
    "                    table then goes to stderr)\n"
    "  --calls N         calls per timed batch instead of enough for 50 ms\n"
    "  --batches N       timed batches (default 10)\n"
    "  --peers           also run the peers compiled in (bench/peers.h)\n"
    "  --threads T       OpenMP threads (default: OpenMP's)\n"
    "  --param k=v,...   format parameters given to every SpX format run; sets\n"
    "                    separated by ';' run one after the other in this process,\n"
    "                    rows labelled format[set] (reorder=rcm|degree|none: every\n"
    "                    format on P A P^T, gather and scatter in the timing;\n"
    "                    --op spgemm: the peers run with the first set)\n"
    "  --tune            let formats tune their parameters (counted in prep_ms)\n"
    "  --stream          measure STREAM triad bandwidth first (arrays of max(3 x\n"
    "                    LLC, 64M) doubles, best of 10, 3 arrays of traffic\n"
    "                    counted, not write-allocate) and show gbs as % of it\n"
    "  --gather          add rows `gather`: s += x[col[k]] over the nonzeros with\n"
    "                    the same threads (col streamed, no values, no y), for A\n"
    "                    and for each reorder= of --param; its gbs is the bytes\n"
    "                    model over that time, the SpMV's rate if only the\n"
    "                    gather cost anything\n"
    "  --resident        --op spgemm: also SpX device to device (rows F[resident],\n"
    "                    cuda f64 and f16): A and B wrapped device matrices, uploaded\n"
    "                    before timing, C a device matrix freed in each timed\n"
    "                    call, as peer-cusparse-spgemm; the first C checked\n"
    "  --resident-only   the same without SpX's host-boundary rows (products whose\n"
    "                    C is too large to bring to the host in time)\n"
    "  --numeric         --op spgemm: also rows F[numeric], repeated products with\n"
    "                    one pattern: spx_spgemm_numeric into the C of one product\n"
    "                    made in prep (first_ms: the first call, which checks C's\n"
    "                    pattern); cpu formats with host operands, cuda ones with\n"
    "                    --resident (peer: peer-cusparse-spgemm-reuse)\n"
    "  --list-peers      print the peers compiled in: name, operation, devices,\n"
    "                    precisions, one per line, and exit\n"
    "  --copy            print the copy bandwidth of each device asked and exit:\n"
    "                    cuda: device-to-device cudaMemcpy of 1 GiB, median of 20\n"
    "                    (bytes read + written), with the GPU's L2 and SMs; cpu:\n"
    "                    STREAM triad as --stream\n\n"
    "--multi N: the multi-device executor (MSREP) in one process: pcsr, pcsc,\n"
    "pcoo and equal-row parts, N of them, against one part, with host vectors and\n"
    "(square M) resident vectors; partition, distribution, SpMV and merge times\n"
    "apart (resident: from calls queued part by part; call_ms as run, replayed as\n"
    "one CUDA graph; each N-part plan beside a one-part plan of its kind, their\n"
    "batches timed in turn). GPU parts all on GPU 0, or round robin over the GPUs with\n"
    "--spread; --no-graph: resident calls on GPUs queue their parts every call\n"
    "instead of replaying a CUDA graph.\n\n"
    "A device and precision that no format asked computes (f16 on cpu, say) is\n"
    "skipped with a line on stderr; when nothing asked can run, or --device cuda\n"
    "has no GPU, the command fails before reading M.\n\n"
    "Exit: 0 all ok, 3 a result failed its check, 1 a format failed to run\n"
    "(its row says why; a format declining the matrix or precision with\n"
    "SPX_ERR_UNSUPPORTED is not a failure) or nothing can run, 2 usage error.\n";

enum { MAX_PARAM_SETS = 8 };

typedef struct bench_args {
    const char *matrix, *formats, *device, *precision, *json, *calls, *threads;
    const char *op_name, *b, *batches, *k_arg;
    int peers, tune, stream, gather, list_peers, copy, resident_only;
    spx_operation op;
    int64_t k; /* SpMM, SDDMM: columns of X and Y */
    spx_bench_opts o;
    char pbuf[1024];                  /* --param, split at ';' into sets */
    const char *sets[MAX_PARAM_SETS]; /* NULL: the formats' defaults */
    int nsets;
    unsigned devices_of[3]; /* by spx_type: the devices that precision runs on */
} bench_args;

static const spx_type types[] = {SPX_F64, SPX_F32, SPX_F16};
static const spx_device devices[] = {SPX_DEV_CPU, SPX_DEV_CUDA};

static const char *operation_name(spx_operation op)
{
    return op == SPX_OP_SPGEMM  ? "spgemm"
           : op == SPX_OP_SPMM  ? "spmm"
           : op == SPX_OP_SDDMM ? "sddmm"
                                : "spmv";
}

/* Whether a peer of operation want and this name is compiled in; its devices
 * and precisions (bits) go to *devices and *precisions. */
static int find_peer(const char *name, spx_operation want, unsigned *devices, unsigned *precisions)
{
    spx_operation op;
    const char *peer;
    for (int i = 0; (peer = spx_bench_peer_name(i, &op, devices, precisions)) != NULL; i++)
        if (op == want && strcmp(peer, name) == 0) return 1;
    return 0;
}

/* Split list (modified in place) at commas into names[] (NULL-terminated, at
 * most max-1 names), checking each: `auto`, a format computing op, or with
 * --peers a peer of op. */
static int split_formats(char *list, const char **names, int max, int peers, spx_operation op)
{
    int n = 0;
    unsigned devices, precisions;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int peer = find_peer(tok, op, &devices, &precisions);
        if (peer && !peers)
            return cli_usage_error("bench", "format '%s' is a peer: add --peers", tok);
        int rc = peer ? CLI_PARSED : cli_check_format("bench", op, tok);
        if (rc != CLI_PARSED) return rc;
        if (n < max - 1) names[n++] = tok;
    }
    names[n] = NULL;
    return n ? CLI_PARSED : cli_usage_error("bench", "--format needs at least one name");
}

static int parse_precisions(const char *list, unsigned *bits)
{
    char buf[64];
    *bits = 0;
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        spx_type t;
        if (strcmp(tok, "all") == 0) {
            *bits |= (1u << SPX_F64) | (1u << SPX_F32) | (1u << SPX_F16);
            continue;
        }
        int rc = cli_parse_precision("bench", tok, &t);
        if (rc != CLI_PARSED) return rc;
        *bits |= 1u << (unsigned)t;
    }
    return *bits ? CLI_PARSED : cli_usage_error("bench", "--precision needs a value");
}

/* "all": the available devices; a device named must be usable (the
 * library's reason, e.g. no GPU, otherwise). */
static int parse_devices(const char *s, spx_operation op, unsigned *bits)
{
    spx_plan_opts o = spx_plan_opts_default();
    if (strcmp(s, "all") == 0) {
        *bits = SPX_DEV_CPU | (spx_device_available(SPX_DEV_CUDA) ? SPX_DEV_CUDA : 0u);
        return CLI_PARSED;
    }
    int rc = cli_parse_device("bench", s, &o.device);
    if (rc != CLI_PARSED) return rc;
    *bits = (unsigned)o.device;
    if (spx_device_available(o.device)) return CLI_PARSED;
    if ((rc = cli_check_plan("bench", op, &o)) != CLI_PARSED) return rc;
    fprintf(stderr, "spx bench: device %s is not available (see spx formats)\n", s);
    return CLI_RUNTIME;
}

/* Whether the format or peer `name` computes op in t on device d. */
static int runs_on(const char *name, spx_operation op, spx_type t, spx_device d)
{
    unsigned devices, precisions, bit = 1u << (unsigned)t;
    if (find_peer(name, op, &devices, &precisions))
        return (devices & (unsigned)d) && (precisions & bit);
    return (cli_format_precisions(op, name, d) & bit) != 0;
}

/* For each precision asked, the devices asked on which a format asked (every
 * format and, with --peers, peer without --format) computes it. The others
 * are skipped with a line on stderr; nothing at all to run is an error. */
static int plan_runs(bench_args *a)
{
    const char *const every[] = {"auto", NULL};
    const char *const *names = a->o.formats ? a->o.formats : every;
    unsigned runnable = 0;
    for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
        a->devices_of[types[k]] = 0;
        if (!(a->o.precisions & (1u << (unsigned)types[k]))) continue;
        for (size_t e = 0; e < sizeof devices / sizeof devices[0]; e++) {
            unsigned d = (unsigned)devices[e], found = 0;
            if (!(a->o.devices & d)) continue;
            for (const char *const *n = names; *n && !found; n++)
                found = runs_on(*n, a->op, types[k], devices[e]);
            for (int i = 0; a->peers && !a->o.formats && i < spx_bench_peer_count() && !found;
                 i++)
                found = runs_on(spx_bench_peer_name(i, NULL, NULL, NULL), a->op, types[k],
                                devices[e]);
            if (found)
                a->devices_of[types[k]] |= d;
            else
                fprintf(stderr, "spx bench: skipping %s on %s: no format asked computes it\n",
                        cli_precision_name(types[k]), cli_device_name(devices[e]));
        }
        runnable |= a->devices_of[types[k]];
    }
    if (runnable) return CLI_PARSED;
    fprintf(stderr,
            "spx bench: nothing to run: no format asked computes %s on the devices "
            "and in the precisions asked (see spx formats)\n",
            operation_name(a->op));
    return CLI_RUNTIME;
}

static int parse_numbers(bench_args *a)
{
    long v = 0;
    int rc = CLI_PARSED;
    if (a->calls &&
        (rc = cli_parse_int("bench", "--calls", a->calls, 1, 1000000000L, &v)) == CLI_PARSED)
        a->o.calls = v;
    if (rc == CLI_PARSED && a->batches &&
        (rc = cli_parse_int("bench", "--batches", a->batches, 1, 1000, &v)) == CLI_PARSED)
        a->o.batches = (int)v;
    if (rc == CLI_PARSED && a->k_arg &&
        (rc = cli_parse_int("bench", "--k", a->k_arg, 1, 1L << 20, &v)) == CLI_PARSED)
        a->k = v;
    if (rc == CLI_PARSED && a->threads &&
        (rc = cli_parse_int("bench", "--threads", a->threads, 1, 4096, &v)) == CLI_PARSED) {
        a->o.threads = (int)v;
        omp_set_num_threads((int)v); /* peers and STREAM too */
    }
    return rc;
}

/* --param "S1;S2;..." into a->sets (one NULL set without --param). */
static int split_param_sets(bench_args *a)
{
    a->nsets = 0;
    a->sets[a->nsets++] = NULL;
    if (!a->o.params) return CLI_PARSED;
    if (strlen(a->o.params) >= sizeof a->pbuf)
        return cli_usage_error("bench", "--param is too long");
    memcpy(a->pbuf, a->o.params, strlen(a->o.params) + 1);
    a->nsets = 0;
    for (char *tok = strtok(a->pbuf, ";"); tok; tok = strtok(NULL, ";")) {
        if (a->nsets == MAX_PARAM_SETS)
            return cli_usage_error("bench", "--param has more than %d sets", MAX_PARAM_SETS);
        a->sets[a->nsets++] = tok;
    }
    return a->nsets ? CLI_PARSED : cli_usage_error("bench", "--param needs k=v pairs");
}

/* --op, and the options that need M or belong to one operation. */
static int parse_op(bench_args *a)
{
    a->op = SPX_OP_SPMV;
    if (a->op_name && strcmp(a->op_name, "spgemm") == 0)
        a->op = SPX_OP_SPGEMM;
    else if (a->op_name && strcmp(a->op_name, "spmm") == 0)
        a->op = SPX_OP_SPMM;
    else if (a->op_name && strcmp(a->op_name, "sddmm") == 0)
        a->op = SPX_OP_SDDMM;
    else if (a->op_name && strcmp(a->op_name, "spmv") != 0)
        return cli_usage_error("bench", "unknown operation '%s' (spmv, spgemm, spmm or sddmm)",
                               a->op_name);
    if (!a->matrix && !a->list_peers && !a->copy)
        return cli_usage_error("bench", "expected 1 argument, the matrix M");
    if (a->b && a->op != SPX_OP_SPGEMM) return cli_usage_error("bench", "--b needs --op spgemm");
    if (a->k_arg && a->op != SPX_OP_SPMM && a->op != SPX_OP_SDDMM)
        return cli_usage_error("bench", "--k needs --op spmm or --op sddmm");
    if (a->op != SPX_OP_SPMV && (a->stream || a->gather))
        return cli_usage_error("bench", "--stream and --gather are for --op spmv");
    if (a->resident_only) a->o.resident = 2;
    if (a->o.resident && a->op != SPX_OP_SPGEMM)
        return cli_usage_error("bench", "--resident needs --op spgemm");
    if (a->o.numeric && a->op != SPX_OP_SPGEMM)
        return cli_usage_error("bench", "--numeric needs --op spgemm");
    return CLI_PARSED;
}

static int parse_args(int argc, char **argv, bench_args *a, char *fbuf, size_t fbuf_len,
                      const char **names, int max_names)
{
    const cli_opt opts[] = {{"--format", &a->formats, NULL},
                            {"--device", &a->device, NULL},
                            {"--precision", &a->precision, NULL},
                            {"--json", &a->json, NULL},
                            {"--calls", &a->calls, NULL},
                            {"--threads", &a->threads, NULL},
                            {"--param", &a->o.params, NULL},
                            {"--peers", NULL, &a->peers},
                            {"--tune", NULL, &a->tune},
                            {"--stream", NULL, &a->stream},
                            {"--gather", NULL, &a->gather},
                            {"--resident", NULL, &a->o.resident},
                            {"--resident-only", NULL, &a->resident_only},
                            {"--numeric", NULL, &a->o.numeric},
                            {"--op", &a->op_name, NULL},
                            {"--b", &a->b, NULL},
                            {"--k", &a->k_arg, NULL},
                            {"--batches", &a->batches, NULL},
                            {"--list-peers", NULL, &a->list_peers},
                            {"--copy", NULL, &a->copy},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"bench", usage, opts, 0, 1};
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if ((rc = parse_op(a)) != CLI_PARSED) return rc;
    if ((rc = parse_devices(a->device, a->op, &a->o.devices)) != CLI_PARSED) return rc;
    if (a->list_peers || a->copy) return CLI_PARSED;
    if ((rc = parse_precisions(a->precision, &a->o.precisions)) != CLI_PARSED) return rc;
    if ((rc = parse_numbers(a)) != CLI_PARSED) return rc;
    if ((rc = split_param_sets(a)) != CLI_PARSED) return rc;
    a->o.peers = a->peers;
    a->o.tune = a->tune;
    if (a->formats) {
        if (strlen(a->formats) >= fbuf_len)
            return cli_usage_error("bench", "--format is too long");
        memcpy(fbuf, a->formats, strlen(a->formats) + 1);
        a->o.formats = names;
        if ((rc = split_formats(fbuf, names, max_names, a->peers, a->op)) != CLI_PARSED)
            return rc;
    }
    return plan_runs(a);
}

static void print_load(FILE *out, const char *label, const spx_matrix *A, const cli_load_info *li)
{
    int64_t rows, cols, nnz;
    spx_matrix_dims(A, &rows, &cols, &nnz);
    fprintf(out, "matrix %s: %lld x %lld, nnz %lld\n", label, (long long)rows, (long long)cols,
            (long long)nnz);
    if (li->file_bytes >= 0)
        fprintf(out, "load: %.1f ms, %.1f MB/s (%.1f MB file)\n", 1e3 * li->seconds,
                (double)li->file_bytes / li->seconds * 1e-6, (double)li->file_bytes * 1e-6);
    else
        fprintf(out, "generate: %.1f ms\n", 1e3 * li->seconds);
    fprintf(out, "threads: %d\n", omp_get_max_threads());
}

/* Whether the f64 bytes model fits in the caches: if it does, the bench
 * measures the cache, not the memory (DESIGN.md, Measuring). The CPU's last
 * level is what the OS reports; a virtual machine may report a cache shared
 * with other guests (seen here: 480 MB reported, triad at DRAM speed from
 * 192 MB up), so that line says "reported" and draws no conclusion. */
static void print_caches(FILE *out, const spx_matrix *A, const bench_args *a)
{
    int64_t rows, cols, nnz;
    char name[128];
    size_t l2 = 0, llc = spx_bench_llc_bytes();
    spx_matrix_dims(A, &rows, &cols, &nnz);
    double model = a->op == SPX_OP_SDDMM ? spx_bench_sddmm_model_bytes(A, a->k, SPX_F64)
                                         : spx_bench_model_bytes(rows, cols, nnz, SPX_F64);
    if (a->op == SPX_OP_SDDMM)
        fprintf(out, "bytes model (SDDMM f64, k = %lld): %.3g MB", (long long)a->k, model * 1e-6);
    else
        fprintf(out, "bytes model (f64): %.3g MB", model * 1e-6);
    if (llc)
        fprintf(out, "; CPU LLC as reported %.0f MB", (double)llc * 1e-6);
    if ((a->o.devices & SPX_DEV_CUDA) &&
        spx_bench_cuda_device(name, sizeof name, &l2, NULL) == SPX_OK)
        fprintf(out, "; %s L2 %.0f MB: %s", name, (double)l2 * 1e-6,
                model <= (double)l2 ? "fits" : "does not fit");
    fputc('\n', out);
}

static int measure_stream(FILE *out, double *gbs)
{
    size_t array_bytes = 0;
    fprintf(stderr, "bench: STREAM triad ...\n");
    spx_status st = spx_bench_stream_triad(gbs, &array_bytes);
    if (st != SPX_OK) return cli_library_error("bench", "STREAM triad", st);
    fprintf(out,
            "STREAM triad: %.1f GB/s (3 arrays of %.0f MB; traffic counts 3 arrays, "
            "write-allocate would add a 4th)\n",
            *gbs, (double)array_bytes * 1e-6);
    return CLI_OK;
}

/* A failure of the bench itself (no reference, no memory): its message. */
static int bench_error(const char *what, spx_status st)
{
    fprintf(stderr, "spx bench: %s: %s: %s\n", what, spx_status_name(st), spx_bench_last_error());
    return CLI_RUNTIME;
}

/* The records as JSON: r, SpMV's, SpMM's or SDDMM's as op says (k their
 * columns), or g, SpGEMM's with b their right operand. */
static int write_json(const char *path, const char *label, spx_operation op, int64_t k,
                      const spx_bench_record *r, const spx_bench_spgemm_record *g, const char *b,
                      int n)
{
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spx bench: cannot create %s\n", path);
        return CLI_RUNTIME;
    }
    if (g)
        spx_bench_spgemm_write_json(f, label, b, g, n);
    else if (op == SPX_OP_SPMM)
        spx_bench_spmm_write_json(f, label, k, r, n);
    else if (op == SPX_OP_SDDMM)
        spx_bench_sddmm_write_json(f, label, k, r, n);
    else
        spx_bench_write_json(f, label, r, n);
    int bad = ferror(f);
    if ((!to_stdout && fclose(f) != 0) || bad) {
        fprintf(stderr, "spx bench: cannot write %s\n", path);
        return CLI_RUNTIME;
    }
    return CLI_OK;
}

/* 3 when a result failed its check, else 1 when a case could not run, else 0.
 * A format or peer declining the matrix or precision (SPX_ERR_UNSUPPORTED) is
 * not a failure: its row says so. One record's status and ok per call. */
static int exit_code_of(int rc, spx_status st, int ok)
{
    if (rc == CLI_CHECK || (st == SPX_OK && !ok)) return CLI_CHECK;
    return st != SPX_OK && st != SPX_ERR_UNSUPPORTED ? CLI_RUNTIME : rc;
}

static int exit_code(const spx_bench_record *r, int n)
{
    int rc = CLI_OK;
    for (int i = 0; i < n; i++)
        rc = exit_code_of(rc, r[i].status, r[i].ok);
    return rc;
}

/* *r (*n records of `size` bytes) followed by more (m): a new array, the old
 * one freed. */
static spx_status append_n(void **r, int *n, const void *more, int m, size_t size)
{
    char *all = calloc((size_t)(*n + m) + 1, size);
    if (!all) return SPX_ERR_OOM;
    if (*n) memcpy(all, *r, (size_t)*n * size);
    if (m) memcpy(all + (size_t)*n * size, more, (size_t)m * size);
    free(*r);
    *r = all;
    *n += m;
    return SPX_OK;
}

static spx_status append_records(spx_bench_record **r, int *n, const spx_bench_record *more, int m)
{
    return append_n((void **)r, n, more, m, sizeof **r);
}

/* One pass of the driver (SpMV, SpMM or SDDMM) per --param set and precision, on
 * the devices that precision runs on; rows labelled by their set when there
 * are several. */
static spx_status run_sets(bench_args *a, const spx_matrix *A, spx_bench_record **r, int *n)
{
    spx_status st = SPX_OK;
    for (int s = 0; s < a->nsets && st == SPX_OK; s++) {
        for (size_t k = 0; k < sizeof types / sizeof types[0] && st == SPX_OK; k++) {
            spx_bench_opts o = a->o;
            spx_bench_record *part = NULL;
            int m = 0;
            if (!(o.devices = a->devices_of[types[k]])) continue;
            o.precisions = 1u << (unsigned)types[k];
            o.params = a->sets[s];
            st = a->op == SPX_OP_SPMM    ? spx_bench_spmm_run(A, a->k, &o, &part, &m)
                 : a->op == SPX_OP_SDDMM ? spx_bench_sddmm_run(A, a->k, &o, &part, &m)
                                         : spx_bench_run(A, &o, &part, &m);
            for (int i = 0; i < m && a->nsets > 1; i++)
                if (!part[i].params) part[i].params = a->sets[s];
            if (st == SPX_OK) st = append_records(r, n, part, m);
            free(part);
        }
    }
    return st;
}

/* --gather: the bound of A in its order, then of each set's reorder= mode. A
 * failed bound is a record with its error, like a failed format. */
static spx_status add_gathers(bench_args *a, const spx_matrix *A, spx_bench_record **r, int *n)
{
    spx_status st = SPX_OK;
    for (int s = -1; s < a->nsets && st == SPX_OK; s++) {
        const char *set = s < 0 ? NULL : a->sets[s];
        if (s >= 0 && (!set || (!strstr(set, "reorder=rcm") && !strstr(set, "reorder=degree"))))
            continue;
        spx_bench_record g;
        fprintf(stderr, "bench: gather bound%s%s ...\n", set ? " " : "", set ? set : "");
        spx_bench_gather(A, set, a->o.threads, &g);
        st = append_records(r, n, &g, 1);
    }
    return st;
}

static int run_bench(bench_args *a, const spx_matrix *A, const char *label, FILE *out)
{
    spx_bench_record *r = NULL;
    int n = 0, rc = CLI_OK;
    double stream_gbs = 0.0;
    if (a->stream && (rc = measure_stream(out, &stream_gbs)) != CLI_OK) return rc;
    a->o.progress = stderr;
    a->o.progress_tty = isatty(fileno(stderr));
    spx_status st = run_sets(a, A, &r, &n);
    if (st == SPX_OK && a->gather) st = add_gathers(a, A, &r, &n);
    if (st != SPX_OK) {
        rc = bench_error(label, st);
    } else {
        if (a->op == SPX_OP_SPMM)
            spx_bench_spmm_print_table(out, label, a->k, r, n);
        else if (a->op == SPX_OP_SDDMM)
            spx_bench_sddmm_print_table(out, label, a->k, r, n);
        else
            spx_bench_print_table(out, label, r, n, stream_gbs);
        spx_bench_print_warnings(out, r, n, omp_get_max_threads());
        rc = a->json ? write_json(a->json, label, a->op, a->k, r, NULL, NULL, n) : CLI_OK;
        if (rc == CLI_OK) rc = exit_code(r, n);
    }
    free(r);
    return rc;
}

/* One SpGEMM pass per --param set (each with its own reference product),
 * the peers in the first only; rows labelled by their set when there are
 * several. */
static spx_status run_spgemm_sets(bench_args *a, const spx_matrix *A, const spx_matrix *B,
                                  spx_bench_spgemm_record **r, int *n)
{
    spx_status st = SPX_OK;
    for (int s = 0; s < a->nsets && st == SPX_OK; s++) {
        spx_bench_opts o = a->o;
        spx_bench_spgemm_record *part = NULL;
        int m = 0;
        o.params = a->sets[s];
        o.peers = s == 0 ? a->o.peers : 0;
        st = spx_bench_spgemm_run(A, B, &o, &part, &m);
        for (int i = 0; i < m && a->nsets > 1; i++) {
            unsigned devices, precisions;
            if (!part[i].params && !find_peer(part[i].format, SPX_OP_SPGEMM, &devices, &precisions))
                part[i].params = a->sets[s];
        }
        if (st == SPX_OK) st = append_n((void **)r, n, part, m, sizeof *part);
        for (int i = 0; st == SPX_OK && i < m; i++) /* a label held in the record moved too */
            if (part[i].params == part[i].label) (*r)[*n - m + i].params = (*r)[*n - m + i].label;
        free(part);
    }
    return st;
}

/* --op spgemm: C = A*B, B loaded from --b or A itself. */
static int run_spgemm(bench_args *a, const spx_matrix *A, const char *label, FILE *out)
{
    spx_bench_spgemm_record *r = NULL;
    spx_matrix *B = NULL;
    cli_load_info li;
    char blabel[256];
    int n = 0, rc = CLI_OK;
    if (a->b) {
        cli_matrix_label(a->b, blabel, sizeof blabel);
        fprintf(stderr, "bench: loading %s ...\n", a->b);
        spx_status st = cli_load_matrix(a->b, &B, &li);
        if (st != SPX_OK) return cli_library_error("bench", a->b, st);
        print_load(out, blabel, B, &li);
    }
    a->o.progress = stderr;
    a->o.progress_tty = isatty(fileno(stderr));
    spx_status st = run_spgemm_sets(a, A, B, &r, &n);
    if (st != SPX_OK) {
        rc = bench_error(label, st);
    } else {
        spx_bench_spgemm_print_table(out, label, r, n);
        spx_bench_spgemm_print_warnings(out, r, n, omp_get_max_threads());
        rc = a->json
                 ? write_json(a->json, label, SPX_OP_SPGEMM, 0, NULL, r, a->b ? blabel : NULL, n)
                 : CLI_OK;
        for (int i = 0; i < n && rc != CLI_RUNTIME; i++)
            rc = exit_code_of(rc, r[i].status, r[i].ok);
    }
    free(r);
    spx_matrix_destroy(B);
    return rc;
}

/* Names of the bits of mask among names[k] <-> bits[k], comma separated. */
static void bit_names(unsigned mask, const unsigned *bits, const char *const *names, size_t n,
                      char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t k = 0; k < n; k++)
        if (mask & bits[k])
            snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "", names[k]);
}

/* --list-peers: one line per peer compiled in: name, operation, devices and
 * precisions (comma separated), e.g. "peer-cusparse-csr spmv cuda f64,f32,f16". */
static int list_peers(void)
{
    static const unsigned dbits[] = {SPX_DEV_CPU, SPX_DEV_CUDA};
    static const char *const dnames[] = {"cpu", "cuda"};
    static const unsigned tbits[] = {1u << SPX_F64, 1u << SPX_F32, 1u << SPX_F16};
    static const char *const tnames[] = {"f64", "f32", "f16"};
    unsigned devs, precs;
    spx_operation op;
    const char *name;
    for (int i = 0; (name = spx_bench_peer_name(i, &op, &devs, &precs)) != NULL; i++) {
        char dbuf[32], tbuf[32];
        bit_names(devs, dbits, dnames, 2, dbuf, sizeof dbuf);
        bit_names(precs, tbits, tnames, 3, tbuf, sizeof tbuf);
        printf("%-24s %-8s %-10s %s\n", name, operation_name(op), dbuf, tbuf);
    }
    return CLI_OK;
}

/* --copy: each device's copy bandwidth, one line each for scripts:
 *   copy cuda: G GB/s (device-to-device, read + write); L2 M MB; S SMs; NAME
 *   copy cpu: G GB/s (STREAM triad, 3 arrays); LLC M MB */
static int copy_bandwidth(unsigned devices)
{
    double gbs = 0.0;
    if (devices & SPX_DEV_CUDA) {
        char name[128];
        size_t l2 = 0;
        int sms = 0;
        spx_status st = spx_bench_cuda_device(name, sizeof name, &l2, &sms);
        if (st == SPX_OK) st = spx_bench_cuda_copy(&gbs);
        if (st != SPX_OK) return bench_error("copy bandwidth", st);
        printf("copy cuda: %.1f GB/s (device-to-device, read + write); L2 %.1f MB; %d SMs; %s\n",
               gbs, (double)l2 / 1048576.0, sms, name);
    }
    if (devices & SPX_DEV_CPU) {
        size_t array_bytes = 0;
        spx_status st = spx_bench_stream_triad(&gbs, &array_bytes);
        if (st != SPX_OK) return bench_error("STREAM triad", st);
        printf("copy cpu: %.1f GB/s (STREAM triad, 3 arrays of %.0f MB); LLC %.1f MB\n", gbs,
               (double)array_bytes * 1e-6, (double)spx_bench_llc_bytes() / 1048576.0);
    }
    return CLI_OK;
}

int spx_cmd_bench(int argc, char **argv)
{
    enum { MAX_NAMES = 64 };
    bench_args a;
    char fbuf[1024], label[256];
    const char *names[MAX_NAMES];
    memset(&a, 0, sizeof a);
    a.device = "all";
    a.precision = "f64";
    a.k = 32;
    int rc = parse_args(argc, argv, &a, fbuf, sizeof fbuf, names, MAX_NAMES);
    if (rc != CLI_PARSED) return rc;
    if (a.list_peers) return list_peers();
    if (a.copy) return copy_bandwidth(a.o.devices);

    FILE *out = a.json && strcmp(a.json, "-") == 0 ? stderr : stdout;
    spx_matrix *A = NULL;
    cli_load_info li;
    cli_matrix_label(a.matrix, label, sizeof label);
    fprintf(stderr, "bench: loading %s ...\n", a.matrix);
    spx_status st = cli_load_matrix(a.matrix, &A, &li);
    if (st != SPX_OK) return cli_library_error("bench", a.matrix, st);
    print_load(out, label, A, &li);
    if (a.op == SPX_OP_SPGEMM) {
        rc = run_spgemm(&a, A, label, out);
    } else {
        if (a.op == SPX_OP_SPMV || a.op == SPX_OP_SDDMM) print_caches(out, A, &a);
        rc = run_bench(&a, A, label, out);
    }
    spx_matrix_destroy(A);
    return rc;
}
