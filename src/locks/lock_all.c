/*
 * MPI_Win_lock_all, two ways.
 *
 * Within a node (w->excl_local: test-and-set, every control word a CPU atomic away)
 * a word on the window's master (rank 0) counts the lock_all holders, and exclusive
 * lockers read it (Dekker's scheme, below): lock_all reads every target's word, a
 * load each.
 *
 * Elsewhere lock_all is lazy (a LOCK epoch, w->lock_all_lazy), as Open MPI's osc/rdma
 * locks on demand: the call takes its own word's shared lock and returns; each other
 * target's is taken at the epoch's first operation on it (rmaib_lock_all_take), and
 * unlock_all gives back those taken.  So lock_all costs what the epoch touches, no
 * rank is a hot spot, and an exclusive lock is its target's word alone.
 *
 * A lazy share waits for a writer that holds the target, never for one that only
 * waits there (lock(SHARED) lets waiting writers go first).  Otherwise two lock_all
 * epochs and two writers that each want one lock could wait in a circle: each epoch
 * holding a target whose waiting writer is ahead of it at the other.  A writer that
 * holds one lock and waits for none always finishes; a circle needs a process holding
 * exclusive locks on two targets at once while lock_all epochs touch both.
 */
#include "rma/rma_impl.h"

static const size_t GLOBAL = RMAIB_CTRL_OFF(global_lock), LOCK = RMAIB_CTRL_OFF(lock);

static int take_shared(rmaib_win_t *w, int target)
{
    uint64_t old;
    int rc = rmaib_ctrl_op(w, target, LOCK, RMAIB_AOP_FADD, RMAIB_LOCK_SHARED_ONE, 0, &old);
    if (rc != RMAIB_OK || !(old & RMAIB_LOCK_WRITER))
        return rc;
    return rmaib_tas_acquire_shared_wait(w, target, RMAIB_LOCK_WRITER);
}

static int take(rmaib_win_t *w, int target, uint8_t *held)
{
    int rc = RMAIB_OK;
    if (w->access != RMAIB_ACCESS_LOCK || !w->lock_all_lazy) {
        rc = RMAIB_ERR_RMA_SYNC;        /* another thread's unlock_all ended it */
    } else if (!*held) {
        rc = take_shared(w, target);
        if (rc == RMAIB_OK) {
            __atomic_store_n(held, RMAIB_LOCK_SHARED, __ATOMIC_RELEASE);
            w->nlocks++;
            rmaib_stat_add(w, &w->stat_lock_acquires, 1);
        }
    }
    return rc;
}

/* Without threads the target's lock_type records the share, and the latency paths
 * find it.  With mt, threads may meet here on one target: epoch_lock lets one take
 * it, and the share goes in lazy_shared, which only this slow path reads, so that
 * the latency paths' plain read of lock_type never races a thread's write. */
int rmaib_lock_all_take(rmaib_win_t *w, int target)
{
    rmaib_peer_ent_t *e = rmaib_peer_ent(w, target);
    if (!w->mt)
        return take(w, target, &e->p.lock_type);
    if (__atomic_load_n(&e->lazy_shared, __ATOMIC_ACQUIRE))
        return RMAIB_OK;
    pthread_mutex_lock(&w->epoch_lock);
    int rc = take(w, target, &e->lazy_shared);
    pthread_mutex_unlock(&w->epoch_lock);
    return rc;
}

typedef struct {
    int rc, left;
} give_back_t;

static void give_back(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    give_back_t *g = arg;
    if (!(e->p.lock_type | e->lazy_shared) || !g->left)
        return;
    g->rc = rmaib_first_error(g->rc, rmaib_tas_release(w, e->rank, RMAIB_LOCK_SHARED));
    e->p.lock_type = RMAIB_LOCK_NONE;
    __atomic_store_n(&e->lazy_shared, 0, __ATOMIC_RELAXED);
    g->left--;
}

static int unlock_all_lazy(rmaib_win_t *w)
{
    give_back_t g = { RMAIB_OK, w->nlocks };
    if (g.left)
        rmaib_peer_foreach(w, give_back, &g);
    w->nlocks = 0;
    return g.rc;
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
    w->lock_all_nocheck = (assert & RMAIB_MODE_NOCHECK) != 0;
    if (!w->lock_all_nocheck && !w->excl_local) {
        /* Our own word at once: the epoch covers our loads and stores too. */
        w->lock_all_lazy = 1;
        rmaib_set_access(w, RMAIB_ACCESS_LOCK);
        int rc = rmaib_lock_all_take(w, w->rank);
        if (rc != RMAIB_OK) {
            rmaib_set_access(w, RMAIB_ACCESS_NONE);
            w->lock_all_lazy = 0;
        }
        return rc;
    }
    if (!w->lock_all_nocheck) {
        int rc = lock_all_local(w);
        if (rc != RMAIB_OK)
            return rc;
    }
    rmaib_set_access(w, RMAIB_ACCESS_LOCK_ALL);
    return RMAIB_OK;
}

int rmaib_unlock_all(rmaib_win_t *w)
{
    int access = rmaib_access(w), lazy = access == RMAIB_ACCESS_LOCK && w->lock_all_lazy;
    if (access != RMAIB_ACCESS_LOCK_ALL && !lazy)
        return RMAIB_ERR_RMA_SYNC;
    int rc = rmaib_flush_issued(w);
    /* Leave even if the flush failed, as rmaib_unlock does. */
    if (lazy) {
        if (w->mt)
            pthread_mutex_lock(&w->epoch_lock);
        rc = rmaib_first_error(rc, unlock_all_lazy(w));
        w->lock_all_lazy = 0;
        rmaib_set_access(w, RMAIB_ACCESS_NONE);
        if (w->mt)
            pthread_mutex_unlock(&w->epoch_lock);
        return rc;
    }
    if (!w->lock_all_nocheck) {
        rc = rmaib_first_error(rc, rmaib_ctrl_op(w, RMAIB_LOCK_MASTER, GLOBAL, RMAIB_AOP_FADD,
                                                 -RMAIB_GLOBAL_ALL_ONE, 0, NULL));
    }
    rmaib_set_access(w, RMAIB_ACCESS_NONE);
    return rc;
}
