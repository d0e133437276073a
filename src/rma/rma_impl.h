/*
 * What the synchronisation, data-movement and lock files of the core share: the
 * control-word helpers over the window's transports and the epoch and lock steps.
 */
#ifndef RMAIB_RMA_IMPL_H_INCLUDED
#define RMAIB_RMA_IMPL_H_INCLUDED

#include "rmaib_win.h"

/* What each rank brings to a window's creation (win.c's one allgather); here so
 * that test/unit's simulated host can make up the records of its virtual ranks. */
typedef struct rmaib_win_hello {
    uint64_t node_key;
    uint64_t host_key;          /* the host, whatever the namespace or RMAIB_NODE_SIZE */
    uint64_t size;
    uint64_t base;
    int32_t pid;
    int32_t disp_unit;
    int32_t status;
    int32_t max_notify;         /* the window takes the largest */
    int32_t lock_alg;           /* mcs if any rank asks: one protocol per window */
    int32_t pscw_dense;         /* RMAIB_PSCW_DENSE: the window takes the smallest */
    int32_t postq_slots;        /* RMAIB_TEST_POSTQ_SLOTS: the same */
    int32_t board_fd;           /* its board (shm_seg.c), or -1 */
    uint64_t serial;            /* its offer of the window's number */
} rmaib_win_hello_t;

/* win_exchange.c: creation's collective part up to the transports' choice, which
 * it makes; status is this rank's failure so far (w may then be NULL).  On
 * RMAIB_OK, which every rank returns alike, w knows its nodes, directory, local
 * peers and the group-wide choices, except where w->setup_status says a later
 * local step failed (the backends' set-up agrees on it).  *made_dir: the
 * communicator's directory is new, to go again if the creation fails. */
int rmaib_win_exchange(rmaib_win_t *w, const rmaib_win_args_t *a, int status, int *made_dir);
/* The creation that called it has set up its transports, or failed. */
void rmaib_win_exchange_end(void);

/* Control-block atomics through the window's atomics transport, or straight on the
 * mapped word where that transport is CPU atomics. */
static inline int rmaib_ctrl_op(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                                uint64_t operand, uint64_t compare, uint64_t *result)
{
    rmaib_stat_add(w, &w->stat_remote_ops, peer != w->rank);
    char *mapped = rmaib_peer_ctrl_mapped(w, peer);
    if (mapped) {
        uint64_t old = rmaib_cpu_ctrl_atomic(mapped + off, op, operand, compare);
        if (result)
            *result = old;
        return RMAIB_OK;
    }
    return w->atp->ctrl_atomic(w, peer, off, op, operand, compare, result);
}

/* Store into a peer's signal word (fence flag, PSCW sequence word), one way, after
 * the data operations issued to it (transport ctrl_store).  Our own words take a
 * plain store, once what we sent ourselves (through the network, perhaps) is in. */
static inline int rmaib_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    if (peer == w->rank) {
        int rc = rmaib_peer(w, peer)->tp->flush(w, peer);
        if (rc == RMAIB_OK)
            __atomic_store_n((uint64_t *) ((char *) w->my_ctrl + off), value, __ATOMIC_RELEASE);
        return rc;
    }
    return rmaib_peer_tp(w, peer)->ctrl_store(w, peer, off, value);
}


/* The target of an operation: a rank of the group, whose entry is open from now
 * on (RMAIB_ERR_NO_MEM if it cannot be). */
static inline int rmaib_target_ok(rmaib_win_t *w, int target)
{
    if ((unsigned) target >= (unsigned) w->nranks)
        return RMAIB_ERR_RANK;
    rmaib_peer_t *pe;
    return __builtin_expect(w->peers != NULL, 1) ? RMAIB_OK : rmaib_peer_open(w, target, &pe);
}

/* Shared between the synchronisation files. */
int rmaib_epoch_check_target(rmaib_win_t *w, int target, int flags);
/* Remote completion of what this process issued to target: through its transport
 * and, where the window's atomics transport is another (a window spanning nodes),
 * through that one too, which carried the accumulates and control-word atomics and
 * holds any error they met. */
static inline int rmaib_flush_target(rmaib_win_t *w, int target)
{
    const rmaib_tp_ops_t *tp = rmaib_peer(w, target)->tp;
    if (w->atp == tp)
        return tp->flush(w, target);
    int rc = tp->flush(w, target);
    return rmaib_first_error(rc, w->atp->flush(w, target));
}
int rmaib_flush_issued(rmaib_win_t *w);
int rmaib_quiesce(rmaib_win_t *w);
int rmaib_dynamic_range_ok(rmaib_win_t *w, int target, uint64_t lo, uint64_t hi);
int rmaib_target_base_dynamic(rmaib_win_t *w, int target, int64_t tdisp, size_t count,
                              const rmaib_layout_t *lay, uint64_t *roff);

/* Where count elements of lay at target displacement tdisp start in the target's
 * data region; RMAIB_ERR_RMA_RANGE for any byte outside the window, caught here so
 * nothing is ever written out of bounds.  Inline: every data call's path. */
static inline int rmaib_target_base(rmaib_win_t *w, int target, int64_t tdisp, size_t count,
                                    const rmaib_layout_t *lay, uint64_t *roff)
{
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC)
        return rmaib_target_base_dynamic(w, target, tdisp, count, lay, roff);
    const rmaib_peer_t *pe = rmaib_peer(w, target);
    int64_t base, lo, hi;
    if (__builtin_mul_overflow(tdisp, (int64_t) pe->disp_unit, &base))
        return RMAIB_ERR_RMA_RANGE;
    rmaib_layout_span(lay, count, &lo, &hi);
    if (__builtin_add_overflow(lo, base, &lo) || __builtin_add_overflow(hi, base, &hi))
        return RMAIB_ERR_RMA_RANGE;
    *roff = (uint64_t) base;
    return lo < 0 || (uint64_t) hi > pe->size ? RMAIB_ERR_RMA_RANGE : RMAIB_OK;
}

/* A passive epoch covering target (in range). */
static inline int rmaib_passive_covers(const rmaib_win_t *w, int target)
{
    int access = rmaib_access(w);
    return access == RMAIB_ACCESS_LOCK_ALL
        || (access == RMAIB_ACCESS_LOCK && rmaib_peer(w, target)->lock_type);
}

/* The hot half of the epoch check: a passive epoch covering target. */
static inline int rmaib_epoch_ok(rmaib_win_t *w, int target, int flags)
{
    return rmaib_passive_covers(w, target) ? RMAIB_OK : rmaib_epoch_check_target(w, target, flags);
}
int rmaib_pscw_wait_post(rmaib_win_t *w, int target);
/* tas.c: the uncontended shared lock and every release are one atomic, inline; a
 * contended share waits while the word holds any of blockers (a writer, or one
 * waiting; a lazy lock_all's share waits for a holding writer only). */
int rmaib_tas_acquire_shared_wait(rmaib_win_t *w, int target, uint64_t blockers);
static inline int rmaib_tas_acquire_shared(rmaib_win_t *w, int target)
{
    uint64_t old;
    int rc = rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(lock), RMAIB_AOP_FADD,
                           RMAIB_LOCK_SHARED_ONE, 0, &old);
    if (rc != RMAIB_OK || !(old & (RMAIB_LOCK_WRITER | RMAIB_LOCK_WAIT_MASK)))
        return rc;
    return rmaib_tas_acquire_shared_wait(w, target, RMAIB_LOCK_WRITER | RMAIB_LOCK_WAIT_MASK);
}
static inline int rmaib_tas_release(rmaib_win_t *w, int target, int lock_type)
{
    uint64_t share = lock_type == RMAIB_LOCK_EXCLUSIVE ? RMAIB_LOCK_WRITER : RMAIB_LOCK_SHARED_ONE;
    return rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(lock), RMAIB_AOP_FADD, -share, 0, NULL);
}
int rmaib_tas_acquire_exclusive(rmaib_win_t *w, int target);
/* The rest of an exclusive acquisition once its CAS 0 -> writer returned old. */
int rmaib_tas_exclusive_finish(rmaib_win_t *w, int target, uint64_t old);
int rmaib_mcs_acquire(rmaib_win_t *w, int target);
void rmaib_mcs_pool_init(rmaib_win_t *w);
int rmaib_mcs_release(rmaib_win_t *w, int target);
/* A lazy lock_all's shared lock on target, at the epoch's first operation on it
 * (lock_all.c); RMAIB_OK once the target is covered. */
int rmaib_lock_all_take(rmaib_win_t *w, int target);
/* An exclusive lock on target where w->excl_local: the target's word is taken, then
 * the master (RMAIB_LOCK_MASTER) is read, not told; the protocol and its contended
 * steps are lock_all.c's.  excl_local windows have every control word mapped
 * (ctrl_cpu ALL), so these are CPU atomics.  _try: 1 if the lock is held, else 0
 * with what the two words held for rmaib_global_excl_local_wait; it counts nothing
 * (local_fast windows keep no statistics), rmaib_global_excl_local counts its atomics. */
enum { RMAIB_LOCK_MASTER = 0 };
int rmaib_global_excl_local_wait(rmaib_win_t *w, int target, uint64_t old, uint64_t g);
static inline int rmaib_global_excl_local_try(rmaib_win_t *w, int target, uint64_t *old,
                                              uint64_t *g)
{
    *old = rmaib_cpu_ctrl_atomic(rmaib_peer(w, target)->ctrl_mapped + RMAIB_CTRL_OFF(lock),
                                 RMAIB_AOP_CAS, RMAIB_LOCK_WRITER, 0);
    *g = 0;
    if (*old != 0)
        return 0;
    *g = rmaib_cpu_ctrl_atomic(rmaib_peer(w, RMAIB_LOCK_MASTER)->ctrl_mapped
                               + RMAIB_CTRL_OFF(global_lock), RMAIB_AOP_READ, 0, 0);
    return !(*g & RMAIB_GLOBAL_ALL_MASK);
}
static inline int rmaib_global_excl_local(rmaib_win_t *w, int target)
{
    uint64_t old, g;
    int held = rmaib_global_excl_local_try(w, target, &old, &g);
    rmaib_stat_add(w, &w->stat_remote_ops,
                   (uint64_t) (target != w->rank) + (old == 0 && w->rank != RMAIB_LOCK_MASTER));
    return held ? RMAIB_OK : rmaib_global_excl_local_wait(w, target, old, g);
}

/* putget.c: a get after which *counter grows by one once the data is in obuf. */
int rmaib_get_counted(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags, _Atomic uint64_t *counter);

#endif
