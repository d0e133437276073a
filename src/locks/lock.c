/*
 * MPI_Win_lock / MPI_Win_unlock on one target: the epoch rules, then the lock word
 * (test-and-set, or the MCS queue for exclusive locks on rmaib_lock=mcs windows).
 * The lock is held when rmaib_lock returns, so it is held before any operation of
 * the epoch takes effect.
 *
 * With MPI_THREAD_MULTIPLE (w->mt) threads may lock and unlock different targets at
 * once: the epoch bookkeeping changes under epoch_lock, and the lock words are taken
 * and released outside it, since a thread waiting for a target a peer holds must not
 * stop another of ours from unlocking a target that peer may be waiting for.
 */
#include "locks/lock_fast.h"

/* An exclusive lock on a window that is not excl_local: the target's word alone (no
 * lock_all there counts on the master: lock_all.c). */
static int acquire_exclusive(rmaib_win_t *w, int target)
{
    return w->lock_alg == RMAIB_LOCKALG_MCS ? rmaib_mcs_acquire(w, target)
        : rmaib_tas_acquire_exclusive(w, target);
}

static int release_exclusive(rmaib_win_t *w, int target)
{
    return w->lock_alg == RMAIB_LOCKALG_MCS ? rmaib_mcs_release(w, target)
        : rmaib_tas_release(w, target, RMAIB_LOCK_EXCLUSIVE);
}

/* mt: the same steps as acquire() below, the word taken outside epoch_lock. */
static int acquire_mt(rmaib_win_t *w, int lock_type, int target)
{
    if (lock_type == RMAIB_LOCK_SHARED)
        return rmaib_tas_acquire_shared(w, target);
    return w->excl_local ? rmaib_global_excl_local(w, target) : acquire_exclusive(w, target);
}

/* The target is ours (RMAIB_LOCK_PENDING) from the check on, so a second thread
 * locking it gets MPI_ERR_RMA_SYNC, as MPI calls that erroneous, not a deadlock. */
static __attribute__((noinline)) int lock_mt(rmaib_win_t *w, int lock_type, int target,
                                            int assert)
{
    pthread_mutex_lock(&w->epoch_lock);
    int access = w->access, rc = RMAIB_OK;
    if ((access != RMAIB_ACCESS_NONE && access != RMAIB_ACCESS_FENCE_ISSUED
         && access != RMAIB_ACCESS_LOCK) || w->lock_all_lazy || rmaib_peer(w, target)->lock_type) {
        rc = RMAIB_ERR_RMA_SYNC;
    } else {
        rmaib_peer(w, target)->lock_type = RMAIB_LOCK_PENDING;
        w->nlocks++;
        rmaib_set_access(w, RMAIB_ACCESS_LOCK);
    }
    pthread_mutex_unlock(&w->epoch_lock);
    if (rc != RMAIB_OK)
        return rc;
    if (!(assert & RMAIB_MODE_NOCHECK))
        rc = acquire_mt(w, lock_type, target);
    pthread_mutex_lock(&w->epoch_lock);
    if (rc == RMAIB_OK) {
        rmaib_peer(w, target)->lock_type = (uint8_t) (lock_type
                                                | (assert & RMAIB_MODE_NOCHECK ? RMAIB_LOCK_NOCHECK_BIT : 0));
        rmaib_stat_add(w, &w->stat_lock_acquires, 1);
    } else {
        rmaib_peer(w, target)->lock_type = RMAIB_LOCK_NONE;
        if (--w->nlocks == 0)
            rmaib_set_access(w, RMAIB_ACCESS_NONE);
    }
    pthread_mutex_unlock(&w->epoch_lock);
    return rc;
}

static __attribute__((noinline)) int unlock_mt(rmaib_win_t *w, int target)
{
    pthread_mutex_lock(&w->epoch_lock);
    int held = rmaib_peer(w, target)->lock_type;
    int ok = w->access == RMAIB_ACCESS_LOCK && !w->lock_all_lazy && held
        && !(held & RMAIB_LOCK_PENDING);
    if (ok)
        rmaib_peer(w, target)->lock_type = (uint8_t) (held | RMAIB_LOCK_PENDING);
    pthread_mutex_unlock(&w->epoch_lock);
    if (!ok)
        return RMAIB_ERR_RMA_SYNC;
    int type = held & ~RMAIB_LOCK_NOCHECK_BIT;
    int rc = rmaib_flush_target(w, target), rc2 = RMAIB_OK;
    if (!(held & RMAIB_LOCK_NOCHECK_BIT)) {     /* even if the flush failed (rmaib_unlock) */
        rc2 = type == RMAIB_LOCK_SHARED || w->excl_local ? rmaib_tas_release(w, target, type)
            : release_exclusive(w, target);
    }
    pthread_mutex_lock(&w->epoch_lock);
    rmaib_peer(w, target)->lock_type = RMAIB_LOCK_NONE;
    if (--w->nlocks == 0)
        rmaib_set_access(w, RMAIB_ACCESS_NONE);
    pthread_mutex_unlock(&w->epoch_lock);
    return rmaib_first_error(rc, rc2);
}

/* The lock word steps of rmaib_lock and rmaib_unlock, outside the epoch
 * bookkeeping; the common ones inline. */
static inline int acquire(rmaib_win_t *w, int lock_type, int target)
{
    return lock_type == RMAIB_LOCK_SHARED ? rmaib_tas_acquire_shared(w, target)
        : w->excl_local ? rmaib_global_excl_local(w, target)
        : acquire_exclusive(w, target);
}

static inline int release(rmaib_win_t *w, int type, int target)
{
    return type == RMAIB_LOCK_SHARED || w->excl_local ? rmaib_tas_release(w, target, type)
        : release_exclusive(w, target);
}

/* With RMAIB_STATS: the same, counting the atomics they spend. */
static __attribute__((noinline)) int acquire_counted(rmaib_win_t *w, int lock_type, int target)
{
    uint64_t ops0 = w->stat_remote_ops;
    int rc = acquire(w, lock_type, target);
    rmaib_stat_add(w, &w->stat_lock_ops, w->stat_remote_ops - ops0);
    return rc;
}

static __attribute__((noinline)) int release_counted(rmaib_win_t *w, int type, int target)
{
    uint64_t ops0 = w->stat_remote_ops;
    int rc = release(w, type, target);
    rmaib_stat_add(w, &w->stat_lock_ops, w->stat_remote_ops - ops0);
    return rc;
}

/* Every window that is not local_fast, and any call that is not the plain case:
 * the argument and epoch checks, then the lock word. */
int rmaib_lock_general(rmaib_win_t *w, int lock_type, int target, int assert)
{
    if (lock_type != RMAIB_LOCK_SHARED && lock_type != RMAIB_LOCK_EXCLUSIVE)
        return RMAIB_ERR_LOCKTYPE;
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    if (assert & ~RMAIB_MODE_NOCHECK)
        return RMAIB_ERR_ASSERT;
    if (w->mt)
        return lock_mt(w, lock_type, target, assert);
    if ((w->access != RMAIB_ACCESS_NONE && w->access != RMAIB_ACCESS_FENCE_ISSUED
         && w->access != RMAIB_ACCESS_LOCK) || w->lock_all_lazy || rmaib_peer(w, target)->lock_type)
        return RMAIB_ERR_RMA_SYNC;
    if (assert & RMAIB_MODE_NOCHECK) {
        lock_type |= RMAIB_LOCK_NOCHECK_BIT;
    } else {
        int rc = __builtin_expect(w->stats, 0) ? acquire_counted(w, lock_type, target)
            : acquire(w, lock_type, target);
        if (rc != RMAIB_OK)
            return rc;
    }
    rmaib_lock_held(w, lock_type, target);
    return RMAIB_OK;
}

int rmaib_unlock_general(rmaib_win_t *w, int target)
{
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    if (w->mt)
        return unlock_mt(w, target);
    int held = rmaib_peer(w, target)->lock_type;
    if (w->access != RMAIB_ACCESS_LOCK || w->lock_all_lazy || !held)
        return RMAIB_ERR_RMA_SYNC;
    int rc = rmaib_flush_target(w, target);
    /* The lock goes even if the flush failed: the error is the epoch's operations',
     * and a lock kept would stall every other origin for good. */
    if (!(held & RMAIB_LOCK_NOCHECK_BIT)) {
        rc = rmaib_first_error(rc, __builtin_expect(w->stats, 0)
                               ? release_counted(w, held, target) : release(w, held, target));
    }
    rmaib_lock_released(w, target);
    return rc;
}

/* A contended lock on a w->local_fast window (lock_fast.h). */
int rmaib_lock_local_wait(rmaib_win_t *w, int lock_type, int target, uint64_t old,
                          uint64_t g)
{
    int rc = lock_type == RMAIB_LOCK_SHARED ? rmaib_tas_acquire_shared_wait(w, target,
                                                       RMAIB_LOCK_WRITER | RMAIB_LOCK_WAIT_MASK)
        : rmaib_global_excl_local_wait(w, target, old, g);
    if (rc == RMAIB_OK)
        rmaib_lock_held(w, lock_type, target);
    return rc;
}

/* The core's entry points: the same paths, for callers other than the bindings. */
int rmaib_lock(rmaib_win_t *w, int lock_type, int target, int assert)
{
    return rmaib_lock_inline(w, lock_type, target, assert);
}

int rmaib_unlock(rmaib_win_t *w, int target)
{
    return rmaib_unlock_inline(w, target);
}
