/*
 * The ofi backend's notified read (MPIX_Get_notify_local): the read is posted and
 * the call returns; whoever reads the completion queue grows the caller's counter
 * once the read's last piece has completed.  Derived datatypes come as segments
 * (one step for all), dynamic windows are cut at region ends, and under FI_MR_LOCAL
 * each piece lands in a ring block that its completion copies out.
 *
 * Ordering: a read's completion is written only once its data is placed in our
 * buffer; the counter grows after it with release order and is read with acquire,
 * so whoever sees the count sees the bytes.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "ofi_impl.h"

/* One notified read in flight (one counter step), however many pieces it takes;
 * pending holds one more than the pieces in flight while the poster still posts.
 * A piece's context is the record tagged with bit 1, or, read through a ring block
 * (FI_MR_LOCAL), that block tagged with bits 1 and 0: its head says where to copy. */
typedef struct ofi_nread {
    _Atomic int pending;
    _Atomic int err;
    _Atomic uint64_t *counter;
    ofi_peer_t *peer;
} ofi_nread_t;

typedef struct nread_bounce {
    ofi_nread_t *r;
    void *dst;
    size_t n;
    char pad[POOL_ALIGN - 3 * sizeof(void *)];     /* the data stays aligned */
} nread_bounce_t;

#define NREAD_CTX(r) ((void *) ((uintptr_t) (r) | 2))
#define BOUNCE_CTX(b) ((void *) ((uintptr_t) (b) | 3))

static void nread_drop(ofi_nread_t *r, int n)
{
    if (atomic_fetch_sub_explicit(&r->pending, n, memory_order_acq_rel) != n)
        return;
    if (!atomic_load_explicit(&r->err, memory_order_relaxed))
        atomic_fetch_add_explicit(r->counter, 1, memory_order_release);
    free(r);
}

/* A piece completed (cq.c).  A bounced one is copied out before it counts.  The
 * peer is credited last: once its count is whole the window may go, and the counter
 * lives in it. */
void rmaib_ofi_nread_complete(void *ctx, int err)
{
    ofi_nread_t *r = (ofi_nread_t *) ((uintptr_t) ctx & ~(uintptr_t) 3);
    if ((uintptr_t) ctx & 1) {
        pool_blk_t *b = (pool_blk_t *) r;
        nread_bounce_t *h = blk_data(b);
        if (!err)
            memcpy(h->dst, h + 1, h->n);
        r = h->r;
        pool_release(b);
    }
    ofi_peer_t *p = r->peer;
    if (err) {
        atomic_store_explicit(&r->err, err, memory_order_relaxed);
        atomic_store_explicit(&p->err, err, memory_order_relaxed);
    }
    nread_drop(r, 1);
    atomic_fetch_add_explicit(&p->nread_done, 1, memory_order_release);
}

/* Post one piece of at most max_msg bytes. */
static int nread_post(ofi_nread_t *r, ofi_peer_t *p, void *dst, size_t n, uint64_t raddr,
                      uint64_t key)
{
    ssize_t x;
    pool_blk_t *b = NULL;
    void *to = dst, *ctx = NREAD_CTX(r);
    if (ofi.mr_local) {         /* the provider writes only registered memory: the ring */
        b = rmaib_ofi_pool_alloc(sizeof(nread_bounce_t) + n, NULL);
        nread_bounce_t *h = blk_data(b);
        *h = (nread_bounce_t) { .r = r, .dst = dst, .n = n };
        to = h + 1;
        ctx = BOUNCE_CTX(b);
    }
    CNT_ADD(p->nread_issued, 1);
    POST(x, fi_read(ofi.ep, to, n, ofi.pool_desc, p->addr, raddr, key, ctx));
    if (x == 0) {
        rmaib_ofi_touch(p);
        return RMAIB_OK;
    }
    CNT_ADD(p->nread_issued, -1);
    if (b)
        pool_release(b);
    return rmaib_ofi_post_failed("get", x);
}

static size_t nread_pieces(const rmaib_seg_t *segs, size_t n)
{
    size_t pieces = 0;
    for (size_t i = 0; i < n; i++)
        pieces += (segs[i].len + ofi.max_msg - 1) / ofi.max_msg;
    return pieces;
}

/* Every segment's pieces are posted and the call returns: one counter step once the
 * last of them has landed, whichever it is.  Dynamic windows are cut at region ends
 * first (each region has its own key). */
static int get_notify(rmaib_win_t *w, int peer, const rmaib_seg_t *user_segs, size_t user_n,
                         _Atomic uint64_t *counter)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    const rmaib_seg_t *segs = user_segs;
    rmaib_seg_t *cut = NULL;
    size_t nsegs = user_n;
    int rc = rmaib_ofi_dyn_cut(w, p, user_segs, user_n, &segs, &nsegs, &cut);
    size_t pieces = nsegs ? nread_pieces(segs, nsegs) : 0, posted = 0;
    ofi_nread_t *r = rc == RMAIB_OK && pieces < INT_MAX ? malloc(sizeof *r) : NULL;
    if (!r) {
        free(cut);
        return rc == RMAIB_OK ? RMAIB_ERR_NO_MEM : rc;
    }
    atomic_init(&r->pending, (int) pieces + 1);
    atomic_init(&r->err, 0);
    r->counter = counter;
    r->peer = p;
    for (size_t i = 0; i < nsegs && rc == RMAIB_OK; i++) {
        uint64_t raddr, key;
        rc = data_target(w, p, segs[i].roff, segs[i].len, &raddr, &key);
        for (size_t done = 0; rc == RMAIB_OK && done < segs[i].len; done += ofi.max_msg) {
            size_t n = segs[i].len - done < ofi.max_msg ? segs[i].len - done : ofi.max_msg;
            rc = nread_post(r, p, (char *) segs[i].laddr + done, n, raddr + done, key);
            posted += rc == RMAIB_OK;
        }
    }
    if (rc != RMAIB_OK)
        atomic_store_explicit(&r->err, 1, memory_order_relaxed);
    nread_drop(r, (int) (1 + pieces - posted));     /* our hold, and the pieces never posted */
    free(cut);
    return rc;
}

int rmaib_ofi_get_notify(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n,
                         _Atomic uint64_t *counter)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int dyn = dyn_lock(w, p);
    int rc = get_notify(w, peer, segs, n, counter);
    dyn_unlock(p, dyn);
    return rc;
}

/* Every notified read to p has completed. */
void rmaib_ofi_nread_wait(ofi_win_t *o, ofi_peer_t *p)
{
    RMAIB_BACKOFF(bo);
    (void) o;
    for (;;) {                  /* done first, as rmaib_ofi_flush_peer */
        uint64_t d = atomic_load_explicit(&p->nread_done, memory_order_acquire);
        if (d == atomic_load_explicit(&p->nread_issued, memory_order_acquire))
            break;
        rmaib_backoff(&bo);
    }
}

/* A notified put's or accumulate's counter (MPIX_Put_notify): one round trip, not
 * a flush's and then the fetch-add's.  Ordering: the counter's request goes to the
 * target's mailbox as a write, and writes on one stream per peer are placed in the
 * order posted (FI_ORDER_RMA_WAW, waw_size unbounded: tcp;ofi_rxm, sockets), so the
 * target has placed the data before it reads the request, and the answer shows both.
 * The provider's own atomics keep the flush: no order between RMA writes and atomics
 * is offered at API 1.9 (rxm: RMA_WAW and ATOMIC_WAW only, and no FI_FENCE), nor
 * does an atomic or oversized write in flight (p->unordered) keep its place. */
int rmaib_ofi_notify_add(rmaib_win_t *w, int peer, size_t off)
{
    ofi_win_t *o = w->ofi;
    ofi_peer_t *p = ofi_peer(o, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int rc = RMAIB_OK;
    if (!o->amo || ofi.waw_size != SIZE_MAX || FLAG_GET(p->unordered))
        rc = rmaib_ofi_flush_peer(w, p);
    uint64_t old;
    return rc == RMAIB_OK ? rmaib_ofi_ctrl_atomic(w, peer, off, RMAIB_AOP_FADD, 1, 0, &old) : rc;
}
