/* Progress lines for work that may take a while: once a step has run for a
 * second, "spx: STEP ..." appears on stderr, and "spx: STEP: done in T s" when
 * it ends. Quick steps print nothing. A watcher thread waits on a condition
 * variable with a one-second timeout. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdarg.h>
#include <time.h>

#include "cli.h"

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *watch(void *arg)
{
    cli_progress *p = arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 1;
    pthread_mutex_lock(&p->mu);
    while (!p->done)
        if (pthread_cond_timedwait(&p->cv, &p->mu, &deadline) != 0) break;
    if (!p->done) {
        fprintf(stderr, "spx: %s ...\n", p->what);
        p->shown = 1;
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

void cli_progress_begin(cli_progress *p, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->what, sizeof p->what, fmt, ap);
    va_end(ap);
    p->done = p->shown = 0;
    p->t0 = now_seconds();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->watching = pthread_create(&p->thread, NULL, watch, p) == 0;
}

void cli_progress_end(cli_progress *p)
{
    pthread_mutex_lock(&p->mu);
    p->done = 1;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->watching) pthread_join(p->thread, NULL);
    if (p->shown) fprintf(stderr, "spx: %s: done in %.1f s\n", p->what, now_seconds() - p->t0);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}
