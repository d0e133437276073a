/*
 * Put and Get.  The hot path (contiguous data on both sides, a passive epoch already
 * open) is the epoch test, the bounds check and one transport call; derived
 * datatypes are walked as two streams of blocks cut to each other's boundaries.
 */
#include <stdlib.h>
#include "rma_fast.h"
#include "stream.h"

/* rmaib_target_base of a dynamic window: displacements are addresses, and the
 * range must lie in one region the target attached. */
int rmaib_target_base_dynamic(rmaib_win_t *w, int target, int64_t tdisp, size_t count,
                              const rmaib_layout_t *lay, uint64_t *roff)
{
    int64_t lo, hi;
    rmaib_layout_span(lay, count, &lo, &hi);
    if (__builtin_add_overflow(lo, tdisp, &lo) || __builtin_add_overflow(hi, tdisp, &hi))
        return RMAIB_ERR_RMA_RANGE;
    *roff = (uint64_t) tdisp;
    return lo < 0 ? RMAIB_ERR_RMA_RANGE
        : rmaib_dynamic_range_ok(w, target, (uint64_t) lo, (uint64_t) hi);
}

/* Where walk_segs puts the next segment when *n has reached *cap: room() makes
 * space at (*segs)[*n], by handing the batch to the backend or by growing. */
typedef int (*seg_room_fn)(void *ctx, rmaib_seg_t **segs, size_t *n, size_t *cap);

/* The segments of a derived-type transfer, origin and target layouts walked
 * together, merged where both sides continue. */
static int walk_segs(char *obuf, size_t ocount, const rmaib_layout_t *ol, uint64_t roff,
                     size_t tcount, const rmaib_layout_t *tl, rmaib_seg_t **segs, size_t *n,
                     size_t *cap, seg_room_fn room, void *ctx)
{
    rmaib_stream_t os, ts;
    int64_t oa, ta;
    size_t olen, tlen;
    rmaib_stream_init(&os, ol, ocount);
    rmaib_stream_init(&ts, tl, tcount);
    while (rmaib_stream_next(&os, &oa, &olen) && rmaib_stream_next(&ts, &ta, &tlen)) {
        size_t len = olen < tlen ? olen : tlen;
        char *la = obuf + oa;
        uint64_t ra = roff + (uint64_t) ta;
        rmaib_seg_t *last = *n ? &(*segs)[*n - 1] : NULL;
        if (last && last->roff + last->len == ra && (char *) last->laddr + last->len == la) {
            last->len += len;
        } else {
            int rc;
            if (*n == *cap && (rc = room(ctx, segs, n, cap)) != RMAIB_OK)
                return rc;
            (*segs)[(*n)++] = (rmaib_seg_t) { ra, la, len };
        }
        os.used += len;
        ts.used += len;
    }
    return RMAIB_OK;
}

typedef struct xfer_ctx {
    rmaib_win_t *w;
    int target, is_put;
} xfer_ctx_t;

/* A full batch goes to the backend, and the batch starts again. */
static int xfer_batch(void *ctx, rmaib_seg_t **segs, size_t *n, size_t *cap)
{
    xfer_ctx_t *x = ctx;
    const rmaib_tp_ops_t *tp = rmaib_peer(x->w, x->target)->tp;
    (void) cap;
    int rc = x->is_put ? tp->putv(x->w, x->target, *segs, *n)
        : tp->getv(x->w, x->target, *segs, *n);
    *n = 0;
    return rc;
}

static int xfer_generic(rmaib_win_t *w, int target, char *obuf, size_t ocount,
                        const rmaib_layout_t *ol, uint64_t roff, size_t tcount,
                        const rmaib_layout_t *tl, int is_put)
{
    enum { BATCH = 64 };
    rmaib_seg_t batch[BATCH], *segs = batch;
    size_t n = 0, cap = BATCH;
    xfer_ctx_t x = { w, target, is_put };
    int rc = walk_segs(obuf, ocount, ol, roff, tcount, tl, &segs, &n, &cap, xfer_batch, &x);
    return rc != RMAIB_OK || n == 0 ? rc : xfer_batch(&x, &segs, &n, &cap);
}

static inline __attribute__((always_inline)) int
rma_prepare(rmaib_win_t *w, size_t ocount, const rmaib_layout_t *ol, int target, int64_t tdisp,
            size_t tcount, const rmaib_layout_t *tl, int flags, uint64_t *roff)
{
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    int rc = rmaib_epoch_ok(w, target, flags);
    if (rc != RMAIB_OK)
        return rc;
    if (ocount * ol->size != tcount * tl->size)
        return RMAIB_ERR_TYPE;
    if (ocount * ol->size == 0)
        return RMAIB_OK;
    return rmaib_target_base(w, target, tdisp, tcount, tl, roff);
}

int rmaib_put_general(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags)
{
    uint64_t roff = 0;
    int rc = rma_prepare(w, ocount, ol, target, tdisp, tcount, tl, flags, &roff);
    if (rc != RMAIB_OK || ocount * ol->size == 0)
        return rc;
    if (ol->contig && tl->contig)
        return rmaib_peer(w, target)->tp->put(w, target, roff, obuf, ocount * ol->size);
    return xfer_generic(w, target, (char *) obuf, ocount, ol, roff, tcount, tl, 1);
}

/* A full array of segments doubles. */
static int grow_segs(void *ctx, rmaib_seg_t **segs, size_t *n, size_t *cap)
{
    (void) ctx, (void) n;
    rmaib_seg_t *g = realloc(*segs, (*cap ? 2 * *cap : 64) * sizeof *g);
    if (!g)
        return RMAIB_ERR_NO_MEM;
    *cap = *cap ? 2 * *cap : 64;
    *segs = g;
    return RMAIB_OK;
}

/* All the segments of a derived-type transfer at once, merged where both sides
 * continue, in an array the caller frees: a notified read posts them all and counts
 * one notification for the lot. */
static int gather_segs(char *obuf, size_t ocount, const rmaib_layout_t *ol, uint64_t roff,
                       size_t tcount, const rmaib_layout_t *tl, rmaib_seg_t **out, size_t *nout)
{
    rmaib_seg_t *segs = NULL;
    size_t n = 0, cap = 0;
    int rc = walk_segs(obuf, ocount, ol, roff, tcount, tl, &segs, &n, &cap, grow_segs, NULL);
    if (rc != RMAIB_OK) {
        free(segs);
        return rc;
    }
    *out = segs;
    *nout = n;
    return RMAIB_OK;
}

/* A get after which *counter grows by one, once the data is in obuf: at once where
 * the backend copies, on completion where it offers get_notify. */
int rmaib_get_counted(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags, _Atomic uint64_t *counter)
{
    uint64_t roff = 0;
    int rc = rma_prepare(w, ocount, ol, target, tdisp, tcount, tl, flags, &roff);
    if (rc != RMAIB_OK)
        return rc;
    const rmaib_tp_ops_t *tp = rmaib_peer(w, target)->tp;
    size_t bytes = ocount * ol->size;
    int contig = ol->contig && tl->contig;
    if (bytes != 0 && tp->get_notify) {
        rmaib_seg_t one = { roff, obuf, bytes }, *segs = &one;
        size_t n = 1;
        if (!contig && (rc = gather_segs(obuf, ocount, ol, roff, tcount, tl, &segs, &n)))
            return rc;
        rc = tp->get_notify(w, target, segs, n, counter);
        if (segs != &one)
            free(segs);
        return rc;
    }
    if (bytes != 0)     /* prepared once: the transfer itself, as rmaib_get makes it */
        rc = contig ? tp->get(w, target, roff, obuf, bytes)
            : xfer_generic(w, target, obuf, ocount, ol, roff, tcount, tl, 0);
    if (rc == RMAIB_OK)
        rc = tp->flush_local(w, target);
    if (rc == RMAIB_OK)
        atomic_fetch_add_explicit(counter, 1, memory_order_release);
    return rc;
}

int rmaib_get_general(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int flags)
{
    uint64_t roff = 0;
    int rc = rma_prepare(w, ocount, ol, target, tdisp, tcount, tl, flags, &roff);
    if (rc != RMAIB_OK || ocount * ol->size == 0)
        return rc;
    if (ol->contig && tl->contig)
        return rmaib_peer(w, target)->tp->get(w, target, roff, obuf, ocount * ol->size);
    return xfer_generic(w, target, obuf, ocount, ol, roff, tcount, tl, 0);
}

int rmaib_put(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
              int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, int flags)
{
    return rmaib_put_inline(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}

int rmaib_get(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
              int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl, int flags)
{
    return rmaib_get_inline(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
}
