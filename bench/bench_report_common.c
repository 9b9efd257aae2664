/* Output shared by the SpMV and SpGEMM reports: the warnings that tell a
 * reader not to trust a table (batches spread over 1.5x, more runnable
 * processes than threads: on a shared 2-core machine one table once showed
 * `ref` 3.5x faster than `csr`), and JSON members. */
#include <math.h>
#include <string.h>

#include "bench_report.h"

void bench_spread_begin(bench_spread_note *w)
{
    w->rows = w->spread = 0;
    w->load = -1.0;
    w->text[0] = '\0';
}

void bench_spread_add(bench_spread_note *w, const char *format, const char *params,
                      const char *chosen, spx_type t, spx_device d, const spx_bench_spread *s,
                      double load1)
{
    char label[96];
    size_t used = strlen(w->text);
    w->rows++;
    if (load1 > w->load) w->load = load1;
    if (!(s->min_ms > 0.0) || !(s->max_ms > BENCH_SPREAD_WARN * s->min_ms)) return;
    w->spread++;
    spx_bench_label(format, params, chosen, label, sizeof label);
    snprintf(w->text + used, sizeof w->text - used, "%s%s %s %s %.2fx", used ? ", " : "", label,
             spx_bench_device_name(d), spx_bench_precision_name(t), s->max_ms / s->min_ms);
}

int bench_spread_print(FILE *f, const bench_spread_note *w, int threads)
{
    int lines = 0;
    if (w->spread) {
        fprintf(f,
                "warning: in %d of %d rows the slowest batch took over %.1fx the fastest (%s): "
                "the machine was not quiet, their ratios are unreliable\n",
                w->spread, w->rows, BENCH_SPREAD_WARN, w->text);
        lines++;
    }
    if (w->load > (double)threads) {
        fprintf(f,
                "warning: load average %.2f exceeds the %d threads used: other processes "
                "shared the cores, the times are theirs too\n",
                w->load, threads);
        lines++;
    }
    return lines;
}

void bench_json_field(FILE *f, const char *key, double v)
{
    fprintf(f, ", \"%s\": ", key);
    spx_bench_json_number(f, v);
}

void bench_json_names(FILE *f, const char *format, const char *params, const char *chosen,
                      spx_device d, spx_type t)
{
    fputs(", \"format\": ", f);
    spx_bench_json_string(f, format);
    if (chosen) {
        fputs(", \"chosen\": ", f);
        spx_bench_json_string(f, chosen);
    }
    if (params) {
        fputs(", \"params\": ", f);
        spx_bench_json_string(f, params);
    }
    fprintf(f, ", \"device\": \"%s\", \"precision\": \"%s\"", spx_bench_device_name(d),
            spx_bench_precision_name(t));
}

void bench_json_spread(FILE *f, const char *prefix, const spx_bench_spread *s)
{
    char key[64];
    const char *names[] = {"min_ms", "max_ms", "q1_ms", "q3_ms"};
    const double values[] = {s->min_ms, s->max_ms, s->q1_ms, s->q3_ms};
    for (int i = 0; i < 4; i++) {
        snprintf(key, sizeof key, "%s%s", prefix, names[i]);
        bench_json_field(f, key, values[i]);
    }
    fprintf(f, ", \"%sbatches\": %d, \"%scalls\": %lld", prefix, s->batches, prefix,
            (long long)s->calls);
}

void bench_json_status(FILE *f, spx_status st, const char *error)
{
    if (st == SPX_OK) return;
    fprintf(f, ", \"status\": \"%s\", \"error\": ", spx_status_name(st));
    spx_bench_json_string(f, error);
}
