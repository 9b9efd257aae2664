/* spx bench M: load (or generate) M, optionally measure STREAM, run the bench
 * driver (bench/bench.h) and print its table and JSON. */
#define _POSIX_C_SOURCE 200809L
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "core/alloc.h"
#include "cuda/gateway.h"
#include "peers.h"

static const char usage[] =
    "Usage: spx bench M [--format F[,F...]] [--device cpu|cuda|all]\n"
    "                 [--precision f64|f32|f16|all[,...]] [--json FILE|-] [--calls N]\n"
    "                 [--peers] [--threads T] [--param k=v,...[;k=v,...]] [--tune]\n"
    "                 [--stream] [--gather]\n\n"
    "Time SpMV y = A*x of the matrix M (a .mtx, .mtx.gz or .spx file, or gen:SPEC,\n"
    "e.g. gen:lap3d27:64) with every registered format on every available device\n"
    "and precision asked. For each: prepare a plan (prep_ms), multiply once with x\n"
    "uniform in [-1, 1] (fixed seed) and compare with the `ref` format in fp64:\n"
    "max_rel_err = |y - y_ref|_inf / (|A| |x|)_inf, ok when at most 1e-12 (f64),\n"
    "1e-5 (f32) or 1e-2 (f16); then time batches of calls (>= 50 ms each, 10 of\n"
    "them; CUDA batches end with a device sync) and report the median per call:\n"
    "median_ms, gflops (2*nnz/t), gbs (bytes model of DESIGN.md: 12*nnz + 4*(m+1)\n"
    "+ 8*n + 8*m for f64, 4-byte values and vectors for f32, 2-byte values for\n"
    "f16), bytes held, and breakeven: calls after which the extra preparation is\n"
    "paid against csr on the same device and precision ((prep - prep_csr) /\n"
    "(t_csr - t)), or never. csr always runs as that baseline. be_peer: the same\n"
    "against the fastest peer of the run (JSON: breakeven_peer_calls, fastest_peer).\n\n"
    "  --format F,...    formats (and peers) to run; default all (spx formats)\n"
    "  --device D        cpu, cuda or all available (default all)\n"
    "  --precision P,... f64 (default), f32, f16, or all\n"
    "  --json FILE|-     also write the records as a JSON array (- : stdout; the\n"
    "                    table then goes to stderr)\n"
    "  --calls N         calls per timed batch instead of enough for 50 ms\n"
    "  --peers           also run the peers compiled in (bench/peers.h)\n"
    "  --threads T       OpenMP threads (default: OpenMP's)\n"
    "  --param k=v,...   format parameters given to every SpX format run; sets\n"
    "                    separated by ';' run one after the other in this process,\n"
    "                    rows labelled format[set] (reorder=rcm|degree|none: every\n"
    "                    CPU format on P A P^T, gather and scatter in the timing)\n"
    "  --tune            let formats tune their parameters (counted in prep_ms)\n"
    "  --stream          measure STREAM triad bandwidth first (arrays of max(3 x\n"
    "                    LLC, 64M) doubles, best of 10, 3 arrays of traffic\n"
    "                    counted, not write-allocate) and show gbs as % of it\n"
    "  --gather          add rows `gather`: s += x[col[k]] over the nonzeros with\n"
    "                    the same threads (col streamed, no values, no y), for A\n"
    "                    and for each reorder= of --param; its gbs is the bytes\n"
    "                    model over that time, the SpMV's rate if only the\n"
    "                    gather cost anything\n\n"
    "Exit: 0 all ok, 3 a result failed its check, 1 a format failed to run\n"
    "(its row says why; a format declining the matrix or precision with\n"
    "SPX_ERR_UNSUPPORTED is not a failure), 2 usage error.\n";

enum { MAX_PARAM_SETS = 8 };

typedef struct bench_args {
    const char *matrix, *formats, *device, *precision, *json, *calls, *threads;
    int peers, tune, stream, gather;
    spx_bench_opts o;
    char pbuf[1024];                  /* --param, split at ';' into sets */
    const char *sets[MAX_PARAM_SETS]; /* NULL: the formats' defaults */
    int nsets;
} bench_args;

/* Is name a registered format, `auto` (or, with --peers, a peer)? */
static int known_format(const char *name, int peers)
{
    if (strcmp(name, "auto") == 0) return 1;
    for (int i = 0; i < spx_format_count(); i++) {
        spx_format_info f;
        if (spx_format_get(i, &f) == SPX_OK && (f.operations & (1u << SPX_OP_SPMV)) &&
            strcmp(f.name, name) == 0)
            return 1;
    }
    for (int i = 0; peers && spx_bench_peers[i]; i++)
        if (strcmp(spx_bench_peers[i]->name, name) == 0) return 1;
    return 0;
}

/* Split list (modified in place) at commas into names[] (NULL-terminated, at
 * most max-1 names), checking each. */
static int split_formats(char *list, const char **names, int max, int peers)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        if (!known_format(tok, peers))
            return cli_usage_error("bench", "unknown format '%s'%s", tok,
                                   peers ? "" : " (peers need --peers)");
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

static int parse_devices(const char *s, unsigned *bits)
{
    spx_device d;
    if (strcmp(s, "all") == 0) {
        *bits = SPX_DEV_CPU | (spx_device_available(SPX_DEV_CUDA) ? SPX_DEV_CUDA : 0u);
        return CLI_PARSED;
    }
    int rc = cli_parse_device("bench", s, &d);
    if (rc != CLI_PARSED) return rc;
    if (!spx_device_available(d)) {
        fprintf(stderr, "spx bench: device %s is not available (see spx formats)\n", s);
        return CLI_RUNTIME;
    }
    *bits = (unsigned)d;
    return CLI_PARSED;
}

static int parse_numbers(bench_args *a)
{
    long v = 0;
    int rc = CLI_PARSED;
    if (a->calls &&
        (rc = cli_parse_int("bench", "--calls", a->calls, 1, 1000000000L, &v)) == CLI_PARSED)
        a->o.calls = v;
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
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"bench", usage, opts, 1, 1};
    int rc = cli_parse(&cmd, argc, argv, &a->matrix);
    if (rc != CLI_PARSED) return rc;
    if ((rc = parse_devices(a->device, &a->o.devices)) != CLI_PARSED) return rc;
    if ((rc = parse_precisions(a->precision, &a->o.precisions)) != CLI_PARSED) return rc;
    if ((rc = parse_numbers(a)) != CLI_PARSED) return rc;
    if ((rc = split_param_sets(a)) != CLI_PARSED) return rc;
    a->o.peers = a->peers;
    a->o.tune = a->tune;
    if (!a->formats) return CLI_PARSED;
    if (strlen(a->formats) >= fbuf_len) return cli_usage_error("bench", "--format is too long");
    memcpy(fbuf, a->formats, strlen(a->formats) + 1);
    a->o.formats = names;
    return split_formats(fbuf, names, max_names, a->peers);
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
static void print_caches(FILE *out, const spx_matrix *A, unsigned devices)
{
    int64_t rows, cols, nnz;
    char name[128];
    size_t l2 = 0, llc = spx_bench_llc_bytes();
    spx_matrix_dims(A, &rows, &cols, &nnz);
    double model = spx_bench_model_bytes(rows, cols, nnz, SPX_F64);
    fprintf(out, "bytes model (f64): %.3g MB", model * 1e-6);
    if (llc)
        fprintf(out, "; CPU LLC as reported %.0f MB", (double)llc * 1e-6);
    if ((devices & SPX_DEV_CUDA) && spx__cuda_device_info(name, sizeof name, NULL, &l2) == SPX_OK)
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

static int write_json(const char *path, const char *label, const spx_bench_record *r, int n)
{
    int to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "spx bench: cannot create %s\n", path);
        return CLI_RUNTIME;
    }
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
 * not a failure: its row says so. */
static int exit_code(const spx_bench_record *r, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        if (r[i].status == SPX_OK && !r[i].ok) return CLI_CHECK;
        failed |= r[i].status != SPX_OK && r[i].status != SPX_ERR_UNSUPPORTED;
    }
    return failed ? CLI_RUNTIME : CLI_OK;
}

/* *r (*n records) followed by more (m): a new array, the old one freed. */
static spx_status append_records(spx_bench_record **r, int *n, const spx_bench_record *more, int m)
{
    spx_bench_record *all = NULL;
    spx_status st = spx__calloc((void **)&all, (size_t)(*n + m), sizeof *all, "bench records");
    if (st != SPX_OK) return st;
    if (*n) memcpy(all, *r, (size_t)*n * sizeof *all);
    if (m) memcpy(all + *n, more, (size_t)m * sizeof *all);
    spx__free(*r);
    *r = all;
    *n += m;
    return SPX_OK;
}

/* One pass of the driver per --param set, rows labelled by their set when
 * there are several. */
static spx_status run_sets(bench_args *a, const spx_matrix *A, spx_bench_record **r, int *n)
{
    spx_status st = SPX_OK;
    for (int s = 0; s < a->nsets && st == SPX_OK; s++) {
        spx_bench_opts o = a->o;
        spx_bench_record *part = NULL;
        int m = 0;
        o.params = a->sets[s];
        st = spx_bench_run(A, &o, &part, &m);
        for (int i = 0; i < m && a->nsets > 1; i++)
            if (!part[i].params) part[i].params = a->sets[s];
        if (st == SPX_OK) st = append_records(r, n, part, m);
        spx__free(part);
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
        rc = cli_library_error("bench", label, st);
    } else {
        spx_bench_print_table(out, label, r, n, stream_gbs);
        rc = a->json ? write_json(a->json, label, r, n) : CLI_OK;
        if (rc == CLI_OK) rc = exit_code(r, n);
    }
    spx__free(r);
    return rc;
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
    int rc = parse_args(argc, argv, &a, fbuf, sizeof fbuf, names, MAX_NAMES);
    if (rc != CLI_PARSED) return rc;

    FILE *out = a.json && strcmp(a.json, "-") == 0 ? stderr : stdout;
    spx_matrix *A = NULL;
    cli_load_info li;
    cli_matrix_label(a.matrix, label, sizeof label);
    fprintf(stderr, "bench: loading %s ...\n", a.matrix);
    spx_status st = cli_load_matrix(a.matrix, &A, &li);
    if (st != SPX_OK) return cli_library_error("bench", a.matrix, st);
    print_load(out, label, A, &li);
    print_caches(out, A, a.o.devices);
    rc = run_bench(&a, A, label, out);
    spx_matrix_destroy(A);
    return rc;
}
