/*
 * MPI_Win_fence: complete what this process issued, then a barrier of epoch flags
 * written into the peers' control blocks, by recursive doubling: round k writes the
 * epoch number into partner rank ^ 2^k's flag k and waits for the partner's.  Each
 * process so talks to log2 P peers, both ways over one connection (a dissemination
 * barrier talks to 2 log2 P: rank + 2^k and rank - 2^k).  Where P is not a power of
 * two, each rank r from m on (m the largest power of two up to P) first tells r - m
 * (flag PRE), which waits for it before its rounds and tells it (flag POST) after.
 * The epoch only grows, so a flag never needs resetting and a peer already one fence
 * ahead does no harm (waiting is for flag >= epoch).  No MPI barrier and no target
 * CPU are involved.  A flag is a store nobody waits for (rmaib_ctrl_store): one
 * message per round.
 */
#include "rma_impl.h"

#define FENCE_ASSERTS (RMAIB_MODE_NOSTORE | RMAIB_MODE_NOPUT | RMAIB_MODE_NOPRECEDE \
                       | RMAIB_MODE_NOSUCCEED)

/* (Rounds 0 .. 29: m <= 2^30 for any int P.) */

static void flag_wait(rmaib_win_t *w, int k, uint64_t epoch)
{
    RMAIB_BACKOFF(bo);
    while (rmaib_load(&w->my_ctrl->fence_flag[k]) < epoch)
        rmaib_backoff(&bo);
}

static int flag_send(rmaib_win_t *w, int to, int k, uint64_t epoch)
{
    return rmaib_ctrl_store(w, to, RMAIB_CTRL_OFF(fence_flag[k]), epoch);
}

static int fence_barrier(rmaib_win_t *w)
{
    uint64_t epoch = ++w->fence_epoch;
    int p = w->nranks, r = w->rank, m = 1, rc = RMAIB_OK;
    while (m <= p / 2)
        m *= 2;
    if (r >= m) {
        rc = flag_send(w, r - m, RMAIB_FENCE_PRE, epoch);
        if (rc == RMAIB_OK)
            flag_wait(w, RMAIB_FENCE_POST, epoch);
        return rc;
    }
    if (r + m < p)
        flag_wait(w, RMAIB_FENCE_PRE, epoch);
    for (int k = 0; (1 << k) < m && rc == RMAIB_OK; k++) {
        rc = flag_send(w, r ^ (1 << k), k, epoch);
        if (rc == RMAIB_OK)
            flag_wait(w, k, epoch);
    }
    /* Our extra rank waits for this even if a round failed: it would wait for good. */
    if (r + m < p)
        rc = rmaib_first_error(rc, flag_send(w, r + m, RMAIB_FENCE_POST, epoch));
    return rc;
}

int rmaib_fence(rmaib_win_t *w, int assert)
{
    if (assert & ~FENCE_ASSERTS)
        return RMAIB_ERR_ASSERT;
    if ((w->access != RMAIB_ACCESS_NONE && w->access != RMAIB_ACCESS_FENCE_ISSUED
         && w->access != RMAIB_ACCESS_FENCE)
        || (w->exposure != RMAIB_EXPOSURE_NONE && w->exposure != RMAIB_EXPOSURE_FENCE))
        return RMAIB_ERR_RMA_SYNC;
    /* With NOPRECEDE nothing was issued; with NOSUCCEED too, no epoch follows that
     * could touch memory a peer is still using: the barrier can go. */
    int rc = RMAIB_OK;
    if (!(assert & RMAIB_MODE_NOPRECEDE))
        rc = rmaib_flush_issued(w);
    /* The barrier goes on even if the flush failed: the peers would wait in it for
     * good.  The flush's error is the one returned. */
    if ((assert & (RMAIB_MODE_NOPRECEDE | RMAIB_MODE_NOSUCCEED))
        != (RMAIB_MODE_NOPRECEDE | RMAIB_MODE_NOSUCCEED)) {
        rc = rmaib_first_error(rc, fence_barrier(w));
    }
    if (assert & RMAIB_MODE_NOSUCCEED) {
        w->access = RMAIB_ACCESS_NONE;
        w->exposure = RMAIB_EXPOSURE_NONE;
    } else {
        w->access = RMAIB_ACCESS_FENCE_ISSUED;
        w->exposure = RMAIB_EXPOSURE_FENCE;
    }
    return rc;
}
