/*
 * MPI_Win_lock and MPI_Win_unlock on a w->local_fast window (within a node, no
 * threads, no statistics), inline: the bindings call these, so that an uncontended
 * lock is its CPU atomics on the mapped words and the bookkeeping, with no call
 * between the MPI entry point and the atomic.  Everything else goes to lock.c.
 */
#ifndef RMAIB_LOCK_FAST_H_INCLUDED
#define RMAIB_LOCK_FAST_H_INCLUDED

#include "rma/rma_impl.h"

/* lock.c: the paths for every other window, and a contended lock on a local_fast
 * one (old is what its first atomic found, g the master's word where an exclusive
 * CAS got the target's). */
int rmaib_lock_general(rmaib_win_t *w, int lock_type, int target, int assert);
int rmaib_unlock_general(rmaib_win_t *w, int target);
int rmaib_lock_local_wait(rmaib_win_t *w, int lock_type, int target, uint64_t old,
                          uint64_t g);

/* The epoch's record of a lock on target, taken (_record: uncounted, for
 * local_fast windows, which keep no statistics) and given back. */
static inline void rmaib_lock_record(rmaib_win_t *w, int lock_type, int target)
{
    rmaib_peer(w, target)->lock_type = (uint8_t) lock_type;
    w->nlocks++;
    w->access = RMAIB_ACCESS_LOCK;
}

static inline void rmaib_lock_held(rmaib_win_t *w, int lock_type, int target)
{
    rmaib_stat_add(w, &w->stat_lock_acquires, 1);
    rmaib_lock_record(w, lock_type, target);
}

static inline void rmaib_lock_released(rmaib_win_t *w, int target)
{
    rmaib_peer(w, target)->lock_type = RMAIB_LOCK_NONE;
    if (--w->nlocks == 0)
        w->access = RMAIB_ACCESS_NONE;
}

static inline int rmaib_lock_inline(rmaib_win_t *w, int lock_type, int target, int assert)
{
    if (!w->local_fast || assert != 0 || (unsigned) target >= (unsigned) w->nranks
        || (w->access != RMAIB_ACCESS_NONE && w->access != RMAIB_ACCESS_LOCK)
        || rmaib_peer(w, target)->lock_type)
        return rmaib_lock_general(w, lock_type, target, assert);
    uint64_t old, g = 0;
    if (lock_type == RMAIB_LOCK_EXCLUSIVE) {
        if (!rmaib_global_excl_local_try(w, target, &old, &g))
            return rmaib_lock_local_wait(w, lock_type, target, old, g);
    } else if (lock_type == RMAIB_LOCK_SHARED) {
        /* (rmaib_tas_acquire_shared's first step, on the mapped word) */
        old = rmaib_cpu_ctrl_atomic(rmaib_peer(w, target)->ctrl_mapped + RMAIB_CTRL_OFF(lock),
                                    RMAIB_AOP_FADD, RMAIB_LOCK_SHARED_ONE, 0);
        if (old & (RMAIB_LOCK_WRITER | RMAIB_LOCK_WAIT_MASK))
            return rmaib_lock_local_wait(w, lock_type, target, old, g);
    } else {
        return RMAIB_ERR_LOCKTYPE;
    }
    rmaib_lock_record(w, lock_type, target);
    return RMAIB_OK;
}

/* The transport of a local_fast window completed the epoch's operations as they were
 * issued, and the release's seq_cst atomic orders them before it (what the flush's
 * release fence does otherwise). */
static inline int rmaib_unlock_inline(rmaib_win_t *w, int target)
{
    if (!w->local_fast || (unsigned) target >= (unsigned) w->nranks
        || w->access != RMAIB_ACCESS_LOCK)
        return rmaib_unlock_general(w, target);
    int held = rmaib_peer(w, target)->lock_type;
    if (held != RMAIB_LOCK_EXCLUSIVE && held != RMAIB_LOCK_SHARED)
        return rmaib_unlock_general(w, target);
    rmaib_cpu_ctrl_atomic(rmaib_peer(w, target)->ctrl_mapped + RMAIB_CTRL_OFF(lock), RMAIB_AOP_FADD,
                          held == RMAIB_LOCK_EXCLUSIVE ? -RMAIB_LOCK_WRITER
                          : -RMAIB_LOCK_SHARED_ONE, 0);
    rmaib_lock_released(w, target);
    return RMAIB_OK;
}

#endif
