/*
 * The ofi backend's data movement: put and get (contiguous and vectors of pieces),
 * and the flush that waits for a target's completions.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "ofi_impl.h"

/* Post one read of n bytes at (raddr, key) of p into to, counted in wt. */
int rmaib_ofi_read_post(ofi_peer_t *p, void *to, size_t n, uint64_t raddr, uint64_t key,
                        ofi_waiter_t *wt)
{
    ssize_t r;
    atomic_fetch_add_explicit(&wt->pending, 1, memory_order_relaxed);
    POST(r, fi_read(ofi.ep, to, n, ofi.pool_desc, p->addr, raddr, key, WAITER_CTX(wt)));
    if (r == 0)
        return RMAIB_OK;
    atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_relaxed);
    return rmaib_ofi_post_failed("get", r);
}

/* Read len bytes at (raddr, key) of p into dst and wait.  Without FI_MR_LOCAL the
 * pieces land in dst directly and are all in flight together; with it each goes
 * through a ring block. */
int rmaib_ofi_read_blocking(ofi_peer_t *p, void *dst, size_t len, uint64_t raddr,
                            uint64_t key)
{
    ofi_waiter_t wt = { 0, 0 };
    int rc = RMAIB_OK;
    for (size_t done = 0; done < len && rc == RMAIB_OK; done += ofi.max_msg) {
        size_t n = len - done < ofi.max_msg ? len - done : ofi.max_msg;
        pool_blk_t *b = ofi.mr_local ? rmaib_ofi_pool_alloc(n, NULL) : NULL;
        char *to = b ? blk_data(b) : (char *) dst + done;
        rc = rmaib_ofi_read_post(p, to, n, raddr + done, key, &wt);
        if (b) {
            rc = rmaib_first_error(rc, wait_for(&wt));
            if (rc == RMAIB_OK)
                memcpy((char *) dst + done, to, n);
            pool_release(b);
        }
    }
    return rmaib_first_error(rc, wait_for(&wt));
}

/* Every write goes with fi_writemsg and these flags, not with fi_write: net 1.17's
 * fi_write drops FI_DELIVERY_COMPLETE, reporting a write complete once sent
 * (docs/performance.md), where fi_writemsg passes its flags down.
 * In a PSCW access epoch nothing waits for delivery: MPI_Win_complete completes the
 * puts at the origin only, and the target learns of them from the complete, which
 * follows them in order (rmaib_ofi_ctrl_store).  There, where a trailing read can stand in
 * should a flush be needed after all, the writes go without the target's
 * acknowledgement, one message fewer each. */
static uint64_t write_flags(const rmaib_win_t *w)
{
    int dc = ofi.delivery_complete && !(rmaib_access(w) == RMAIB_ACCESS_START && ofi.raw_ordered);
    return FI_COMPLETION | (dc ? FI_DELIVERY_COMPLETE : 0);
}

/* Write len bytes of src to (raddr, key) of p through ring blocks, so src is free
 * again on return; counted in p->issued for the flush, and in p->unread if the
 * writes go without FI_DELIVERY_COMPLETE. */
int rmaib_ofi_write_copied(const rmaib_win_t *w, ofi_peer_t *p, uint64_t raddr, uint64_t key,
                           const void *src, size_t len)
{
    uint64_t flags = write_flags(w);
    for (size_t done = 0; done < len; done += ofi.max_msg) {
        size_t n = len - done < ofi.max_msg ? len - done : ofi.max_msg;
        pool_blk_t *b = rmaib_ofi_pool_alloc(n, p);
        ssize_t r;
        memcpy(blk_data(b), (const char *) src + done, n);
        struct iovec iov = { blk_data(b), n };
        void *desc = ofi.pool_desc;
        struct fi_rma_iov riov = { raddr + done, n, key };
        struct fi_msg_rma msg = {
            .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = p->addr,
            .rma_iov = &riov, .rma_iov_count = 1, .context = b,
        };
        CNT_ADD(p->issued, 1);
        POST(r, fi_writemsg(ofi.ep, &msg, flags));
        if (r != 0) {
            CNT_ADD(p->issued, -1);
            pool_release(b);
            return rmaib_ofi_post_failed("put", r);
        }
        if (!(flags & FI_DELIVERY_COMPLETE))
            FLAG_SET(p->unread);
        rmaib_ofi_touch(p);
    }
    return RMAIB_OK;
}

static int put_one(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, const void *src, size_t len)
{
    uint64_t raddr, key;
    int rc = data_target(w, p, roff, len, &raddr, &key);
    if (rc == RMAIB_OK)
        rc = rmaib_ofi_write_copied(w, p, raddr, key, src, len);
    if (rc == RMAIB_OK && len > ofi.waw_size) {
        FLAG_SET(p->unordered);
        rmaib_ofi_touch(p);
    }
    return rc;
}

int rmaib_ofi_put(rmaib_win_t *w, int peer, uint64_t roff, const void *src, size_t len)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC) {   /* may cross a region end */
        rmaib_seg_t seg = { roff, (void *) src, len };
        return rmaib_ofi_putv(w, peer, &seg, 1);
    }
    return put_one(w, p, roff, src, len);
}

static int putv(rmaib_win_t *w, int peer, const rmaib_seg_t *user_segs, size_t user_n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    uint64_t flags = write_flags(w);
    const rmaib_seg_t *segs = user_segs;
    rmaib_seg_t *cut = NULL;
    size_t nsegs = user_n;
    int rc = rmaib_ofi_dyn_cut(w, p, user_segs, user_n, &segs, &nsegs, &cut);
    size_t i = 0;
    while (rc == RMAIB_OK && i < nsegs) {
        if (segs[i].len > ofi.max_msg) {        /* a long piece goes on its own */
            rc = put_one(w, p, segs[i].roff, segs[i].laddr, segs[i].len);
            i++;
            continue;
        }
        /* Gather up to rma_iov_max pieces into one ring block: one local iovec,
         * several remote ones. */
        struct fi_rma_iov riov[BATCH_IOV];
        size_t k = 0, total = 0;
        while (i + k < nsegs && k < ofi.rma_iov_max && total + segs[i + k].len <= ofi.max_msg) {
            rc = data_target(w, p, segs[i + k].roff, segs[i + k].len, &riov[k].addr, &riov[k].key);
            if (rc != RMAIB_OK)
                break;
            riov[k].len = segs[i + k].len;
            total += segs[i + k].len;
            k++;
        }
        if (rc != RMAIB_OK)
            break;
        pool_blk_t *b = rmaib_ofi_pool_alloc(total, p);
        char *d = blk_data(b);
        for (size_t j = 0; j < k; j++) {
            memcpy(d, segs[i + j].laddr, segs[i + j].len);
            d += segs[i + j].len;
        }
        struct iovec iov = { blk_data(b), total };
        void *desc = ofi.pool_desc;
        struct fi_msg_rma msg = {
            .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = p->addr,
            .rma_iov = riov, .rma_iov_count = k, .context = b,
        };
        ssize_t r;
        CNT_ADD(p->issued, 1);
        POST(r, fi_writemsg(ofi.ep, &msg, flags));
        if (r != 0) {
            CNT_ADD(p->issued, -1);
            pool_release(b);
            rc = rmaib_ofi_post_failed("put", r);
            break;
        }
        if (total > ofi.waw_size)
            FLAG_SET(p->unordered);
        i += k;
    }
    if (rc == RMAIB_OK && !(flags & FI_DELIVERY_COMPLETE))
        FLAG_SET(p->unread);
    if (i > 0)
        rmaib_ofi_touch(p);
    free(cut);
    return rc;
}

int rmaib_ofi_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int dyn = dyn_lock(w, p);
    int rc = putv(w, peer, segs, n);
    dyn_unlock(p, dyn);
    return rc;
}

/* Gets are blocking: the core uses what it fetched at once (the locked accumulate
 * path), so the data is there when get returns.  A get shows the writes posted
 * before it placed, as a flush's trailing read does: the flag is taken before the
 * read goes out, so a write another thread posts meanwhile keeps it set. */
static int get_one(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, void *dst, size_t len)
{
    uint64_t raddr, key;
    int rc = data_target(w, p, roff, len, &raddr, &key);
    if (rc == RMAIB_OK) {
        int unread = FLAG_TAKE(p->unread);
        rc = rmaib_ofi_read_blocking(p, dst, len, raddr, key);
        if (rc != RMAIB_OK && unread) {
            FLAG_SET(p->unread);
            rmaib_ofi_touch(p);
        }
    }
    return rc;
}

int rmaib_ofi_get(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC) {   /* may cross a region end */
        rmaib_seg_t seg = { roff, dst, len };
        return rmaib_ofi_getv(w, peer, &seg, 1);
    }
    return get_one(w, p, roff, dst, len);
}

/* Batches of pieces, each one fi_readmsg straight into the user's memory, up to 64
 * batches in flight before one wait.  With FI_MR_LOCAL, piece by piece through the
 * ring. */
static int getv(rmaib_win_t *w, int peer, const rmaib_seg_t *user_segs, size_t user_n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    const rmaib_seg_t *segs = user_segs;
    rmaib_seg_t *cut = NULL;
    size_t nsegs = user_n;
    int rc = rmaib_ofi_dyn_cut(w, p, user_segs, user_n, &segs, &nsegs, &cut);
    int unread = FLAG_TAKE(p->unread);     /* as get_one */
    size_t i = 0;
    while (rc == RMAIB_OK && i < nsegs) {
        if (segs[i].len > ofi.max_msg || ofi.mr_local) {
            rc = get_one(w, p, segs[i].roff, segs[i].laddr, segs[i].len);
            i++;
            continue;
        }
        ofi_waiter_t wt = { 0, 0 };
        size_t posted = 0;
        while (i < nsegs && posted < 64 && segs[i].len <= ofi.max_msg) {
            struct fi_rma_iov riov[BATCH_IOV];
            struct iovec iov[BATCH_IOV];
            size_t k = 0, total = 0, lim = ofi.iov_max < ofi.rma_iov_max ? ofi.iov_max
                : ofi.rma_iov_max;
            while (i + k < nsegs && k < lim && total + segs[i + k].len <= ofi.max_msg) {
                rc = data_target(w, p, segs[i + k].roff, segs[i + k].len, &riov[k].addr,
                                 &riov[k].key);
                if (rc != RMAIB_OK)
                    break;
                riov[k].len = iov[k].iov_len = segs[i + k].len;
                iov[k].iov_base = segs[i + k].laddr;
                total += segs[i + k].len;
                k++;
            }
            if (rc != RMAIB_OK || k == 0)
                break;
            struct fi_msg_rma msg = {
                .msg_iov = iov, .desc = NULL, .iov_count = k, .addr = p->addr,
                .rma_iov = riov, .rma_iov_count = k, .context = WAITER_CTX(&wt),
            };
            ssize_t r;
            atomic_fetch_add_explicit(&wt.pending, 1, memory_order_relaxed);
            POST(r, fi_readmsg(ofi.ep, &msg, FI_COMPLETION));
            if (r != 0) {
                atomic_fetch_sub_explicit(&wt.pending, 1, memory_order_relaxed);
                rc = rmaib_ofi_post_failed("get", r);
                break;
            }
            posted++;
            i += k;
        }
        rc = rmaib_first_error(rc, wait_for(&wt));
    }
    if (rc != RMAIB_OK && unread) {
        FLAG_SET(p->unread);
        rmaib_ofi_touch(p);
    }
    free(cut);
    return rc;
}

int rmaib_ofi_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int dyn = dyn_lock(w, p);
    int rc = getv(w, peer, segs, n);
    dyn_unlock(p, dyn);
    return rc;
}

int rmaib_ofi_flush_peer(rmaib_win_t *w, ofi_peer_t *p)
{
    RMAIB_BACKOFF(bo);
    /* Without delivery completion a read behind the writes shows them placed
     * (FI_ORDER_RAW).  It goes out before we wait for the writes' own completions,
     * so the two waits overlap: where writes complete once sent, waiting for them
     * first made a put+flush cost two trips through the target's progress thread. */
    uint64_t dummy;
    ofi_waiter_t wt = { 0, 0 };
    int rc = RMAIB_OK;
    rmaib_ofi_nread_wait(w->ofi, p);
    /* The flags go before the read is posted: what another thread posts meanwhile
     * sets them again for its own flush. */
    int unread = FLAG_TAKE(p->unread), early = unread && !ofi.mr_local;
    if (unread)
        atomic_store_explicit(&p->stored, 0, memory_order_relaxed);
    atomic_store_explicit(&p->unordered, 0, memory_order_relaxed);
    if (early)
        rc = rmaib_ofi_read_post(p, &dummy, sizeof dummy, p->ctrl_raddr, p->ctrl_key, &wt);
    /* done is read first and never passes issued (counted before the post): equal,
     * nothing counted by then is in flight, whichever thread posted it. */
    for (;;) {
        uint64_t d = atomic_load_explicit(&p->done, memory_order_acquire);
        if (d == atomic_load_explicit(&p->issued, memory_order_acquire))
            break;
        rmaib_backoff(&bo);
    }
    if (early)
        rc = rmaib_first_error(rc, wait_for(&wt));
    else if (unread)            /* FI_MR_LOCAL: the read lands in a ring block */
        rc = rmaib_ofi_read_blocking(p, &dummy, sizeof dummy, p->ctrl_raddr, p->ctrl_key);
    if (atomic_exchange_explicit(&p->err, 0, memory_order_relaxed))
        rc = RMAIB_ERR_TRANSPORT;
    return rc;
}

/* Has p anything outstanding that a flush, flush_local or quiesce would see to? */
static int peer_busy(ofi_peer_t *p)
{
    if (CNT_GET(p->issued) != atomic_load_explicit(&p->done, memory_order_acquire)
        || CNT_GET(p->ctrl_issued) != atomic_load_explicit(&p->ctrl_done, memory_order_acquire)
        || CNT_GET(p->nread_issued) != atomic_load_explicit(&p->nread_done, memory_order_acquire)
        || FLAG_GET(p->unread) || FLAG_GET(p->stored) || FLAG_GET(p->unordered)
        || atomic_load_explicit(&p->err, memory_order_relaxed))
        return 1;
    ofi_peer_amo_t *a = atomic_load_explicit(&p->amo, memory_order_acquire);
    if (!a)
        return 0;
    pthread_mutex_lock(&a->amo_lock);
    int busy = a->amo_busy != 0;
    pthread_mutex_unlock(&a->amo_lock);
    return busy;
}

/* fn on every peer of the touched list, each taken off it first and put back if
 * still busy after: an issuer's touch either comes after our exchange (and lists
 * the peer again) or before it, when the exchange shows us its work.  One walker at
 * a time, so a second flush(-1) waits for what the first took off the list. */
int rmaib_ofi_walk(rmaib_win_t *w, int (*fn)(rmaib_win_t *, ofi_peer_t *, void *), void *arg)
{
    ofi_win_t *o = w->ofi;
    int rc = RMAIB_OK;
    pthread_mutex_lock(&o->walk_lock);
    ofi_peer_t *p = atomic_exchange(&o->touched, NULL);
    while (p) {
        ofi_peer_t *next = p->touched_next;    /* before a touch may link p anew */
        atomic_exchange(&p->listed, 0);
        rc = rmaib_first_error(rc, fn(w, p, arg));
        if (peer_busy(p))
            rmaib_ofi_touch(p);
        p = next;
    }
    pthread_mutex_unlock(&o->walk_lock);
    return rc;
}

static int flush_one(rmaib_win_t *w, ofi_peer_t *p, void *arg)
{
    (void) arg;
    return rmaib_ofi_flush_peer(w, p);
}

int rmaib_ofi_flush(rmaib_win_t *w, int peer)
{
    ofi_win_t *o = w->ofi;
    if (peer >= 0) {
        ofi_peer_t *p = rmaib_ofi_peer_find(o, peer);   /* none: never touched */
        return p ? rmaib_ofi_flush_peer(w, p) : RMAIB_OK;
    }
    return rmaib_ofi_walk(w, flush_one, NULL);
}

/* Injected control stores have no completion: one read behind them (FI_ORDER_RMA_RAW)
 * per target written shows them placed, all the reads in flight at once (in ring
 * blocks of at most POOL_MAX bytes).  Else a late one (a collective's last
 * acknowledgement, which nobody waits for) reaches a target that has passed the
 * barrier and closed the region: net and tcp;ofi_rxm then refuse the write ("invalid
 * rma iov") and drop the connection with what follows it, the next window's first
 * writes, and the target waits for ever. */
typedef struct behind_batch {
    pool_blk_t *b;
    size_t n;
    ofi_waiter_t wt;
    int rc;
} behind_batch_t;

static void behind_drain(behind_batch_t *bb)
{
    if (!bb->b)
        return;
    bb->rc = rmaib_first_error(bb->rc, wait_for(&bb->wt));
    pool_release(bb->b);
    bb->b = NULL;
    bb->n = 0;
}

static int read_behind_one(rmaib_win_t *w, ofi_peer_t *p, void *arg)
{
    behind_batch_t *bb = arg;
    (void) w;
    if (!atomic_exchange_explicit(&p->stored, 0, memory_order_relaxed))
        return RMAIB_OK;
    if (bb->n == POOL_MAX / 8)
        behind_drain(bb);
    if (!bb->b)
        bb->b = rmaib_ofi_pool_alloc(POOL_MAX, NULL);
    char *buf = (char *) blk_data(bb->b) + 8 * bb->n++;
    return rmaib_ofi_read_post(p, buf, 8, p->ctrl_raddr, p->ctrl_key, &bb->wt);
}

static int read_behind_stores(rmaib_win_t *w)
{
    behind_batch_t bb = { NULL, 0, { 0, 0 }, RMAIB_OK };
    int rc = rmaib_ofi_walk(w, read_behind_one, &bb);
    behind_drain(&bb);
    return rmaib_first_error(rc, bb.rc);
}

/* Window free's per-peer part: the one-way mailbox requests served, and the
 * control-word atomics left in flight landed. */
static int quiesce_one(rmaib_win_t *w, ofi_peer_t *p, void *arg)
{
    (void) arg;
    ofi_win_t *o = w->ofi;
    int rc = o->amo ? rmaib_ofi_amo_quiesce(o, p) : RMAIB_OK;
    RMAIB_BACKOFF(bo);
    for (;;) {              /* done first, as rmaib_ofi_flush_peer */
        uint64_t d = atomic_load_explicit(&p->ctrl_done, memory_order_acquire);
        if (d == atomic_load_explicit(&p->ctrl_issued, memory_order_acquire))
            break;
        rmaib_backoff(&bo);
    }
    return rc;
}

/* Window free: the control-word atomics left in flight land too (and the data, and
 * the injected stores).  Every step runs whatever an earlier one reported: the peers'
 * records go after this, and an operation still posted would complete into freed
 * memory. */
int rmaib_ofi_quiesce(rmaib_win_t *w)
{
    int rc = rmaib_ofi_walk(w, quiesce_one, NULL);
    rc = rmaib_first_error(rc, rmaib_ofi_flush(w, -1));
    return rmaib_first_error(rc, read_behind_stores(w));
}

static int flush_local_one(rmaib_win_t *w, ofi_peer_t *p, void *arg)
{
    (void) arg;
    rmaib_ofi_nread_wait(w->ofi, p);
    return RMAIB_OK;
}

/* Puts are copied out when they return, and everything else is blocking but the
 * notified reads. */
int rmaib_ofi_flush_local(rmaib_win_t *w, int peer)
{
    ofi_win_t *o = w->ofi;
    if (peer >= 0) {
        ofi_peer_t *p = rmaib_ofi_peer_find(o, peer);
        if (p)
            rmaib_ofi_nread_wait(o, p);
        return RMAIB_OK;
    }
    return rmaib_ofi_walk(w, flush_local_one, NULL);
}
