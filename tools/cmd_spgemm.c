/* spx spgemm A [B] --out C: C = A*B with spx_spgemm (B defaults to A), the
 * format and device asked of the registry. --stats [--json]: the facts of
 * A*B that tSparse's Table 1 lists (spx_spgemm_stats), without the product. */
#include "bench.h"
#include "cli.h"

/* The help, with the formats and devices the registry has for SpGEMM. */
static const char *usage(void)
{
    static char text[2048];
    char formats[512], devices[64];
    cli_format_names(SPX_OP_SPGEMM, formats, sizeof formats);
    cli_device_names(SPX_OP_SPGEMM, devices, sizeof devices);
    snprintf(text, sizeof text,
             "Usage: spx spgemm A [B] --out C|- [--format F] [--device %s]\n"
             "       spx spgemm A [B] --stats [--json]\n\n"
             "C = A*B (B defaults to A), written to C by its extension (.mtx, .mtx.gz,\n"
             ".spx), or to standard output as Matrix Market text for -. Prints the\n"
             "nonzero count of C as \"nnz(C) = N\" (on stderr when C goes to standard\n"
             "output). A and B are files or gen:SPEC.\n\n"
             "  --format F   %s (default auto; spx formats)\n"
             "  --device D   %s (default cpu)\n"
             "  --stats      instead of C: tSparse's Table 1 of A*B on 8x8 tiles, from A\n"
             "               and B on the CPU: nnz(C), intermediate products, tiles of\n"
             "               C, tile products before and after culling, entries per\n"
             "               tile of A (median, mean, std); --json: one JSON object\n",
             devices, formats, devices);
    return text;
}

static spx_status timed_spgemm(const spx_matrix *A, const spx_matrix *B, const spx_plan_opts *o,
                               spx_matrix **C)
{
    cli_progress pr;
    cli_progress_begin(&pr, "computing C = A*B");
    spx_status st = spx_spgemm(A, B, o, C);
    cli_progress_end(&pr);
    return st;
}

/* --stats: the keys of the JSON object, in order, and their values. */
static void print_stats(const spx_matrix *A, const spx_spgemm_info *s, int json)
{
    int64_t rows, nnz;
    spx_matrix_dims(A, &rows, NULL, &nnz);
    const double rave = rows ? (double)nnz / (double)rows : 0.0;
    const int64_t counts[] = {rows,          nnz,           s->nnz_c,     s->products,
                              s->tiles_c,    s->tile_pairs, s->tile_products, s->tiles_a,
                              s->tiles_b};
    static const char *const count_keys[] = {"rows_a",  "nnz_a",      "nnz_c",
                                             "products", "tiles_c",    "tile_pairs",
                                             "tile_products", "tiles_a", "tiles_b"};
    const double reals[] = {rave, s->density_median, s->density_mean, s->density_std};
    static const char *const real_keys[] = {"rave_a", "density_median", "density_mean",
                                            "density_std"};
    /* the paper's criteria for tSparse: nnz(A) > 300000 and mean row of A > 42 */
    const int criteria = nnz > 300000 && rave > 42.0;
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        if (json) printf("%s\"%s\": %lld", k ? ", " : "{", count_keys[k], (long long)counts[k]);
        else printf("%-15s %lld\n", count_keys[k], (long long)counts[k]);
    }
    for (size_t k = 0; k < sizeof reals / sizeof *reals; k++) {
        if (json) {
            printf(", \"%s\": ", real_keys[k]);
            spx_bench_json_number(stdout, reals[k]);
        } else {
            printf("%-15s %.6g\n", real_keys[k], reals[k]);
        }
    }
    if (json) printf(", \"paper_criteria\": %s}\n", criteria ? "true" : "false");
    else printf("%-15s %s (nnz(A) > 300000 and rave_a > 42)\n", "paper_criteria",
                criteria ? "yes" : "no");
}

static int stats(const char *const pos[2], int json)
{
    spx_matrix *A = NULL, *B = NULL;
    spx_spgemm_info s;
    cli_load_info info;
    int rc = CLI_OK;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK)
        rc = cli_library_error("spgemm", pos[0], st);
    else if (pos[1] && (st = cli_load_matrix(pos[1], &B, &info)) != SPX_OK)
        rc = cli_library_error("spgemm", pos[1], st);
    else if ((st = spx_spgemm_stats(A, B ? B : A, &s)) != SPX_OK)
        rc = cli_library_error("spgemm", "statistics of A*B", st);
    else
        print_stats(A, &s, json);
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    return rc;
}

static int multiply(const char *const pos[2], const char *out, const spx_plan_opts *o)
{
    spx_matrix *A = NULL, *B = NULL, *C = NULL;
    cli_load_info info;
    int64_t nnz;
    int rc = CLI_OK;
    spx_status st = cli_load_matrix(pos[0], &A, &info);
    if (st != SPX_OK) {
        rc = cli_library_error("spgemm", pos[0], st);
    } else if (pos[1] && (st = cli_load_matrix(pos[1], &B, &info)) != SPX_OK) {
        rc = cli_library_error("spgemm", pos[1], st);
    } else if ((st = timed_spgemm(A, B ? B : A, o, &C)) != SPX_OK) {
        rc = cli_library_error("spgemm", "C = A*B", st);
    } else if ((rc = cli_write_matrix("spgemm", C, out)) == CLI_OK) {
        spx_matrix_dims(C, NULL, NULL, &nnz);
        fprintf(cli_is_stdout(out) ? stderr : stdout, "nnz(C) = %lld\n", (long long)nnz);
    }
    spx_matrix_destroy(A);
    spx_matrix_destroy(B);
    spx_matrix_destroy(C);
    return rc;
}

int spx_cmd_spgemm(int argc, char **argv)
{
    const char *out = NULL, *device = "cpu", *format = "auto";
    int want_stats = 0, json = 0;
    const cli_opt opts[] = {{"--out", &out, NULL},
                            {"--stats", NULL, &want_stats},
                            {"--json", NULL, &json},
                            {"--format", &format, NULL},
                            {"--device", &device, NULL},
                            {NULL, NULL, NULL}};
    const cli_command cmd = {"spgemm", usage(), opts, 1, 2};
    const char *pos[2];
    spx_plan_opts o = spx_plan_opts_default();
    int rc = cli_parse(&cmd, argc, argv, pos);
    if (rc != CLI_PARSED) return rc;
    if (json && !want_stats) return cli_usage_error("spgemm", "--json goes with --stats");
    if (want_stats) return stats(pos, json);
    if (!out) return cli_usage_error("spgemm", "--out C (or - for standard output) is required");
    o.format = format;
    if ((rc = cli_parse_device("spgemm", device, &o.device)) != CLI_PARSED) return rc;
    if ((rc = cli_check_format("spgemm", SPX_OP_SPGEMM, format)) != CLI_PARSED) return rc;
    if ((rc = cli_check_plan("spgemm", SPX_OP_SPGEMM, &o)) != CLI_PARSED) return rc;
    return multiply(pos, out, &o);
}
