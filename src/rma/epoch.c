/*
 * Which operations the current epochs allow, and the flush family of calls.
 */
#include "rma_fast.h"

/* Slow half of the epoch check: everything but a held lock or lock_all. */
int rmaib_epoch_check_target(rmaib_win_t *w, int target, int flags)
{
    switch (rmaib_access(w)) {
    case RMAIB_ACCESS_LOCK_ALL:
        return RMAIB_OK;
    case RMAIB_ACCESS_LOCK:
        if (rmaib_peer(w, target)->lock_type)
            return RMAIB_OK;
        return w->lock_all_lazy ? rmaib_lock_all_take(w, target) : RMAIB_ERR_RMA_SYNC;
    case RMAIB_ACCESS_FENCE_ISSUED:
    case RMAIB_ACCESS_FENCE:
        if (flags & RMAIB_OP_REQUEST)
            return RMAIB_ERR_RMA_SYNC;
        rmaib_set_access(w, RMAIB_ACCESS_FENCE);   /* perhaps by several threads at once */
        return RMAIB_OK;
    case RMAIB_ACCESS_START:
        if (flags & RMAIB_OP_REQUEST)
            return RMAIB_ERR_RMA_SYNC;
        if (__atomic_load_n(&rmaib_peer_ent(w, target)->start_state, __ATOMIC_RELAXED)
            == RMAIB_START_OUT)
            return RMAIB_ERR_RMA_SYNC;
        return rmaib_pscw_wait_post(w, target);
    default:
        return RMAIB_ERR_RMA_SYNC;
    }
}

static int passive_target_ok(rmaib_win_t *w, int target)
{
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    /* (a lazy lock_all covers a target it has not locked: nothing went to it) */
    return rmaib_passive_covers(w, target)
        || (rmaib_access(w) == RMAIB_ACCESS_LOCK && w->lock_all_lazy)
        ? RMAIB_OK : RMAIB_ERR_RMA_SYNC;
}

static int passive_any_ok(rmaib_win_t *w)
{
    int access = rmaib_access(w);
    return access == RMAIB_ACCESS_LOCK_ALL || access == RMAIB_ACCESS_LOCK
        ? RMAIB_OK : RMAIB_ERR_RMA_SYNC;
}

int rmaib_flush_general(rmaib_win_t *w, int target)
{
    int rc = passive_target_ok(w, target);
    return rc != RMAIB_OK ? rc : rmaib_flush_target(w, target);
}

int rmaib_flush(rmaib_win_t *w, int target)
{
    return rmaib_flush_inline(w, target);
}

int rmaib_flush_local(rmaib_win_t *w, int target)
{
    int rc = passive_target_ok(w, target);
    return rc != RMAIB_OK ? rc : rmaib_peer(w, target)->tp->flush_local(w, target);
}

/* Remote completion of everything this process issued on the window, whatever the
 * epoch; fence, complete and unlock_all use it too.  It and rmaib_quiesce go through
 * every transport whatever one of them reports (the window's memory may go after
 * them) and return the first error. */
int rmaib_flush_issued(rmaib_win_t *w)
{
    int rc = RMAIB_OK;
    for (int i = 0; i < w->ntps; i++) {
        rc = rmaib_first_error(rc, w->tps[i]->flush(w, -1));
    }
    return rc;
}

int rmaib_quiesce(rmaib_win_t *w)
{
    int rc = RMAIB_OK;
    for (int i = 0; i < w->ntps; i++) {
        const rmaib_tp_ops_t *tp = w->tps[i];
        rc = rmaib_first_error(rc, tp->quiesce ? tp->quiesce(w) : tp->flush(w, -1));
    }
    return rc;
}

int rmaib_flush_all(rmaib_win_t *w)
{
    int rc = passive_any_ok(w);
    return rc != RMAIB_OK ? rc : rmaib_flush_issued(w);
}

int rmaib_flush_local_all(rmaib_win_t *w)
{
    int rc = passive_any_ok(w);
    for (int i = 0; rc == RMAIB_OK && i < w->ntps; i++)
        rc = w->tps[i]->flush_local(w, -1);
    return rc;
}

/* The unified model: public and private copies are one; what is left is ordering
 * this process's loads and stores against the peers'. */
int rmaib_win_sync(rmaib_win_t *w)
{
    rmaib_transport_win_sync(w);
    atomic_thread_fence(memory_order_seq_cst);
    return RMAIB_OK;
}
