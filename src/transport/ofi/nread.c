/*
 * The ofi backend's notified read (MPIX_Get_notify_local): the read is posted and
 * the call returns; whoever reads the completion queue grows the caller's counter
 * once the read's last piece has completed.
 *
 * Ordering: a read's completion is written only once its data is placed in our
 * buffer; the counter grows after it with release order and is read with acquire,
 * so whoever sees the count sees the bytes.
 */
#include <stdlib.h>
#include <rdma/fi_rma.h>
#include "ofi_impl.h"

/* One notified read in flight; its address tagged with bit 1 is its pieces' context.
 * pending holds one more than the pieces in flight while the poster still posts. */
typedef struct ofi_nread {
    _Atomic int pending;
    _Atomic int err;
    _Atomic uint64_t *counter;
    ofi_peer_t *peer;
} ofi_nread_t;

#define NREAD_CTX(r) ((void *) ((uintptr_t) (r) | 2))

static void nread_drop(ofi_nread_t *r, int n)
{
    if (atomic_fetch_sub_explicit(&r->pending, n, memory_order_acq_rel) != n)
        return;
    if (!atomic_load_explicit(&r->err, memory_order_relaxed))
        atomic_fetch_add_explicit(r->counter, 1, memory_order_release);
    free(r);
}

/* A piece completed (cq.c).  The peer is credited last: once its count is whole
 * the window may go, and the counter lives in it. */
void rmaib_ofi_nread_complete(void *ctx, int err)
{
    ofi_nread_t *r = (ofi_nread_t *) ((uintptr_t) ctx & ~(uintptr_t) 3);
    ofi_peer_t *p = r->peer;
    if (err) {
        atomic_store_explicit(&r->err, err, memory_order_relaxed);
        atomic_store_explicit(&p->err, err, memory_order_relaxed);
    }
    nread_drop(r, 1);
    atomic_fetch_add_explicit(&p->nread_done, 1, memory_order_release);
}

int rmaib_ofi_get_notify(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len,
                         _Atomic uint64_t *counter)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    uint64_t raddr, key;
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC || ofi.mr_local) {   /* rare: blocking */
        int rc = rmaib_ofi_get(w, peer, roff, dst, len);
        if (rc == RMAIB_OK)
            atomic_fetch_add_explicit(counter, 1, memory_order_release);
        return rc;
    }
    int rc = data_target(w, p, roff, len, &raddr, &key);
    ofi_nread_t *r = rc == RMAIB_OK ? malloc(sizeof *r) : NULL;
    if (!r)
        return rc == RMAIB_OK ? RMAIB_ERR_NO_MEM : rc;
    int pieces = (int) ((len + ofi.max_msg - 1) / ofi.max_msg), posted = 0;
    atomic_init(&r->pending, pieces + 1);
    atomic_init(&r->err, 0);
    r->counter = counter;
    r->peer = p;
    for (size_t done = 0; done < len; done += ofi.max_msg, posted++) {
        size_t n = len - done < ofi.max_msg ? len - done : ofi.max_msg;
        ssize_t x;
        p->nread_issued++;
        POST(x, fi_read(ofi.ep, (char *) dst + done, n, ofi.pool_desc, p->addr, raddr + done,
                        key, NREAD_CTX(r)));
        if (x != 0) {
            p->nread_issued--;
            atomic_store_explicit(&r->err, 1, memory_order_relaxed);
            rc = rmaib_ofi_post_failed("get", x);
            break;
        }
    }
    nread_drop(r, 1 + pieces - posted);     /* our hold, and the pieces never posted */
    return rc;
}

/* Every notified read to p (or to every peer, p NULL) has completed. */
void rmaib_ofi_nread_wait(ofi_win_t *o, ofi_peer_t *p)
{
    for (int i = 0; i < o->nranks; i++) {
        ofi_peer_t *q = p ? p : &o->peers[i];
        RMAIB_BACKOFF(bo);
        while (atomic_load_explicit(&q->nread_done, memory_order_acquire) != q->nread_issued)
            rmaib_backoff(&bo);
        if (p)
            break;
    }
}

/* A notified put's or accumulate's counter (MPIX_Put_notify): one round trip, not
 * a flush's and then the fetch-add's.  Ordering: where the provider keeps RMA and
 * atomic writes in order (FI_ORDER_WAW) on one stream per peer, the target places
 * the writes before it reads the counter's request (a mailbox write, or rxm's atomic
 * message) off that stream, so the answer shows both done.  An atomic or an
 * oversized write issued before (p->unordered) may still land later: flush first,
 * as everywhere the provider does not order (FI_FENCE is no help: rxm lacks it). */
int rmaib_ofi_notify_add(rmaib_win_t *w, int peer, size_t off)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    int rc = RMAIB_OK;
    if (!ofi.notify_ordered || p->unordered)
        rc = rmaib_ofi_flush_peer(w, p);
    uint64_t old;
    return rc == RMAIB_OK ? rmaib_ofi_ctrl_atomic(w, peer, off, RMAIB_AOP_FADD, 1, 0, &old) : rc;
}
