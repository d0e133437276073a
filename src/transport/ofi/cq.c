/*
 * The ofi backend's completion queue and bounce ring.  Whoever reads the CQ credits
 * each completion to its owner (a window's per-target record, or a blocked caller's
 * waiter), and serves the mailbox's requests and answers (amo.c) as it goes.
 */
#include <stdlib.h>
#include <string.h>
#include "ofi_impl.h"
#include "rmaib_host.h"
#include "base/config.h"

/* One reader of the CQ at a time, so that mailbox requests are served in the order
 * they arrived; a thread that finds it taken leaves the reading to its holder. */
static pthread_mutex_t reap_lock = PTHREAD_MUTEX_INITIALIZER;
/* Different windows may be used by different threads at once: the ring is the
 * process's, so it has a lock (never held while waiting). */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

static void complete(void *ctx, int err)
{
    uintptr_t c = (uintptr_t) ctx;
    atomic_fetch_sub_explicit(&ofi.outstanding, 1, memory_order_relaxed);
    if (c & 2) {
        rmaib_ofi_nread_complete(ctx, err);
        return;
    }
    if (c & 1) {
        ofi_waiter_t *wt = (ofi_waiter_t *) (c & ~(uintptr_t) 1);
        if (err)
            atomic_store_explicit(&wt->err, err, memory_order_relaxed);
        atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_release);
        return;
    }
    /* Credit the target before releasing the block: once done reaches issued the
     * window may go, so neither is touched after its last update. */
    pool_blk_t *b = ctx;
    uintptr_t tagged = (uintptr_t) b->peer;
    ofi_peer_t *p = (ofi_peer_t *) (tagged & ~(uintptr_t) 1);
    if (err)
        atomic_store_explicit(&p->err, err, memory_order_relaxed);
    atomic_fetch_add_explicit(tagged & 1 ? &p->ctrl_done : &p->done, 1, memory_order_release);
    atomic_fetch_sub_explicit(&b->busy, 1, memory_order_release);
}

static void say_cq_error(const struct fi_cq_err_entry *e)
{
    if (atomic_exchange(&ofi.said_error, 1))
        return;
    rmaib_host_say("rmaib: %s failed: %s (%s)",
                   e->op_context ? "ofi operation" : "a peer's ofi operation on this process",
                   fi_strerror(e->err),
                   fi_cq_strerror(ofi.cq, e->prov_errno, e->err_data, NULL, 0));
}

static int handle(struct fi_cq_data_entry *ent, ssize_t n)
{
    for (ssize_t i = 0; i < n; i++) {
        if (ent[i].flags & FI_REMOTE_CQ_DATA)
            rmaib_ofi_amo_incoming(ent[i].data);
        else
            complete(ent[i].op_context, 0);
    }
    return (int) n;
}

/* One error entry handled (1), or -1 where fi_cq_readerr itself fails: the CQ
 * then says -FI_EAVAIL again at once, and reading on would spin. */
static int handle_error(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    ssize_t r = fi_cq_readerr(ofi.cq, &e, 0);
    if (r <= 0) {
        if (!atomic_exchange(&ofi.said_error, 1))
            rmaib_host_say("rmaib: the ofi completion queue reports an error that "
                           "fi_cq_readerr cannot read: %s", fi_strerror((int) (r ? -r : FI_EOTHER)));
        return -1;
    }
    say_cq_error(&e);
    /* No context: no operation of ours.  rxm reports here, at the target, a peer's
     * atomic it rejected (an address outside the registration); the origin gets its
     * own error entry. */
    if (e.op_context)
        complete(e.op_context, e.err ? e.err : FI_EOTHER);
    return 1;
}

/* Read the CQ dry; with manual progress this is also what serves peers' requests.
 * The caller holds reap_lock. */
static int reap_locked(void)
{
    struct fi_cq_data_entry ent[16];
    int total = 0;
    rmaib_ofi_amo_resend();
    for (;;) {
        ssize_t n = fi_cq_read(ofi.cq, ent, 16);
        if (n > 0) {
            total += handle(ent, n);
            if (n < 16)
                break;
        } else if (n == -FI_EAVAIL) {
            int h = handle_error();
            if (h < 0)
                break;
            total += h;
        } else {
            break;
        }
    }
    return total + rmaib_ofi_amo_collect();
}

static int reap(void)
{
    if (pthread_mutex_trylock(&reap_lock) != 0)
        return 0;
    int n = reap_locked();
    pthread_mutex_unlock(&reap_lock);
    return n;
}

void rmaib_ofi_progress(void)
{
    if (atomic_load_explicit(&ofi.up, memory_order_relaxed))
        reap();
}

int rmaib_ofi_progress_wait(int timeout_ms)
{
    if (!atomic_load(&ofi.up))
        return -1;
    if (pthread_mutex_trylock(&reap_lock) != 0)
        return 0;               /* someone else reads the CQ (and so holds the thread off) */
    int n = reap_locked();
    if (n == 0 && ofi.sock_wait) {
        /* Sleep with the lock held, as below; a poller's wake-up is the eventfd. */
        if (rmaib_sock_wait(timeout_ms) > 0) {
            n = reap_locked();
            rmaib_sock_wait_reaped(n);
        }
        pthread_mutex_unlock(&reap_lock);
        return n;
    }
    /* An awaited answer arrives with no completion, so nothing would end the CQ's
     * wait for it: poll meanwhile. */
    if (n > 0 || !ofi.cq_wait || rmaib_ofi_amo_awaited()) {
        pthread_mutex_unlock(&reap_lock);
        return n > 0 ? n : -1;
    }
    /* Blocking with the lock held: a poller that arrives wakes us first
     * (rmaib_progress_thread_hold), and its trylocks fail only until we are out. */
    struct fi_cq_data_entry ent[16];
    ssize_t r = fi_cq_sread(ofi.cq, ent, 16, NULL, timeout_ms);
    if (r > 0)
        n = handle(ent, r);
    else if (r == -FI_EAVAIL)
        n = handle_error() > 0 ? 1 : 0;
    else if (r == -FI_EAGAIN || r == -FI_ETIMEDOUT || r == -FI_EINTR)
        n = 0;
    else
        ofi.cq_wait = 0, n = -1;        /* no usable wait object: the thread polls instead */
    int answers = rmaib_ofi_amo_collect();
    if (answers)
        n = (n > 0 ? n : 0) + answers;
    pthread_mutex_unlock(&reap_lock);
    return n;
}

/* Return once no thread that read the CQ before the call is still handling what it
 * read: a window gone from the mailbox table is then out of every handler's reach.
 * The progress thread may sleep in the CQ holding the lock: hold it off first. */
void rmaib_ofi_cq_readers_out(void)
{
    if (!atomic_load(&ofi.up))
        return;
    rmaib_progress_thread_hold();
    pthread_mutex_lock(&reap_lock);
    pthread_mutex_unlock(&reap_lock);
    rmaib_progress_thread_release();
}

void rmaib_ofi_progress_wake(void)
{
    if (!atomic_load(&ofi.up))
        return;
    if (ofi.sock_wait)
        rmaib_sock_wait_wake();
    else if (ofi.cq_wait)
        fi_cq_signal(ofi.cq);
}

int rmaib_ofi_waited_out(uint64_t *since)
{
    if (rmaib_config.ofi_timeout <= 0)
        return 0;
    uint64_t now = rmaib_now_ns();
    if (!*since)
        *since = now;
    return now - *since >= (uint64_t) rmaib_config.ofi_timeout * 1000000000u;
}

int rmaib_ofi_post_failed(const char *what, ssize_t r)
{
    if (atomic_exchange(&ofi.said_error, 1))
        ;
    else if (r == -FI_ETIMEDOUT)
        rmaib_host_say("rmaib: %s over ofi: the provider took nothing for %d s "
                       "(RMAIB_OFI_TIMEOUT); is the peer unreachable?", what,
                       rmaib_config.ofi_timeout);
    else
        rmaib_host_say("rmaib: %s over ofi failed: %s", what, fi_strerror((int) -r));
    return RMAIB_ERR_TRANSPORT;
}

static void pool_reclaim(void)
{
    while (ofi.tail != ofi.head) {
        pool_blk_t *b = (pool_blk_t *) (ofi.pool + ofi.tail % POOL_BYTES);
        if (atomic_load_explicit(&b->busy, memory_order_acquire))
            break;
        ofi.tail += b->bytes;
    }
}

/* A block for len bytes (at most POOL_MAX), busy for one operation. */
pool_blk_t *rmaib_ofi_pool_alloc(size_t len, ofi_peer_t *peer)
{
    size_t need = (sizeof(pool_blk_t) + len + POOL_ALIGN - 1) & ~(size_t) (POOL_ALIGN - 1);
    RMAIB_BACKOFF(bo);
    for (;;) {
        pthread_mutex_lock(&pool_lock);
        size_t pos = ofi.head % POOL_BYTES, room = POOL_BYTES - pos;
        size_t want = need <= room ? need : room + need;    /* filler to the end, then the block */
        pool_reclaim();
        if (ofi.head - ofi.tail + want <= POOL_BYTES) {
            if (need > room) {
                pool_blk_t *f = (pool_blk_t *) (ofi.pool + pos);
                f->bytes = (uint32_t) room;
                atomic_store_explicit(&f->busy, 0, memory_order_relaxed);
                ofi.head += room;
                pos = 0;
            }
            pool_blk_t *b = (pool_blk_t *) (ofi.pool + pos);
            b->bytes = (uint32_t) need;
            b->peer = peer;
            atomic_store_explicit(&b->busy, 1, memory_order_relaxed);
            ofi.head += need;
            pthread_mutex_unlock(&pool_lock);
            return b;
        }
        pthread_mutex_unlock(&pool_lock);
        rmaib_backoff(&bo);
    }
}
