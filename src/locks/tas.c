/*
 * The test-and-set reader-writer lock word of a target (seed 002 §4.3.1, with the
 * shared-acquire fixed and a writer-waiting count against reader streams).
 *
 * shared:    fetch-add +1; if a writer holds or waits, undo and back off.
 * exclusive: CAS 0 -> WRITER; if that fails, announce a waiting writer (new readers
 *            now back off), wait for the holders to drain, then CAS the waiting
 *            count into the writer bit.
 * release:   fetch-add of the negated share.
 * The shared first try and the release are inline, in rma_impl.h.
 */
#include "rma/rma_impl.h"

static const size_t LOCK = RMAIB_CTRL_OFF(lock);

/* After a first try found one of blockers in the word: back off and try again. */
int rmaib_tas_acquire_shared_wait(rmaib_win_t *w, int target, uint64_t blockers)
{
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t old;
        int rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_FADD, -RMAIB_LOCK_SHARED_ONE, 0, NULL);
        if (rc != RMAIB_OK)
            return rc;
        do {                    /* wait for the writers with reads, not with increments */
            rmaib_backoff(&bo);
            rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_READ, 0, 0, &old);
        } while (rc == RMAIB_OK && (old & blockers));
        if (rc != RMAIB_OK)
            return rc;
        rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_FADD, RMAIB_LOCK_SHARED_ONE, 0, &old);
        if (rc != RMAIB_OK || !(old & blockers))
            return rc;
    }
}

/* Take the writer bit once no one holds the word; the caller already counts as a
 * waiting writer.  The MCS lock's queue head uses this too. */
int rmaib_tas_drain_to_writer(rmaib_win_t *w, int target)
{
    RMAIB_BACKOFF(bo);
    uint64_t v;
    int rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_READ, 0, 0, &v);
    while (rc == RMAIB_OK) {
        if (!(v & (RMAIB_LOCK_WRITER | RMAIB_LOCK_SHARED_MASK))) {
            uint64_t want = v - RMAIB_LOCK_WAIT_ONE + RMAIB_LOCK_WRITER, old;
            rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_CAS, want, v, &old);
            if (rc != RMAIB_OK || old == v)
                return rc;
            v = old;
            continue;
        }
        rmaib_backoff(&bo);
        rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_READ, 0, 0, &v);
    }
    return rc;
}

int rmaib_tas_exclusive_finish(rmaib_win_t *w, int target, uint64_t old)
{
    if (old == 0)
        return RMAIB_OK;
    int rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_FADD, RMAIB_LOCK_WAIT_ONE, 0, NULL);
    return rc != RMAIB_OK ? rc : rmaib_tas_drain_to_writer(w, target);
}

int rmaib_tas_acquire_exclusive(rmaib_win_t *w, int target)
{
    uint64_t old;
    int rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_CAS, RMAIB_LOCK_WRITER, 0, &old);
    return rc != RMAIB_OK ? rc : rmaib_tas_exclusive_finish(w, target, old);
}
