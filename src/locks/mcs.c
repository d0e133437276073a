/*
 * The MCS queue lock for exclusive access (seed 002 §4.3.2), selected per window with
 * info rmaib_lock=mcs.  Writers queue in FIFO order on the target's tail word and a
 * releasing holder hands over with one remote write into its successor's node.
 *
 * Shared locks stay on the reader-writer word: the queue head takes the word's writer
 * bit, and the bit passes down the queue with the handover, so readers see one long
 * writer until the queue empties and the last holder clears it.
 *
 * Each process has one queue node per target (struct rmaib_ctrl), so it may hold or
 * wait for exclusive locks on several targets at once.
 */
#include "rma/rma_impl.h"

static size_t node_off(rmaib_win_t *w, int target, int field)
{
    return rmaib_ctrl_mcs_off(w->ctrl_ranks, target) + (size_t) field * sizeof(uint64_t);
}

enum { NEXT = 0, LOCKED = 1 };

int rmaib_mcs_acquire(rmaib_win_t *w, int target)
{
    uint64_t me = (uint64_t) w->rank + 1, pred;
    int rc = rmaib_ctrl_op(w, w->rank, node_off(w, target, NEXT), RMAIB_AOP_WRITE, 0, 0, NULL);
    if (rc == RMAIB_OK)
        rc = rmaib_ctrl_op(w, w->rank, node_off(w, target, LOCKED), RMAIB_AOP_WRITE, 1, 0, NULL);
    if (rc == RMAIB_OK)
        rc = rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(mcs_tail), RMAIB_AOP_SWAP, me, 0, &pred);
    if (rc != RMAIB_OK)
        return rc;
    if (pred == 0) {
        /* Head of an empty queue: take the writer bit from the readers, with one CAS
         * when there are none.  No other writer can hold it: writers come through the
         * queue, and a releasing head that just left it drops the bit soon after. */
        return rmaib_tas_acquire_exclusive(w, target);
    }
    rc = rmaib_ctrl_op(w, (int) pred - 1, node_off(w, target, NEXT), RMAIB_AOP_WRITE, me, 0, NULL);
    if (rc != RMAIB_OK)
        return rc;
    const uint64_t *locked = (const uint64_t *) ((char *) w->my_ctrl + node_off(w, target, LOCKED));
    RMAIB_BACKOFF(bo);
    while (rmaib_load(locked))
        rmaib_backoff(&bo);
    return RMAIB_OK;
}

int rmaib_mcs_release(rmaib_win_t *w, int target)
{
    uint64_t me = (uint64_t) w->rank + 1, old;
    const uint64_t *next = (const uint64_t *) ((char *) w->my_ctrl + node_off(w, target, NEXT));
    uint64_t succ = rmaib_load(next);
    int rc;
    if (succ == 0) {
        rc = rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(mcs_tail), RMAIB_AOP_CAS, 0, me, &old);
        if (rc != RMAIB_OK)
            return rc;
        if (old == me)          /* no one queued: the word goes back to the readers */
            return rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(lock), RMAIB_AOP_FADD,
                                 -RMAIB_LOCK_WRITER, 0, NULL);
        /* A successor swapped itself into the tail but has not linked its node to
         * ours yet; it will, since it knows us as its predecessor. */
        RMAIB_BACKOFF(bo);
        while ((succ = rmaib_load(next)) == 0)
            rmaib_backoff(&bo);
    }
    /* Handover: the writer bit stays set and now belongs to the successor. */
    return rmaib_ctrl_op(w, (int) succ - 1, node_off(w, target, LOCKED), RMAIB_AOP_WRITE, 0, 0,
                         NULL);
}
