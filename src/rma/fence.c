/*
 * MPI_Win_fence: complete what this process issued, then a dissemination barrier of
 * epoch flags written into the peers' control blocks: round k writes the epoch number
 * into rank + 2^k's flag k and waits for rank - 2^k's.  The epoch only grows, so a
 * flag never needs resetting and a peer already one fence ahead does no harm
 * (waiting is for flag >= epoch).  No MPI barrier and no target CPU are involved.
 * A flag is a store nobody waits for (rmaib_ctrl_store): one message per round.
 */
#include "rma_impl.h"

#define FENCE_ASSERTS (RMAIB_MODE_NOSTORE | RMAIB_MODE_NOPUT | RMAIB_MODE_NOPRECEDE \
                       | RMAIB_MODE_NOSUCCEED)

static int fence_barrier(rmaib_win_t *w)
{
    uint64_t epoch = ++w->fence_epoch;
    for (int k = 0; (1 << k) < w->nranks; k++) {
        int to = (w->rank + (1 << k)) % w->nranks;
        int rc = rmaib_ctrl_store(w, to, RMAIB_CTRL_OFF(fence_flag[k]), epoch);
        if (rc != RMAIB_OK)
            return rc;
        RMAIB_BACKOFF(bo);
        while (rmaib_load(&w->my_ctrl->fence_flag[k]) < epoch)
            rmaib_backoff(&bo);
    }
    return RMAIB_OK;
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
