/*
 * The ofi backend's atomics on the provider: control-block words (lock words,
 * counters) and elements of window data, blocking or left in flight; where the
 * window has mailboxes (amo.c) the target's CPU applies them instead.
 */
#include <string.h>
#include "ofi_impl.h"
#include "base/atomic_cpu.h"

enum { AT_PLAIN, AT_FETCH, AT_COMPARE };

/* An atomic whose completion a waiter counts: posted by atomic_start (the waiter's
 * pending count already includes it), its result read by atomic_finish once the
 * waiter has drained. */
typedef struct ofi_atomic_op {
    pool_blk_t *b;
    int kind;
    size_t bytes;
} ofi_atomic_op_t;

static int atomic_start(ofi_atomic_op_t *a, ofi_waiter_t *wt, ofi_peer_t *p, int kind,
                        uint64_t raddr, uint64_t key, enum fi_datatype dt, enum fi_op op,
                        size_t size, size_t count, const void *operand, const void *compare)
{
    size_t bytes = size * count;
    pool_blk_t *b = rmaib_ofi_pool_alloc(3 * bytes, NULL);
    char *opnd = blk_data(b), *cmp = opnd + bytes, *res = cmp + bytes;
    void *desc = ofi.pool_desc;
    ssize_t r;
    if (operand)
        memcpy(opnd, operand, bytes);
    else
        memset(opnd, 0, bytes);
    if (compare)
        memcpy(cmp, compare, bytes);
    if (kind == AT_PLAIN)
        POST(r, fi_atomic(ofi.ep, opnd, count, desc, p->addr, raddr, key, dt, op,
                          WAITER_CTX(wt)));
    else if (kind == AT_FETCH)
        POST(r, fi_fetch_atomic(ofi.ep, opnd, count, desc, res, desc, p->addr, raddr, key, dt, op,
                                WAITER_CTX(wt)));
    else
        POST(r, fi_compare_atomic(ofi.ep, opnd, count, desc, cmp, desc, res, desc, p->addr, raddr,
                                  key, dt, op, WAITER_CTX(wt)));
    if (r != 0) {
        pool_release(b);
        atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_relaxed);
        return rmaib_ofi_post_failed("atomic", r);
    }
    if (kind == AT_PLAIN && !ofi.delivery_complete) {
        FLAG_SET(p->unread);
        rmaib_ofi_touch(p);
    }
    *a = (ofi_atomic_op_t) { b, kind, bytes };
    return RMAIB_OK;
}

static void atomic_finish(ofi_atomic_op_t *a, void *result)
{
    if (result && a->kind != AT_PLAIN)
        memcpy(result, (char *) blk_data(a->b) + 2 * a->bytes, a->bytes);
    pool_release(a->b);
}

/* One blocking atomic of count elements of dt: operand (NULL for a read), compare
 * (AT_COMPARE only), result (AT_FETCH/AT_COMPARE) each of count * size bytes. */
static int atomic_blocking(ofi_peer_t *p, int kind, uint64_t raddr, uint64_t key,
                           enum fi_datatype dt, enum fi_op op, size_t size, size_t count,
                           const void *operand, const void *compare, void *result)
{
    ofi_waiter_t wt = { 1, 0 };
    ofi_atomic_op_t a = { 0 };
    int rc = atomic_start(&a, &wt, p, kind, raddr, key, dt, op, size, count, operand, compare);
    if (rc != RMAIB_OK)
        return rc;
    rc = wait_for(&wt);
    atomic_finish(&a, result);
    return rc;
}

static int ctrl64(ofi_peer_t *p, size_t off, int kind, enum fi_op op, uint64_t operand,
                  uint64_t compare, uint64_t *result)
{
    return atomic_blocking(p, kind, p->ctrl_raddr + off, p->ctrl_key, FI_UINT64, op, 8, 1,
                           &operand, &compare, result);
}

/* Swap by compare-swap where the provider has no fetching write. */
static int swap_by_cas(ofi_peer_t *p, size_t off, uint64_t v, uint64_t *result)
{
    uint64_t cur = 0, old;
    int rc = ctrl64(p, off, AT_FETCH, ofi.have_read ? FI_ATOMIC_READ : FI_SUM, 0, 0, &cur);
    while (rc == RMAIB_OK) {
        rc = ctrl64(p, off, AT_COMPARE, FI_CSWAP, v, cur, &old);
        if (rc != RMAIB_OK || old == cur)
            break;
        cur = old;
    }
    if (result)
        *result = cur;
    return rc;
}

/* Post a non-fetching atomic whose completion the target's flush counts; the
 * operand is copied into the ring first.
 *
 * A control-word atomic whose result nobody wants (an unlock's release, a lock_all
 * master's leave, an accumulate lock's release) stays in flight when the provider
 * orders atomics: the next atomic on the word from this process lands after it, and
 * window free flushes it first.  An unlock then costs the flush of its data, not two
 * more round trips.  Not on our own words that we read with plain loads (MCS nodes):
 * the provider does not order those loads after our atomics. */
static int atomic_post(ofi_peer_t *p, int ctrl, uint64_t raddr, uint64_t key,
                       enum fi_datatype dt, enum fi_op op, const void *operand, size_t count,
                       size_t bytes)
{
    ofi_peer_t *credit = (ofi_peer_t *) ((uintptr_t) p | (uintptr_t) (ctrl != 0));
    pool_blk_t *blk = rmaib_ofi_pool_alloc(bytes, credit);
    _Atomic uint64_t *issued = ctrl ? &p->ctrl_issued : &p->issued;
    ssize_t r;
    memcpy(blk_data(blk), operand, bytes);
    CNT_ADD(*issued, 1);
    POST(r, fi_atomic(ofi.ep, blk_data(blk), count, ofi.pool_desc, p->addr, raddr, key, dt, op,
                      blk));
    if (r != 0) {
        CNT_ADD(*issued, -1);
        pool_release(blk);
        return rmaib_ofi_post_failed("atomic", r);
    }
    if (!ctrl)
        FLAG_SET(p->unordered);     /* rxm applies an atomic after writes that follow it */
    if (!ofi.delivery_complete)
        FLAG_SET(p->unread);
    rmaib_ofi_touch(p);
    return RMAIB_OK;
}

int rmaib_ofi_ctrl_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                          uint64_t operand, uint64_t compare, uint64_t *result)
{
    ofi_win_t *o = w->ofi;
    ofi_peer_t *p = ofi_peer(o, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int may_stay = !result && (peer != w->rank || rmaib_ctrl_atomic_only(off))
        && (op == RMAIB_AOP_FADD || op == RMAIB_AOP_WRITE);
    if (o->amo) {
        int rc = may_stay ? rmaib_ofi_amo_issue(o, peer, off, op, operand, compare, NULL, NULL)
            : AMO_FULL;
        return rc != AMO_FULL ? rc
            : rmaib_ofi_amo_blocking(o, peer, off, op, operand, compare, result);
    }
    if (may_stay && ofi.atomic_ordered && (op == RMAIB_AOP_FADD || ofi.have_write))
        return atomic_post(p, 1, p->ctrl_raddr + off, p->ctrl_key, FI_UINT64,
                           op == RMAIB_AOP_FADD ? FI_SUM : FI_ATOMIC_WRITE, &operand, 1,
                           sizeof operand);
    switch (op) {
    case RMAIB_AOP_READ:
        return ctrl64(p, off, AT_FETCH, ofi.have_read ? FI_ATOMIC_READ : FI_SUM, 0, 0, result);
    case RMAIB_AOP_WRITE:
        if (ofi.have_write)
            return ctrl64(p, off, AT_PLAIN, FI_ATOMIC_WRITE, operand, 0, NULL);
        if (ofi.have_swap)
            return ctrl64(p, off, AT_FETCH, FI_ATOMIC_WRITE, operand, 0, NULL);
        return swap_by_cas(p, off, operand, NULL);
    case RMAIB_AOP_FADD:
        return ctrl64(p, off, AT_FETCH, FI_SUM, operand, 0, result);
    case RMAIB_AOP_SWAP:
        if (ofi.have_swap)
            return ctrl64(p, off, AT_FETCH, FI_ATOMIC_WRITE, operand, 0, result);
        return swap_by_cas(p, off, operand, result);
    case RMAIB_AOP_CAS:
        return ctrl64(p, off, AT_COMPARE, FI_CSWAP, operand, compare, result);
    }
    return RMAIB_ERR_INTERN;
}

/* An injected write: one message, no completion, no response; window free reads
 * behind it (rmaib_ofi_quiesce).  Without inject support or read-after-write order,
 * an ordinary write whose completion window free waits for.  It lands after the
 * writes issued before it (FI_ORDER_RMA_WAW), so only what it could overtake is
 * flushed first: a PSCW complete after puts costs one message, not a round trip and
 * a message. */
int rmaib_ofi_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    ssize_t r;
    if (FLAG_GET(p->unordered)) {
        int rc = rmaib_ofi_flush_peer(w, p);
        if (rc != RMAIB_OK)
            return rc;
    }
    /* The read behind it shows it placed only where reads follow writes. */
    if (ofi.inject_size >= sizeof value && ofi.raw_ordered) {
        RETRY(r, fi_inject_write(ofi.ep, &value, sizeof value, p->addr, p->ctrl_raddr + off,
                                 p->ctrl_key));
        if (r != 0)
            return rmaib_ofi_post_failed("store", r);
        FLAG_SET(p->stored);
        rmaib_ofi_touch(p);
        return RMAIB_OK;
    }
    pool_blk_t *b = rmaib_ofi_pool_alloc(sizeof value, (ofi_peer_t *) ((uintptr_t) p | 1));
    memcpy(blk_data(b), &value, sizeof value);
    CNT_ADD(p->ctrl_issued, 1);
    POST(r, fi_write(ofi.ep, blk_data(b), sizeof value, ofi.pool_desc, p->addr,
                     p->ctrl_raddr + off, p->ctrl_key, b));
    if (r != 0) {
        CNT_ADD(p->ctrl_issued, -1);
        pool_release(b);
        return rmaib_ofi_post_failed("store", r);
    }
    rmaib_ofi_touch(p);
    return RMAIB_OK;
}

int rmaib_ofi_ctrl_read(rmaib_win_t *w, int peer, size_t off, void *dst, size_t len)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    return rmaib_ofi_read_blocking(p, dst, len, p->ctrl_raddr + off, p->ctrl_key);
}

/* By type only (and the element's alignment, which every origin sees alike).  A
 * provider without atomics has the target's mailbox instead, on the types the CPU
 * does atomically (all or nothing per type, as rxm's table), outside dynamic windows,
 * whose memory the mailbox does not reach. */
int rmaib_ofi_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op)
{
    if ((unsigned) b >= RMAIB_BASIC_COUNT)
        return 0;
    if (ofi.amo_only ? w->flavor == RMAIB_FLAVOR_DYNAMIC || !rmaib_cpu_atomic_supported(b, op)
        : !ofi.native[b])
        return 0;
    uint64_t va = w->flavor == RMAIB_FLAVOR_DYNAMIC ? roff
        : rmaib_ofi_col(w->ofi, OFI_COL_DATA_VA, peer) + roff;
    return va % rmaib_basic_size(b) == 0;
}

static int data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    enum fi_datatype dt;
    enum fi_op fop;
    size_t es = rmaib_basic_size(b);
    uint64_t raddr, key;
    int rc = dyn_prepare(w, p);
    if (rc == RMAIB_OK)
        rc = data_target(w, p, roff, n * es, &raddr, &key);
    if (rc != RMAIB_OK)
        return rc;
    /* One fetched element by the target's CPU: an answered request costs what a
     * provider's atomic does at most, and rxm's over tcp costs more (see ofi.c).
     * rxm applies its atomics with the same CPU atomics (libfabric's __atomic
     * handlers), so elements it updates stay atomic with these; and a request waits
     * for its answer, so nothing sent later overtakes it.  A provider without
     * atomics sends every element this way (rmaib_ofi_acc_native said which). */
    ofi_win_t *o = w->ofi;
    int runs = n > 1 && (ofi.amo_only || n * es >= AMO_RUN_MIN);
    if (o->amo && (ofi.amo_only || runs || (fetch && n == 1))
        && w->flavor != RMAIB_FLAVOR_DYNAMIC && rmaib_cpu_atomic_supported(b, op)) {
        if (runs)
            return rmaib_ofi_amo_runs(w, o, peer, roff, b, op, operand, fetch, n);
        uint64_t in = 0, old = 0;
        if (operand)
            memcpy(&in, operand, es);
        rc = rmaib_ofi_amo_blocking(o, peer, roff, rmaib_amo_data_op(b, op), in, 0, &old);
        if (fetch)
            memcpy(fetch, &old, es);
        return rc;
    }
    if (!rmaib_ofi_map_datatype(b, &dt) || !rmaib_ofi_map_op(op, &fop))
        return RMAIB_ERR_INTERN;
    size_t lim = fetch ? ofi.count_f[b] : ofi.count_nf[b];
    if (lim > POOL_MAX / 3 / es)
        lim = POOL_MAX / 3 / es;
    /* A non-fetching atomic may stay in flight when the provider orders atomics and
     * the flush that ends the epoch comes to this backend: a peer reached by shm
     * for data gets its flush from shm, so atomics to it complete here. */
    int async = !fetch && operand && ofi.atomic_ordered && rmaib_peer(w, peer)->tp == &rmaib_ofi_ops;
    for (size_t done = 0; done < n && rc == RMAIB_OK; done += lim) {
        size_t k = n - done < lim ? n - done : lim;
        const char *in = operand ? (const char *) operand + done * es : NULL;
        if (async) {
            rc = atomic_post(p, 0, raddr + done * es, key, dt, fop, in, k, k * es);
        } else {
            rc = atomic_blocking(p, fetch ? AT_FETCH : AT_PLAIN, raddr + done * es, key, dt, fop,
                                 es, k, in, NULL, fetch ? (char *) fetch + done * es : NULL);
        }
    }
    return rc;
}

int rmaib_ofi_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int dyn = dyn_lock(w, p);
    int rc = data_atomic(w, peer, roff, b, op, operand, fetch, n);
    dyn_unlock(p, dyn);
    return rc;
}

static int data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    uint64_t raddr, key;
    int rc = dyn_prepare(w, p);
    if (rc == RMAIB_OK)
        rc = data_target(w, p, roff, size, &raddr, &key);
    if (rc != RMAIB_OK)
        return rc;
    ofi_win_t *o = w->ofi;
    if (o->amo && w->flavor != RMAIB_FLAVOR_DYNAMIC) {     /* as rmaib_ofi_data_atomic */
        uint64_t sw = 0, cmp = 0, old = 0;
        memcpy(&sw, swap, size);
        memcpy(&cmp, compare, size);
        rc = rmaib_ofi_amo_blocking(o, peer, roff, rmaib_amo_data_cas(size), sw, cmp, &old);
        memcpy(result, &old, size);
        return rc;
    }
    return atomic_blocking(p, AT_COMPARE, raddr, key, rmaib_ofi_uint_of_size(size), FI_CSWAP,
                           size, 1, swap, compare, result);
}

int rmaib_ofi_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result)
{
    ofi_peer_t *p = ofi_peer(w->ofi, peer);
    if (!p)
        return RMAIB_ERR_NO_MEM;
    int dyn = dyn_lock(w, p);
    int rc = data_cas(w, peer, roff, size, compare, swap, result);
    dyn_unlock(p, dyn);
    return rc;
}
