/*
 * Notified access: Put, Get and Accumulate that add one to a notification counter
 * once their data has landed (or been read), the notified read that grows the
 * reader's own counter, and the calls that size, read, reset and wait on counters.
 *
 * Counters are 64-bit words at the end of every rank's control block
 * (rmaib_ctrl_notify_off), as many per rank as the window's maximum.  They are
 * atomic-only words: every increment, read and reset goes through the window's
 * atomics transport (rmaib_ctrl_op), so CPU and network atomics never meet on one.
 *
 * Ordering.  A notified call moves its data through the peer's transport, completes
 * it, and only then issues the fetch-add, waiting for its answer; so no counter ever
 * runs ahead of its data and nothing is left in flight when the call returns (no
 * deferred notification for a flush, unlock or free to finish).  Per backend:
 *  - shm: the data is a memcpy (or process_vm_writev, done when it returns); the
 *    flush is a release fence, the counter a CPU fetch-add: data, fence, counter.
 *  - ofi: where the provider orders RMA and atomic writes on one stream per peer
 *    (tcp;ofi_rxm, sockets), the fetch-add follows the writes at once and its answer
 *    shows them placed (rmaib_ofi_notify_add); elsewhere the flush waits for their
 *    delivery (or a read behind them, FI_ORDER_RAW) first.  A get is complete when
 *    its data is in our buffer, so the target's copy was read; then the fetch-add
 *    (a read's response may still be leaving the target when a request behind it is
 *    served, so the two are not sent together).
 *  - mixed: shm moves the data to a peer on our node and the network's atomic
 *    follows it; our CPU wrote the data before the atomic's request went out.
 *
 * The notified read (get_notify_local) is the exception: it returns once its read
 * is posted, and its counter is a process-local word beside the control block's
 * (w->notify_local; a counter's value is the sum of the two), grown by whoever
 * completes the read.  shm copies, then adds; ofi adds from the read's completion
 * (rmaib_ofi_get_notify), which the provider reports only once the data is placed.
 */
#include <stdlib.h>
#include "rma_impl.h"
#include "rmaib_host.h"

static size_t notify_off(const rmaib_win_t *w, int idx)
{
    return rmaib_ctrl_notify_off(w->ctrl_pscw, idx);
}

static int idx_ok(const rmaib_win_t *w, int rank, int idx)
{
    return idx >= 0 && idx < rmaib_peer_notify_num(w, rank) ? RMAIB_OK : RMAIB_ERR_RMA_NOTIFY;
}

/* Checks before any data moves: a bad index writes nothing. */
static int notify_prepare(rmaib_win_t *w, int target, int counter_rank, int idx)
{
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    return idx_ok(w, counter_rank, idx);
}

/* One added to counter idx of rank, answered: it has taken effect on return. */
static int notify_add(rmaib_win_t *w, int rank, int idx)
{
    uint64_t old;
    return rmaib_ctrl_op(w, rank, notify_off(w, idx), RMAIB_AOP_FADD, 1, 0, &old);
}

/* The counter of a put or accumulate, after its data: a backend that carries both
 * the data and the counter to target orders them itself (ofi: one round trip where
 * the provider does); otherwise the data is flushed first. */
static int notify_after_data(rmaib_win_t *w, int target, int idx)
{
    const rmaib_tp_ops_t *tp = rmaib_peer(w, target)->tp;
    if (tp->notify_add && w->atp == tp && !rmaib_peer(w, target)->ctrl_mapped) {
        rmaib_stat_add(w, &w->stat_remote_ops, target != w->rank);
        return tp->notify_add(w, target, notify_off(w, idx));
    }
    int rc = rmaib_flush_target(w, target);
    return rc == RMAIB_OK ? notify_add(w, target, idx) : rc;
}

int rmaib_put_notify(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                     int idx, int flags)
{
    int rc = notify_prepare(w, target, target, idx);
    if (rc == RMAIB_OK)
        rc = rmaib_put(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
    /* The data is in the target's memory before the counter moves (shm: a store
     * fence; ofi: ordered on the wire or delivery complete), so a reader that sees the
     * counter sees the data. */
    return rc == RMAIB_OK ? notify_after_data(w, target, idx) : rc;
}

int rmaib_accumulate_notify(rmaib_win_t *w, const void *obuf, size_t ocount,
                            const rmaib_layout_t *ol, int target, int64_t tdisp, size_t tcount,
                            const rmaib_layout_t *tl, rmaib_op_t op, int idx, int flags)
{
    int rc = notify_prepare(w, target, target, idx);
    if (rc == RMAIB_OK)
        rc = rmaib_accumulate(w, obuf, ocount, ol, target, tdisp, tcount, tl, op, flags);
    /* Native atomics went through the atomics transport and locked updates through
     * the data one; the fetching ones are done, those left in flight (ofi) are flushed
     * by notify_add (p->unordered), as the locked path's puts are by its unlock. */
    return rc == RMAIB_OK ? notify_after_data(w, target, idx) : rc;
}

/* A get whose counter lives on rank counter (the target, or ourselves). */
static int get_notify(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                      int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                      int counter, int idx, int flags)
{
    int rc = notify_prepare(w, target, counter, idx);
    if (rc == RMAIB_OK)
        rc = rmaib_get(w, obuf, ocount, ol, target, tdisp, tcount, tl, flags);
    /* Local completion: the data is in our buffer, so the target's bytes have been
     * read (the target may reuse them) and we may read ours once the counter says so. */
    if (rc == RMAIB_OK)
        rc = rmaib_peer(w, target)->tp->flush_local(w, target);
    return rc == RMAIB_OK ? notify_add(w, counter, idx) : rc;
}

int rmaib_get_notify(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                     int idx, int flags)
{
    return get_notify(w, obuf, ocount, ol, target, tdisp, tcount, tl, target, idx, flags);
}

int rmaib_get_notify_local(rmaib_win_t *w, void *obuf, size_t ocount, const rmaib_layout_t *ol,
                           int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                           int idx, int flags)
{
    int rc = notify_prepare(w, target, w->rank, idx);
    return rc != RMAIB_OK ? rc : rmaib_get_counted(w, obuf, ocount, ol, target, tdisp, tcount,
                                                    tl, flags, &w->notify_local[idx]);
}

/* Our counters' local share, as many words as we have counters, all zero.  Reads
 * still in flight would complete into the old array: everything issued lands first. */
static int local_counters(rmaib_win_t *w, int num)
{
    int rc = rmaib_flush_issued(w);
    if (rc != RMAIB_OK)
        return rc;
    _Atomic uint64_t *fresh = calloc(num > 0 ? (size_t) num : 1, sizeof(uint64_t));
    if (!fresh)
        return RMAIB_ERR_NO_MEM;
    free((void *) w->notify_local);
    w->notify_local = fresh;
    return RMAIB_OK;
}

/* Collective.  Our counters are zeroed before we join the exchange, and no peer
 * notifies us before it has left it, so no notification of the new era is lost.
 * Every rank learns every rank's status, so all fail alike. */
int rmaib_win_set_num_notify(rmaib_win_t *w, int num)
{
    struct {
        int32_t status, num;
    } mine = { RMAIB_OK, num }, *all = malloc(sizeof *all * (size_t) w->nranks);
    if (!all) {                 /* cannot join the exchange: give up loudly */
        rmaib_host_say("rmaib: out of memory in MPIX_Win_set_num_notify");
        return RMAIB_ERR_NO_MEM;
    }
    /* Each rank's count is kept only where they differ; the room for them is made
     * before the exchange, so that no rank fails alone after it. */
    int32_t *nums = w->dir.notify_nums ? w->dir.notify_nums
        : malloc(sizeof *nums * (size_t) w->nranks);
    if (!nums)
        mine.status = RMAIB_ERR_NO_MEM;
    else if (w->access != RMAIB_ACCESS_NONE && w->access != RMAIB_ACCESS_FENCE_ISSUED)
        mine.status = RMAIB_ERR_RMA_SYNC;
    else if (num < 0 || num > w->notify_max)
        mine.status = RMAIB_ERR_RMA_NOTIFY;
    int old_num = rmaib_peer_notify_num(w, w->rank);
    int nzero = num > old_num ? num : old_num;
    if (mine.status == RMAIB_OK)
        mine.status = local_counters(w, nzero);
    for (int i = 0; mine.status == RMAIB_OK && i < nzero; i++) {
        uint64_t old;
        mine.status = rmaib_ctrl_op(w, w->rank, notify_off(w, i), RMAIB_AOP_SWAP, 0, 0, &old);
    }
    int rc = rmaib_host_allgather(w->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < w->nranks; r++)
        rc = all[r].status;
    int same = 1;
    for (int r = 0; rc == RMAIB_OK && r < w->nranks; r++) {
        nums[r] = all[r].num;
        same &= all[r].num == all[0].num;
    }
    if (rc != RMAIB_OK) {
        if (nums != w->dir.notify_nums)
            free(nums);
    } else if (same) {
        free(nums);
        w->dir.notify_nums = NULL;
        w->dir.notify_num = all[0].num;
    } else {
        w->dir.notify_nums = nums;
    }
    free(all);
    return rc;
}

int rmaib_win_get_num_notify(rmaib_win_t *w, int target, int *num)
{
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    *num = rmaib_peer_notify_num(w, target);
    return RMAIB_OK;
}

int rmaib_win_max_notify(const rmaib_win_t *w)
{
    return w->notify_max;
}

static int own_read(rmaib_win_t *w, int idx, uint64_t *value)
{
    int rc = rmaib_ctrl_op(w, w->rank, notify_off(w, idx), RMAIB_AOP_READ, 0, 0, value);
    *value += atomic_load_explicit(&w->notify_local[idx], memory_order_acquire);
    return rc;
}

int rmaib_win_get_notify_value(rmaib_win_t *w, int idx, uint64_t *value)
{
    int rc = idx_ok(w, w->rank, idx);
    return rc == RMAIB_OK ? own_read(w, idx, value) : rc;
}

/* Swaps with zero, of either share: of several consumers racing, exactly one takes
 * each increment. */
int rmaib_win_reset_notify_value(rmaib_win_t *w, int idx, uint64_t *old)
{
    int rc = idx_ok(w, w->rank, idx);
    if (rc == RMAIB_OK)
        rc = rmaib_ctrl_op(w, w->rank, notify_off(w, idx), RMAIB_AOP_SWAP, 0, 0, old);
    if (rc == RMAIB_OK)
        *old += atomic_exchange_explicit(&w->notify_local[idx], 0, memory_order_acquire);
    return rc;
}

/* The backoff serves the backends every round: a software provider moves the
 * notifications aimed at us only while we poll. */
int rmaib_win_wait_notify_value(rmaib_win_t *w, int idx, uint64_t threshold, uint64_t *value)
{
    int rc = idx_ok(w, w->rank, idx);
    RMAIB_BACKOFF(bo);
    while (rc == RMAIB_OK && (rc = own_read(w, idx, value)) == RMAIB_OK && *value < threshold)
        rmaib_backoff(&bo);
    return rc;
}

int rmaib_win_notify_waitsome(rmaib_win_t *w, int first, int count, int *idx)
{
    if (count <= 0)
        return RMAIB_ERR_COUNT;
    if (first < 0 || first > rmaib_peer_notify_num(w, w->rank) - count)
        return RMAIB_ERR_RMA_NOTIFY;
    RMAIB_BACKOFF(bo);
    for (;;) {
        for (int i = first; i < first + count; i++) {
            uint64_t v;
            int rc = own_read(w, i, &v);
            if (rc != RMAIB_OK)
                return rc;
            if (v) {
                *idx = i;
                return RMAIB_OK;
            }
        }
        rmaib_backoff(&bo);
    }
}
