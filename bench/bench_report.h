/* Pieces of output shared by the SpMV and SpGEMM reports (bench_report_common.c). */
#ifndef SPX_BENCH_REPORT_H
#define SPX_BENCH_REPORT_H

#include <stdio.h>

#include "bench.h"

/* Slowest batch over fastest above which a warning line is printed. */
#define BENCH_SPREAD_WARN 1.5

/* What the warnings of one table say: the rows whose slowest batch took over
 * BENCH_SPREAD_WARN x their fastest, and the highest load average seen. */
typedef struct bench_spread_note {
    int rows, spread;
    double load;
    char text[2048]; /* "csr cpu f64 2.31x, ..." */
} bench_spread_note;

void bench_spread_begin(bench_spread_note *w);
/* One record that ran: its name, device, precision, batches and load average. */
void bench_spread_add(bench_spread_note *w, const char *format, const char *params,
                      const char *chosen, spx_type t, spx_device d, const spx_bench_spread *s,
                      double load1);
/* A warning line when some row spread, one when the load average exceeded the
 * threads used; how many lines were printed. */
int bench_spread_print(FILE *f, const bench_spread_note *w, int threads);

/* JSON members after the first: , "key": number */
void bench_json_field(FILE *f, const char *key, double v);
/* , "format": .., ["chosen": ..,] ["params": ..,] "device": .., "precision": .. */
void bench_json_names(FILE *f, const char *format, const char *params, const char *chosen,
                      spx_device d, spx_type t);
/* , "<prefix>min_ms" .. "<prefix>q3_ms", "<prefix>batches", "<prefix>calls" */
void bench_json_spread(FILE *f, const char *prefix, const spx_bench_spread *s);
/* , "status": .., "error": .. for a failure; nothing for SPX_OK */
void bench_json_status(FILE *f, spx_status st, const char *error);

#endif
