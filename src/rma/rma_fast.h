/*
 * The latency paths of the rma layer, inline: put, get, flush, short accumulates,
 * fetch-and-op and compare-and-swap in the common case go from their checks
 * straight to the transport.  The core's entry points and the bindings' MPI calls
 * share them, so an MPI call reaches the transport with no call between (an
 * out-of-line core entry, with up to ten arguments, saved six registers for its
 * checks).  Everything else is the _general functions' (putget.c, epoch.c, acc.c).
 */
#ifndef RMAIB_RMA_FAST_H_INCLUDED
#define RMAIB_RMA_FAST_H_INCLUDED

#include <stdatomic.h>
#include "rma/rma_impl.h"
#include "base/atomic_cpu.h"
#include "base/reduce.h"

/* The common case of a put or get, checked inline: contiguous on both sides, in a
 * passive epoch on a window of fixed memory, some bytes, in bounds, to a peer whose
 * entry is open.  Then *roff is where, *len how much and *pe the target's entry;
 * else 0, and the general path checks again and says what failed. */
static inline __attribute__((always_inline)) int
rmaib_xfer_fast(rmaib_win_t *w, size_t ocount, const rmaib_layout_t *ol, int target,
                int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, uint64_t *roff,
                size_t *len, const rmaib_peer_t **pep)
{
    int access = rmaib_access(w);       /* (mt: another thread may change it) */
    const rmaib_peer_t *pe;
    *len = ocount * ol->size;
    return w->flavor != RMAIB_FLAVOR_DYNAMIC && ol->contig && tl->contig
        && (unsigned) target < (unsigned) w->nranks
        && (*pep = pe = rmaib_peer_lookup(w, target)) != NULL
        && (access == RMAIB_ACCESS_LOCK_ALL || (access == RMAIB_ACCESS_LOCK && pe->lock_type))
        && *len != 0 && *len == tcount * tl->size
        && rmaib_target_base(w, target, tdisp, tcount, tl, roff) == RMAIB_OK;
}

/* putget.c: every other put or get, which checks again and says what failed. */
int rmaib_put_general(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags);
int rmaib_get_general(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags);

static inline __attribute__((always_inline)) int
rmaib_put_inline(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                 int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, int flags)
{
    uint64_t roff;
    size_t len;
    const rmaib_peer_t *pe;
    if (rmaib_xfer_fast(w, ocount, ol, target, tdisp, tcount, tl, &roff, &len, &pe))
        return pe->tp->put(w, target, roff, obuf, len);
    return rmaib_put_general(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}

static inline __attribute__((always_inline)) int
rmaib_get_inline(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                 int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, int flags)
{
    uint64_t roff;
    size_t len;
    const rmaib_peer_t *pe;
    if (rmaib_xfer_fast(w, ocount, ol, target, tdisp, tcount, tl, &roff, &len, &pe))
        return pe->tp->get(w, target, roff, obuf, len);
    return rmaib_get_general(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}

/* epoch.c: a flush in any other case. */
int rmaib_flush_general(rmaib_win_t *w, int target);

/* On a w->local_fast window the transport's flush is a release fence.  (Under
 * TSan, GCC refuses a fence inlined into another function, -Wtsan: the general
 * path's transport flush has it there.) */
static inline __attribute__((always_inline)) int rmaib_flush_inline(rmaib_win_t *w, int target)
{
#if !defined(__SANITIZE_THREAD__)
    if (w->local_fast && (unsigned) target < (unsigned) w->nranks
        && rmaib_passive_covers(w, target)) {
        atomic_thread_fence(memory_order_release);
        return RMAIB_OK;
    }
#endif
    return rmaib_flush_general(w, target);
}

/* May count elements of the predefined type l at tdisp go straight to the
 * transport's elem_atomic: a w->local_fast window in a passive epoch, a CPU atomic
 * type, aligned, the run within one RMAIB_ELEM_RUN block, on a target whose memory the
 * transport does natively?  Then *roff is where.  0 for anything else: the
 * caller's general path, which repeats the checks and reports what failed.  The
 * latency path of accumulate, fetch-and-op and compare-and-swap. */
static inline int rmaib_acc_run_fast(rmaib_win_t *w, const rmaib_layout_t *l, int target,
                                     int64_t tdisp, size_t count, uint64_t *roff)
{
    size_t es = rmaib_basic_size(l->basic);
    if (!w->local_fast || w->flavor == RMAIB_FLAVOR_DYNAMIC || !l->contig || l->size != es
        || count - 1 >= RMAIB_ELEM_RUN || (unsigned) target >= (unsigned) w->nranks
        || !rmaib_peer(w, target)->elem_native || !rmaib_cpu_atomic_type[l->basic]
        || !rmaib_passive_covers(w, target))
        return 0;
    /* rmaib_target_base for a contiguous run of at most a block: [base, base + len) */
    const rmaib_peer_t *pe = rmaib_peer(w, target);
    size_t len = count * es;
    int64_t base;
    if (__builtin_mul_overflow(tdisp, (int64_t) pe->disp_unit, &base) || base < 0
        || (uint64_t) base > pe->size || len > pe->size - (uint64_t) base)
        return 0;
    *roff = (uint64_t) base;
    return !(*roff & (es - 1))  /* (one aligned element never crosses a block) */
        && (count == 1 || *roff % RMAIB_ELEM_RUN + len <= RMAIB_ELEM_RUN);
}


/* acc.c: every other accumulate, which repeats the checks and reports what failed. */
int rmaib_accumulate_general(rmaib_win_t *w, const void *obuf, size_t ocount,
                             const rmaib_layout_t *ol, int target, int64_t tdisp, size_t tcount,
                             const rmaib_layout_t *tl, rmaib_op_t op, int flags);

static inline __attribute__((always_inline)) int
rmaib_accumulate_inline(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                        int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                        rmaib_op_t op, int flags)
{
    uint64_t roff;
    if (ol == tl && ocount == tcount && op != RMAIB_OP_NO_OP
        && rmaib_reduce_valid(tl->basic, op) == RMAIB_OK
        && rmaib_acc_run_fast(w, tl, target, tdisp, tcount, &roff))
        return w->atp->elem_acc(w, target, roff, tl->basic, op, obuf, tcount * tl->size);
    return rmaib_accumulate_general(w, obuf, ocount, ol, target, tdisp, tcount, tl, op, flags);
}

/* acc.c: every other fetch-and-op or compare-and-swap. */
int rmaib_fetch_and_op_general(rmaib_win_t *w, const void *obuf, void *rbuf,
                               const rmaib_layout_t *l, int target, int64_t tdisp, rmaib_op_t op);
int rmaib_compare_and_swap_general(rmaib_win_t *w, const void *obuf, const void *cbuf,
                                   void *rbuf, const rmaib_layout_t *l, int target, int64_t tdisp);

static inline __attribute__((always_inline)) int
rmaib_fetch_and_op_inline(rmaib_win_t *w, const void *obuf, void *rbuf, const rmaib_layout_t *l,
                          int target, int64_t tdisp, rmaib_op_t op)
{
    uint64_t roff;
    if (rmaib_reduce_valid(l->basic, op) == RMAIB_OK
        && rmaib_acc_run_fast(w, l, target, tdisp, 1, &roff))
        return w->atp->elem_atomic(w, target, roff, l->basic, op,
                                   op == RMAIB_OP_NO_OP ? NULL : obuf, NULL, rbuf, l->size);
    return rmaib_fetch_and_op_general(w, obuf, rbuf, l, target, tdisp, op);
}

static inline __attribute__((always_inline)) int
rmaib_compare_and_swap_inline(rmaib_win_t *w, const void *obuf, const void *cbuf, void *rbuf,
                              const rmaib_layout_t *l, int target, int64_t tdisp)
{
    uint64_t roff;
    if (rmaib_cas_valid(l->basic) == RMAIB_OK
        && rmaib_acc_run_fast(w, l, target, tdisp, 1, &roff))
        return w->atp->elem_atomic(w, target, roff, l->basic, RMAIB_OP_REPLACE, obuf, cbuf,
                                   rbuf, l->size);
    return rmaib_compare_and_swap_general(w, obuf, cbuf, rbuf, l, target, tdisp);
}

#endif
