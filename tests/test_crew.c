/* The multi solvers' crew (src/multi/crew.h) on its own: each worker runs
 * the operations posted to it in order, more of them than its ring holds;
 * wait returns once all have run; a worker's failure comes back from the
 * next wait with its message, the operations after it on that worker are
 * skipped, and the crew works again after that wait. */
#include <string.h>

#include "common.h"
#include "core/error.h"
#include "multi/crew.h"

#define WORKERS 3
#define OPS 1000 /* more than a ring holds */

typedef struct op {
    int seq;  /* 0, 1, ... per worker */
    int fail; /* this one fails */
} op;

typedef struct tally {
    int ran[WORKERS];      /* how many ran, per worker */
    int in_order[WORKERS]; /* every one came in sequence */
} tally;

static spx_status step(void *ctx, int w, const void *o)
{
    tally *l = ctx;
    const op *p = o;
    if (p->seq != l->ran[w]) l->in_order[w] = 0;
    l->ran[w]++;
    if (p->fail) return spx__error(SPX_ERR_DEVICE, "worker %d failed at %d", w, p->seq);
    return SPX_OK;
}

static void post_all(spx__crew *c, int from, int count, int fail_worker, int fail_at)
{
    for (int k = from; k < from + count; k++)
        for (int w = 0; w < WORKERS; w++) {
            op o = {k, w == fail_worker && k == fail_at};
            spx__crew_post(c, w, &o);
        }
}

int main(void)
{
    tally l;
    memset(&l, 0, sizeof l);
    for (int w = 0; w < WORKERS; w++)
        l.in_order[w] = 1;
    spx__crew *c = NULL;
    CHECK_STATUS(spx__crew_start(WORKERS, sizeof(op), step, &l, &c), SPX_OK);

    post_all(c, 0, OPS, -1, -1);
    CHECK_STATUS(spx__crew_wait(c), SPX_OK);
    for (int w = 0; w < WORKERS; w++)
        CHECK(l.ran[w] == OPS && l.in_order[w]);

    /* worker 1 fails at its op OPS + 10: the rest of its ops are skipped, the others run all */
    post_all(c, OPS, 100, 1, OPS + 10);
    CHECK_STATUS(spx__crew_wait(c), SPX_ERR_DEVICE);
    CHECK(strstr(spx_last_error(), "worker 1 failed at 1010") != NULL);
    CHECK(l.ran[0] == OPS + 100 && l.ran[2] == OPS + 100 && l.ran[1] == OPS + 11);

    /* after that wait the crew runs again, worker 1 from where it is */
    int base = l.ran[1]; /* the workers are idle after a wait */
    for (int k = 0; k < 50; k++) {
        op o = {base + k, 0};
        spx__crew_post(c, 1, &o);
        o.seq = OPS + 100 + k;
        spx__crew_post(c, 0, &o);
        spx__crew_post(c, 2, &o);
    }
    CHECK_STATUS(spx__crew_wait(c), SPX_OK);
    CHECK(l.ran[1] == OPS + 61 && l.ran[0] == OPS + 150);
    CHECK(l.in_order[0] && l.in_order[1] && l.in_order[2]);

    /* stop waits for what was posted */
    post_all(c, OPS + 150, 5, -1, -1);
    spx__crew_stop(c);
    CHECK(l.ran[0] == OPS + 155 && l.ran[2] == OPS + 155 && l.in_order[0]);
    spx__crew_stop(NULL);
    return spx_test_finish();
}
