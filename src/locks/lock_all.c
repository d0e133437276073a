/*
 * The two-level global word on the window's master (rank 0), as in foMPI: lock_all
 * holders count in the high half, processes holding at least one exclusive lock in
 * the low half.  lock_all costs O(1) atomics whatever the group size; an exclusive
 * locker pays one extra atomic, once, however many targets it locks.  Within a node
 * exclusive lockers only read the word and lock_all reads every target's (below).
 *
 * Both sides announce themselves with a fetch-add and undo it when the other side is
 * present, so neither waits while holding its share of the word.
 */
#include "rma/rma_impl.h"

static const size_t GLOBAL = RMAIB_CTRL_OFF(global_lock), LOCK = RMAIB_CTRL_OFF(lock);

static int global_acquire(rmaib_win_t *w, uint64_t mine, uint64_t theirs)
{
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t old;
        int rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD, mine, 0, &old);
        if (rc != RMAIB_OK || !(old & theirs))
            return rc;
        rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD, -mine, 0, NULL);
        if (rc != RMAIB_OK)
            return rc;
        do {
            rmaib_backoff(&bo);
            rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_READ, 0, 0, &old);
        } while (rc == RMAIB_OK && (old & theirs));
        if (rc != RMAIB_OK)
            return rc;
    }
}

int rmaib_global_excl_enter(rmaib_win_t *w)
{
    return global_acquire(w, RMAIB_GLOBAL_EXCL_ONE, RMAIB_GLOBAL_ALL_MASK);
}

void rmaib_global_excl_req(rmaib_ctrl_req_t *req, uint64_t *old)
{
    *req = (rmaib_ctrl_req_t) { RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD, RMAIB_GLOBAL_EXCL_ONE, 0, old };
}

int rmaib_global_excl_entered(uint64_t old)
{
    return !(old & RMAIB_GLOBAL_ALL_MASK);
}

int rmaib_global_excl_leave(rmaib_win_t *w)
{
    return rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD, -RMAIB_GLOBAL_EXCL_ONE, 0, NULL);
}

/* The contended steps of rmaib_global_excl_local (rma_impl.h).  old is what the CAS
 * on the target's word found; where that was 0 we hold the word and g is the
 * master's.  Within a node (w->excl_local) an exclusive locker announces nothing
 * here: it takes the target's word, then reads this word, and if a lock_all holder
 * is in it lets the target go and waits for the holders to leave.  lock_all adds
 * itself here first, then waits out the writer bit of every target.  Each side
 * writes before it reads (seq_cst atomics), so one of them sees the other, as in
 * Dekker's algorithm: exclusive lock+unlock is two atomics and a load, and lock_all
 * reads every target's word, which costs a load each within a node. */
int rmaib_global_excl_local_wait(rmaib_win_t *w, int target, uint64_t old, uint64_t g)
{
    RMAIB_BACKOFF(bo);
    for (;;) {
        int rc;
        if (old != 0) {
            rc = rmaib_tas_exclusive_finish(w, target, old);
        } else {                /* a lock_all holder is in: let the target go first */
            rc = rmaib_tas_release(w, target, RMAIB_LOCK_EXCLUSIVE);
            while (rc == RMAIB_OK && (g & RMAIB_GLOBAL_ALL_MASK)) {
                rmaib_backoff(&bo);
                rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_READ, 0, 0, &g);
            }
            if (rc == RMAIB_OK)
                rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_CAS, RMAIB_LOCK_WRITER, 0, &old);
            if (rc == RMAIB_OK && old != 0)
                continue;
        }
        if (rc == RMAIB_OK)
            rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_READ, 0, 0, &g);
        if (rc != RMAIB_OK || !(g & RMAIB_GLOBAL_ALL_MASK))
            return rc;
        old = 0;
    }
}

static int lock_all_local(rmaib_win_t *w)
{
    int rc = rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD, RMAIB_GLOBAL_ALL_ONE, 0, NULL);
    for (int r = 0; r < w->nranks && rc == RMAIB_OK; r++) {
        RMAIB_BACKOFF(bo);
        uint64_t v;
        while ((rc = rmaib_ctrl_op(w, r, LOCK, RMAIB_AOP_READ, 0, 0, &v)) == RMAIB_OK
               && (v & RMAIB_LOCK_WRITER))
            rmaib_backoff(&bo);
    }
    return rc;
}

int rmaib_lock_all(rmaib_win_t *w, int assert)
{
    if (assert & ~RMAIB_MODE_NOCHECK)
        return RMAIB_ERR_ASSERT;
    int access = rmaib_access(w);
    if (access != RMAIB_ACCESS_NONE && access != RMAIB_ACCESS_FENCE_ISSUED)
        return RMAIB_ERR_RMA_SYNC;
    if (!(assert & RMAIB_MODE_NOCHECK)) {
        int rc = w->excl_local ? lock_all_local(w)
            : global_acquire(w, RMAIB_GLOBAL_ALL_ONE, RMAIB_GLOBAL_EXCL_MASK);
        if (rc != RMAIB_OK)
            return rc;
    }
    w->lock_all_nocheck = (assert & RMAIB_MODE_NOCHECK) != 0;
    rmaib_set_access(w, RMAIB_ACCESS_LOCK_ALL);
    return RMAIB_OK;
}

int rmaib_unlock_all(rmaib_win_t *w)
{
    if (rmaib_access(w) != RMAIB_ACCESS_LOCK_ALL)
        return RMAIB_ERR_RMA_SYNC;
    int rc = rmaib_flush_issued(w);
    /* Leave even if the flush failed, as rmaib_unlock does. */
    if (!w->lock_all_nocheck) {
        rc = rmaib_first_error(rc, rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD,
                                                 -RMAIB_GLOBAL_ALL_ONE, 0, NULL));
    }
    rmaib_set_access(w, RMAIB_ACCESS_NONE);
    return rc;
}
