/*
 * The latency path of MPI_Put and MPI_Get, inline: a contiguous transfer in a
 * passive epoch goes from the checks straight to the transport.  putget.c and the
 * bindings both take it, so the binding reaches the transport with no call between
 * (the core's entry, with nine arguments, saved six registers to make its checks).
 */
#ifndef RMAIB_PUTGET_FAST_H_INCLUDED
#define RMAIB_PUTGET_FAST_H_INCLUDED

#include "rma/rma_impl.h"

/* The common case of a put or get, checked inline: contiguous on both sides, in a
 * passive epoch on a window of fixed memory, some bytes, in bounds.  Then *roff is
 * where and *len how much; else 0, and the general path checks again and says
 * what failed. */
static inline int rmaib_xfer_fast(rmaib_win_t *w, size_t ocount, const rmaib_layout_t *ol,
                                  int target, int64_t tdisp, size_t tcount,
                                  const rmaib_layout_t *tl, uint64_t *roff, size_t *len)
{
    int access = rmaib_access(w);       /* (mt: another thread may change it) */
    *len = ocount * ol->size;
    return w->flavor != RMAIB_FLAVOR_DYNAMIC && ol->contig && tl->contig
        && (unsigned) target < (unsigned) w->nranks
        && (access == RMAIB_ACCESS_LOCK_ALL
            || (access == RMAIB_ACCESS_LOCK && w->peers[target].lock_type))
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
    if (rmaib_xfer_fast(w, ocount, ol, target, tdisp, tcount, tl, &roff, &len))
        return w->peers[target].tp->put(w, target, roff, obuf, len);
    return rmaib_put_general(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}

static inline __attribute__((always_inline)) int
rmaib_get_inline(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                 int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, int flags)
{
    uint64_t roff;
    size_t len;
    if (rmaib_xfer_fast(w, ocount, ol, target, tdisp, tcount, tl, &roff, &len))
        return w->peers[target].tp->get(w, target, roff, obuf, len);
    return rmaib_get_general(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}

#endif
