/*
 * The ofi backend: the network path, over one libfabric FI_EP_RDM endpoint per
 * process (FI_RMA | FI_ATOMIC), brought up at the first window that needs it and
 * kept until process exit (or rmaib_transport_finalize).
 *
 * Completion counting.  Every operation carries a completion; there are no counters
 * (shm has none).  A put copies its data into a registered bounce ring, so the
 * origin buffer is free when put returns (the core reuses its temporaries at once),
 * and the ring block is the operation's context: it names the window's per-target
 * record, whose "done" count the completion bumps.  flush(peer) waits until done
 * reaches the count issued to that target.  Gets, fetching atomics and control-block
 * atomics are blocking: their context is a waiter on the caller's stack.  Whoever
 * reads the CQ (the caller, any wait loop, the progress thread; one at a time)
 * credits the right record, so no thread waits for another to hand its completions
 * over.
 *
 * Remote visibility.  Writes and non-fetching atomics ask for FI_DELIVERY_COMPLETE
 * where the provider offers it.  Where only FI_TRANSMIT_COMPLETE is offered, a flush
 * to a target written since its last read ends with an 8-byte read from that target
 * (reads are ordered after writes: FI_ORDER_RMA_RAW, checked at start-up).
 *
 * Memory registration.  The hints accept FI_MR_LOCAL, FI_MR_VIRT_ADDR,
 * FI_MR_ALLOCATED, FI_MR_PROV_KEY and FI_MR_ENDPOINT; whatever the provider keeps
 * set is honoured: target addresses are virtual or offsets from the region's start,
 * keys are the provider's or ours (a per-process counter), MRs are bound to the
 * endpoint and enabled, and with FI_MR_LOCAL every local buffer is in the bounce
 * ring, which is registered once.  Each window registers its memory and its control
 * block; dynamic windows register each attached region (the attach hook) and publish
 * the keys in a registered key table that origins read, with a generation count as
 * the core's attach table has.
 *
 * Atomics.  Control-block words use 64-bit FI_UINT64 atomics (fetch-add and
 * compare-swap are required, unless the provider has no atomics at all and the
 * mailbox below carries every one; read, write and swap fall back to them).  For the
 * accumulate family a basic type is native only if the provider does every op MPI
 * allows on it, fetching and not, and compare-swap where MPI allows that, on
 * elements of at most 8 bytes: so one element never sees both a native and a locked
 * access.  The table is built once per endpoint with fi_*atomicvalid.
 *
 * Target-executed atomics.  Where the provider progresses in software and applies
 * atomics with the target's CPU anyway (tcp;ofi_rxm), control-word atomics skip its
 * atomic protocol: the origin injects a 32-byte request into a slot of the target
 * window's mailbox with fi_inject_writedata, the target's reaper applies it to the
 * word with a CPU atomic and injects the old value back with fi_inject_write, which
 * no completion announces: the origin's reapers look for the answers they await
 * after each read of the CQ (amo_collect; the answer's format is mailbox.c's).  A
 * completion costs tcp two system calls (its wait object's signal): answered with
 * remote CQ data, a fetch-and-op took 1.04-1.05 of the bare writedata round trip
 * (bench/ofi_floor), answered this way 1.00 (medians of 6 and 10 runs).  A release
 * nobody waits for (an unlock) is one message with no answer at all, where rxm
 * answers every atomic, so lock+unlock costs one round trip and a message, not two
 * round trips.  One fetched element of window data (fetch-and-op, compare-and-swap)
 * goes the same way: rxm's atomic round trip costs 2-3 us more than two injected
 * writes.  One reaper at a time (reap_lock) keeps one origin's requests in the
 * order it sent them.  The request's format, its checks and the slot choice are
 * mailbox.c's; a request it refuses gets an AMO_REFUSED answer, and the origin's
 * call fails (a one-way request: its next flush to that target, as when a provider
 * atomic left in flight fails).  RMAIB_OFI_ATOMICS=provider keeps rxm's atomics.  A
 * provider with no atomics (net) sends every atomic this way; accumulates in
 * dynamic windows and on types the CPU cannot update atomically take the core's
 * locked path there.
 * Accumulates of several elements (there, and from AMO_RUN_MIN bytes everywhere)
 * go as runs: the operands put into the origin's stage in the target's mailbox, one
 * request applying them all (amo_runs).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include "rmaib_win.h"
#include "base/config.h"
#include "rmaib_host.h"
#include "ofi.h"
#include "mailbox.h"
#include "base/reduce.h"
#include "base/atomic_cpu.h"

#define OFI_NAME_MAX 256
#define POOL_BYTES (8u << 20)       /* bounce ring */
#define POOL_MAX (256u << 10)       /* largest payload of one ring block */
#define POOL_ALIGN 64
#define CQ_SIZE 4096
#define BATCH_IOV 16

/* A block of the bounce ring.  busy counts the operations still using it; the block
 * and everything after it is reclaimed in ring order once busy drops to 0. */
typedef struct pool_blk {
    _Atomic uint32_t busy;
    uint32_t bytes;             /* whole block, header included */
    struct ofi_peer *peer;      /* completion credit for an asynchronous op, or NULL;
                                 * bit 0 set: a control-word atomic (ctrl_done) */
    char pad[POOL_ALIGN - 16];
} pool_blk_t;

/* A blocking caller's completion record; its address, tagged with bit 0, is the
 * context of the operations it waits for. */
typedef struct ofi_waiter {
    _Atomic int pending;
    _Atomic int err;
} ofi_waiter_t;

/* The remote key table of a dynamic window. */
typedef struct ofi_ktab_entry {
    uint64_t base, size, key;
} ofi_ktab_entry_t;

typedef struct ofi_ktab {
    uint64_t gen;               /* odd while the owner changes the table */
    uint64_t n;
    ofi_ktab_entry_t e[RMAIB_MAX_ATTACH];
} ofi_ktab_t;

#define AMO_MAX_WINS 4096       /* windows with a mailbox in one process at once */

/* An origin's record of a request in a slot.  A one-way request holds its slot
 * until an answered request sent after it comes back: the target served it by then. */
typedef struct amo_slot {
    ofi_waiter_t *wt;           /* NULL: one-way */
    uint64_t *result;
    uint64_t seq;
} amo_slot_t;

/* One target as this window sees it. */
typedef struct ofi_peer {
    fi_addr_t addr;
    uint64_t data_va, data_raddr, data_key;     /* raddr: what roff 0 is on the wire */
    uint64_t ctrl_raddr, ctrl_key;
    uint64_t ktab_raddr, ktab_key;
    uint64_t issued;            /* asynchronous operations posted (caller's thread) */
    _Atomic uint64_t done;      /* ... and completed (any thread) */
    uint64_t ctrl_issued;       /* the same for control-word atomics left in flight, */
    _Atomic uint64_t ctrl_done; /* which a flush does not wait for (see quiesce) */
    _Atomic int err;            /* an asynchronous operation failed: fi_errno */
    int unread;                 /* written without FI_DELIVERY_COMPLETE since the last read */
    int unordered;              /* issued since the last flush: something a later write
                                 * may overtake (an atomic, a write beyond waw_size) */
    ofi_ktab_t *ktab;           /* dynamic windows: cached copy of the peer's table */
    uint64_t box_raddr, box_key;        /* the peer's mailbox */
    uint32_t box_wid;                   /* ... and its number for this window */
    pthread_mutex_t amo_lock;           /* the slots below: the caller's and the reaper's */
    uint32_t amo_busy;                  /* bit s: slot s in use */
    uint64_t amo_seq;
    amo_slot_t amo[RMAIB_AMO_SLOTS];
} ofi_peer_t;

typedef struct ofi_win {
    struct fid_mr *data_mr, *ctrl_mr, *ktab_mr, *box_mr;
    /* Mailbox: requests from each origin [nranks][RMAIB_AMO_SLOTS], then answers from
     * each target [nranks][RMAIB_AMO_SLOTS] (rmaib_amo_ans_t), then each origin's
     * stage for runs of elements [nranks][stage_bytes] (amo_stage_bytes). */
    char *box;
    size_t stage_bytes;
    uint32_t wid;               /* index in amo_wins, + 1; 0: no mailbox */
    int amo;                    /* every rank has one: control atomics go through them */
    int rank, nranks;
    char *ctrl;                 /* our control block, size ctrl_size */
    size_t ctrl_size;
    char *data;                 /* our window memory, for mailbox data atomics; */
    size_t data_size;           /* 0 where there are none (dynamic windows) */
    ofi_ktab_t *ktab;           /* dynamic: own table, registered */
    struct fid_mr *attach_mr[RMAIB_MAX_ATTACH];
    ofi_peer_t peers[];
} ofi_win_t;

/* What each rank tells the others at window creation. */
typedef struct ofi_hello {
    int32_t status;
    uint32_t namelen;
    uint64_t data_va, data_key, ctrl_va, ctrl_key, ktab_va, ktab_key, box_va, box_key;
    uint32_t box_wid, pad;
    char name[OFI_NAME_MAX];
} ofi_hello_t;

typedef struct ofi_addr_entry {
    uint64_t hash;
    size_t len;
    char name[OFI_NAME_MAX];
    fi_addr_t fa;
    int connected;              /* a first operation to it has completed */
} ofi_addr_entry_t;

static struct ofi_state {
    _Atomic int up;
    int failed;
    char failure[1024];

    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    char name[OFI_NAME_MAX];
    size_t namelen;

    int mr_local, virt_addr, prov_key, mr_endpoint;
    int delivery_complete;
    int raw_ordered;            /* a read shows the writes before it placed (FI_ORDER_RAW) */
    int atomic_ordered;         /* non-fetching atomics may stay outstanding */
    size_t waw_size;            /* writes up to this size land in the order posted */
    int cq_wait;                /* the CQ has a wait object: fi_cq_sread works */
    int sock_wait;              /* the thread sleeps on tcp's sockets (sock_wait.c) */
    int amo;                    /* control-word atomics executed by the target (see top) */
    int amo_only;               /* the provider has no atomics: the target applies them all */
    int thread;                 /* the progress thread runs */
    int manual;                 /* peers' requests move only when we poll: FI_PROGRESS_MANUAL,
                                 * or a mailbox only our CQ readers serve (amo_only) */
    size_t max_msg, iov_max, rma_iov_max, inject_size;
    _Atomic uint64_t next_key;  /* requested keys, unique in the process (without FI_MR_PROV_KEY) */
    _Atomic long outstanding;   /* operations posted and not yet completed */

    unsigned char native[RMAIB_BASIC_COUNT];
    size_t count_nf[RMAIB_BASIC_COUNT], count_f[RMAIB_BASIC_COUNT];
    int have_read, have_write, have_swap;

    char *pool;
    struct fid_mr *pool_mr;
    void *pool_desc;
    uint64_t head, tail;

    ofi_addr_entry_t *addrs;
    size_t naddrs, addrs_cap;
    _Atomic int said_error;
} ofi;

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
/* Different windows may be used by different threads at once: the ring and the
 * address cache are the process's, so each has a lock (never held while waiting). */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t addr_lock = PTHREAD_MUTEX_INITIALIZER;
/* One reader of the CQ at a time, so that mailbox requests are served in the order
 * they arrived; a thread that finds it taken leaves the reading to its holder. */
static pthread_mutex_t reap_lock = PTHREAD_MUTEX_INITIALIZER;
static void amo_incoming(uint64_t data);

/* The answered requests in flight from this process, whose answers each reaper looks
 * for; a request is listed before it is sent and unlisted when its answer is found. */
typedef struct amo_awaited {
    ofi_win_t *o;
    int target, slot;
    uint32_t tag;
} amo_awaited_t;
static amo_awaited_t *awaited;
static size_t nawaited, awaited_cap;
static _Atomic size_t awaited_count;    /* nawaited, read without the lock */
static pthread_mutex_t awaited_lock = PTHREAD_MUTEX_INITIALIZER;

/* Windows with a mailbox, by the number peers name them with (minus 1). */
static _Atomic(ofi_win_t *) amo_wins[AMO_MAX_WINS];
static pthread_mutex_t amo_wins_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t amo_win_add(ofi_win_t *o)
{
    uint32_t id = 0;
    pthread_mutex_lock(&amo_wins_lock);
    for (uint32_t i = 0; i < AMO_MAX_WINS && !id; i++)
        if (!atomic_load_explicit(&amo_wins[i], memory_order_relaxed)) {
            atomic_store_explicit(&amo_wins[i], o, memory_order_release);
            id = i + 1;
        }
    pthread_mutex_unlock(&amo_wins_lock);
    return id;
}

static void amo_win_remove(ofi_win_t *o)
{
    if (o->wid)
        atomic_store_explicit(&amo_wins[o->wid - 1], NULL, memory_order_release);
    o->wid = 0;
}

#define WAITER_CTX(wt) ((void *) ((uintptr_t) (wt) | 1))

/* ---------------------------------------------------------------- completions */

static void complete(void *ctx, int err)
{
    uintptr_t c = (uintptr_t) ctx;
    atomic_fetch_sub_explicit(&ofi.outstanding, 1, memory_order_relaxed);
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
            amo_incoming(ent[i].data);
        else
            complete(ent[i].op_context, 0);
    }
    return (int) n;
}

static int handle_error(void)
{
    struct fi_cq_err_entry e;
    memset(&e, 0, sizeof e);
    if (fi_cq_readerr(ofi.cq, &e, 0) <= 0)
        return 0;
    say_cq_error(&e);
    /* No context: no operation of ours.  rxm reports here, at the target, a peer's
     * atomic it rejected (an address outside the registration); the origin gets its
     * own error entry. */
    if (e.op_context)
        complete(e.op_context, e.err ? e.err : FI_EOTHER);
    return 1;
}

static void amo_resend(void);
static int amo_collect(void);

/* Read the CQ dry; with manual progress this is also what serves peers' requests.
 * The caller holds reap_lock. */
static int reap_locked(void)
{
    struct fi_cq_data_entry ent[16];
    int total = 0;
    amo_resend();
    for (;;) {
        ssize_t n = fi_cq_read(ofi.cq, ent, 16);
        if (n > 0) {
            total += handle(ent, n);
            if (n < 16)
                break;
        } else if (n == -FI_EAVAIL) {
            total += handle_error();
        } else {
            break;
        }
    }
    return total + amo_collect();
}

static int reap(void)
{
    if (pthread_mutex_trylock(&reap_lock) != 0)
        return 0;
    int n = reap_locked();
    pthread_mutex_unlock(&reap_lock);
    return n;
}

static void ofi_progress(void)
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
    if (n > 0 || !ofi.cq_wait || atomic_load_explicit(&awaited_count, memory_order_relaxed)) {
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
        n = handle_error();
    else if (r == -FI_EAGAIN || r == -FI_ETIMEDOUT || r == -FI_EINTR)
        n = 0;
    else
        ofi.cq_wait = 0, n = -1;        /* no usable wait object: the thread polls instead */
    int answers = amo_collect();
    if (answers)
        n = (n > 0 ? n : 0) + answers;
    pthread_mutex_unlock(&reap_lock);
    return n;
}

/* Is the core provider (the first of "tcp;ofi_rxm") one of names? */
static int core_provider_in(const struct fi_info *info, const char *const *names, size_t count)
{
    const char *name = info->fabric_attr->prov_name;
    size_t n = strcspn(name, ";");
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == n && !strncmp(name, names[i], n))
            return 1;
    return 0;
}

/* Providers whose atomics, where they have any, are the target's CPU atomics.  net
 * (libfabric 1.17's RDM endpoint straight on TCP sockets, no rxm) has none at all:
 * the mailbox carries every one. */
static int software_atomics(const struct fi_info *info)
{
    static const char *const software[] = { "tcp", "sockets", "udp", "shm", "net" };
    return core_provider_in(info, software, sizeof software / sizeof software[0]);
}

/* Writes to a peer land in the order posted, whatever their size, where the CPU
 * places them as it reads them off the one stream connection to that peer.
 * tcp;ofi_rxm reports max_order_waw_size 0 with FI_ORDER_RMA_WAW set: that size
 * bounds the ordering of overlapping bytes on hardware, not the order in which a
 * stream places whole writes.  Taking it at its word cost every PSCW complete
 * after a put a whole round trip (ofi_ctrl_store flushed the put first).  net keeps
 * one connection per peer as rxm does (xnet_rdm_cm.c settles simultaneous
 * connects), and so a single stream. */
static int stream_placed(const struct fi_info *info)
{
    static const char *const stream[] = { "tcp", "sockets", "net" };
    return core_provider_in(info, stream, sizeof stream / sizeof stream[0]);
}

int rmaib_ofi_atomics_on_cpu(void)
{
    return atomic_load(&ofi.up) && software_atomics(ofi.info);
}

int rmaib_ofi_wants_polling(void)
{
    return atomic_load_explicit(&ofi.up, memory_order_relaxed) && ofi.manual;
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

static int same_inet(const struct sockaddr *sa, unsigned len, const char *name, size_t namelen)
{
    struct sockaddr_storage b;
    if (namelen > sizeof b || namelen < sizeof(struct sockaddr_in))
        return 0;
    memcpy(&b, name, namelen);
    if (sa->sa_family != b.ss_family)
        return 0;
    if (b.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *x = (const struct sockaddr_in *) sa;
        const struct sockaddr_in *y = (const struct sockaddr_in *) &b;
        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (b.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)
        && namelen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *) sa;
        const struct sockaddr_in6 *y = (const struct sockaddr_in6 *) &b;
        return x->sin6_port == y->sin6_port
            && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
    }
    return 0;
}

int rmaib_ofi_socket_is_ours(const struct sockaddr *sa, unsigned len, int local)
{
    if (local)
        return same_inet(sa, len, ofi.name, ofi.namelen);
    int ours = 0;
    pthread_mutex_lock(&addr_lock);
    for (size_t i = 0; i < ofi.naddrs && !ours; i++)
        ours = same_inet(sa, len, ofi.addrs[i].name, ofi.addrs[i].len);
    pthread_mutex_unlock(&addr_lock);
    return ours;
}

static int wait_for(ofi_waiter_t *wt)
{
    RMAIB_BACKOFF(bo);
    while (atomic_load_explicit(&wt->pending, memory_order_acquire) > 0)
        rmaib_backoff(&bo);
    return atomic_load_explicit(&wt->err, memory_order_relaxed) ? RMAIB_ERR_TRANSPORT : RMAIB_OK;
}

/* Make a provider call into r, polling while it says -FI_EAGAIN (its queue is
 * full until completions are read, or a connection is still being set up). */
#define RETRY(r, call)                                                          \
    do {                                                                        \
        RMAIB_BACKOFF(rbo_);                                                    \
        while (((r) = (call)) == -FI_EAGAIN)                                    \
            rmaib_backoff(&rbo_);                                               \
    } while (0)

/* Post with a provider call into r, draining the CQ while the queue is full; a
 * posted operation counts as outstanding until its completion is read. */
#define POST(r, call)                                                           \
    do {                                                                        \
        RMAIB_BACKOFF(bo_);                                                     \
        while (atomic_load_explicit(&ofi.outstanding, memory_order_relaxed)     \
               >= CQ_SIZE / 2)                                                  \
            rmaib_backoff(&bo_);                                                \
        RETRY(r, call);                                                         \
        if ((r) == 0)                                                           \
            atomic_fetch_add_explicit(&ofi.outstanding, 1, memory_order_relaxed); \
    } while (0)

static int post_failed(const char *what, ssize_t r)
{
    if (!atomic_exchange(&ofi.said_error, 1))
        rmaib_host_say("rmaib: %s over ofi failed: %s", what, fi_strerror((int) -r));
    return RMAIB_ERR_TRANSPORT;
}

/* ---------------------------------------------------------------- bounce ring */

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
static pool_blk_t *pool_alloc(size_t len, ofi_peer_t *peer)
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

static void pool_release(pool_blk_t *b)
{
    atomic_store_explicit(&b->busy, 0, memory_order_release);
}

static inline void *blk_data(pool_blk_t *b)
{
    return b + 1;
}

/* ---------------------------------------------------------------- start-up */

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char try_reason[256];

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(try_reason, sizeof try_reason, fmt, ap);
    va_end(ap);
    return RMAIB_ERR_TRANSPORT;
}

static void close_fid(void *fidp)
{
    struct fid **f = fidp;
    if (*f)
        fi_close(*f);
    *f = NULL;
}

static void teardown(void)
{
    close_fid(&ofi.pool_mr);   /* bound to the endpoint with FI_MR_ENDPOINT */
    close_fid(&ofi.ep);
    close_fid(&ofi.cq);
    close_fid(&ofi.av);
    close_fid(&ofi.domain);
    close_fid(&ofi.fabric);
    if (ofi.info)
        fi_freeinfo(ofi.info);
    ofi.info = NULL;
    free(ofi.pool);
    ofi.pool = NULL;
    free(ofi.addrs);
    ofi.addrs = NULL;
    ofi.naddrs = ofi.addrs_cap = 0;
    if (ofi.sock_wait)
        rmaib_sock_wait_close();
    ofi.sock_wait = 0;
}

static int map_datatype(rmaib_basic_t b, enum fi_datatype *dt)
{
    switch (b) {
    case RMAIB_BASIC_INT8: *dt = FI_INT8; return 1;
    case RMAIB_BASIC_INT16: *dt = FI_INT16; return 1;
    case RMAIB_BASIC_INT32: *dt = FI_INT32; return 1;
    case RMAIB_BASIC_INT64: *dt = FI_INT64; return 1;
    case RMAIB_BASIC_UINT8: *dt = FI_UINT8; return 1;
    case RMAIB_BASIC_UINT16: *dt = FI_UINT16; return 1;
    case RMAIB_BASIC_UINT32: *dt = FI_UINT32; return 1;
    case RMAIB_BASIC_UINT64: *dt = FI_UINT64; return 1;
    case RMAIB_BASIC_FLOAT: *dt = FI_FLOAT; return 1;
    case RMAIB_BASIC_DOUBLE: *dt = FI_DOUBLE; return 1;
    case RMAIB_BASIC_C_FLOAT_COMPLEX: *dt = FI_FLOAT_COMPLEX; return 1;
    case RMAIB_BASIC_BOOL:      /* 0/1 in one byte: the logical ops give 0/1 back */
    case RMAIB_BASIC_BYTE:
    case RMAIB_BASIC_CHAR: *dt = FI_UINT8; return 1;
    default: return 0;          /* wider than 8 bytes, or a MAXLOC/MINLOC pair */
    }
}

static int map_op(rmaib_op_t op, enum fi_op *fop)
{
    switch (op) {
    case RMAIB_OP_SUM: *fop = FI_SUM; return 1;
    case RMAIB_OP_PROD: *fop = FI_PROD; return 1;
    case RMAIB_OP_MAX: *fop = FI_MAX; return 1;
    case RMAIB_OP_MIN: *fop = FI_MIN; return 1;
    case RMAIB_OP_LAND: *fop = FI_LAND; return 1;
    case RMAIB_OP_LOR: *fop = FI_LOR; return 1;
    case RMAIB_OP_LXOR: *fop = FI_LXOR; return 1;
    case RMAIB_OP_BAND: *fop = FI_BAND; return 1;
    case RMAIB_OP_BOR: *fop = FI_BOR; return 1;
    case RMAIB_OP_BXOR: *fop = FI_BXOR; return 1;
    case RMAIB_OP_REPLACE: *fop = FI_ATOMIC_WRITE; return 1;
    case RMAIB_OP_NO_OP: *fop = FI_ATOMIC_READ; return 1;
    default: return 0;          /* MAXLOC, MINLOC */
    }
}

static enum fi_datatype uint_of_size(size_t size)
{
    return size == 1 ? FI_UINT8 : size == 2 ? FI_UINT16 : size == 4 ? FI_UINT32 : FI_UINT64;
}

/* Native for type b iff every op MPI allows on b is valid with count >= 1, fetching
 * and not, plus compare-swap where MPI has it: all or nothing per type. */
static void build_atomic_table(void)
{
    for (int b = 1; b < RMAIB_BASIC_COUNT; b++) {
        enum fi_datatype dt;
        size_t nf = POOL_MAX, f = POOL_MAX, c;
        int ok = map_datatype(b, &dt) && rmaib_basic_size(b) <= 8;
        for (int op = RMAIB_OP_SUM; ok && op < RMAIB_OP_COUNT; op++) {
            enum fi_op fop;
            if (rmaib_reduce_valid(b, op) != RMAIB_OK)
                continue;
            if (!map_op(op, &fop)) {
                ok = 0;
                break;
            }
            if (op != RMAIB_OP_NO_OP) {
                c = 0;
                if (fi_atomicvalid(ofi.ep, dt, fop, &c) != 0 || c < 1)
                    ok = 0;
                else if (c < nf)
                    nf = c;
            }
            c = 0;
            if (ok && (fi_fetch_atomicvalid(ofi.ep, dt, fop, &c) != 0 || c < 1))
                ok = 0;
            else if (c < f)
                f = c;
        }
        if (ok && rmaib_cas_valid(b) == RMAIB_OK) {
            c = 0;
            if (fi_compare_atomicvalid(ofi.ep, uint_of_size(rmaib_basic_size(b)), FI_CSWAP, &c) != 0
                || c < 1)
                ok = 0;
        }
        ofi.native[b] = (unsigned char) ok;
        ofi.count_nf[b] = nf;
        ofi.count_f[b] = f;
    }
}

static int valid64(int kind, enum fi_op op)
{
    size_t c = 0;
    int r = kind == 0 ? fi_atomicvalid(ofi.ep, FI_UINT64, op, &c)
        : kind == 1 ? fi_fetch_atomicvalid(ofi.ep, FI_UINT64, op, &c)
        : fi_compare_atomicvalid(ofi.ep, FI_UINT64, op, &c);
    return r == 0 && c >= 1;
}

static struct fi_info *get_info(const char *prov, int dc)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    if (!hints)
        return NULL;
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = 0;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED
        | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->tx_attr->op_flags = dc ? FI_DELIVERY_COMPLETE : 0;
    hints->fabric_attr->prov_name = strdup(prov);
    if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info) != 0)
        info = NULL;
    fi_freeinfo(hints);
    /* The layering asked for, not a lower one the name happens to match. */
    while (info && strcasecmp(info->fabric_attr->prov_name, prov) != 0) {
        struct fi_info *next = info->next;
        info->next = NULL;
        fi_freeinfo(info);
        info = next;
    }
    if (info && info->next) {
        fi_freeinfo(info->next);
        info->next = NULL;
    }
    return info;
}

static int want_thread(void)
{
    if (rmaib_config.async_progress >= 0)
        return rmaib_config.async_progress;
    /* Default: serve the target side in a thread when peers' requests move only
     * inside our calls, or a target blocked in the host MPI would starve its peers. */
    return ofi.manual;
}

/* Does the domain do 64-bit fetch-add and compare-swap?  Asked before the endpoint
 * exists: the answer decides the progress thread, which the CQ is opened for.  A
 * provider without atomics (net) returns -FI_ENOSYS; one that answers yes here is
 * checked again on the endpoint (valid64). */
static int domain_atomics64(void)
{
    struct fi_atomic_attr a;
    return fi_query_atomic(ofi.domain, FI_UINT64, FI_SUM, &a, FI_FETCH_ATOMIC) == 0
        && fi_query_atomic(ofi.domain, FI_UINT64, FI_CSWAP, &a, FI_COMPARE_ATOMIC) == 0;
}

static int try_provider(const char *prov)
{
    struct fi_info *info = get_info(prov, 1);
    int dc = info != NULL;
    if (!dc)
        info = get_info(prov, 0);
    if (!info)
        return fail("no FI_EP_RDM endpoint with FI_RMA|FI_ATOMIC");
    ofi.info = info;
    uint64_t mr = info->domain_attr->mr_mode;
    ofi.mr_local = (mr & FI_MR_LOCAL) != 0 || rmaib_config.ofi_mr_local;
    ofi.virt_addr = (mr & FI_MR_VIRT_ADDR) != 0;
    ofi.prov_key = (mr & FI_MR_PROV_KEY) != 0;
    ofi.mr_endpoint = (mr & FI_MR_ENDPOINT) != 0;
    ofi.delivery_complete = dc;
    ofi.inject_size = info->tx_attr->inject_size;
    ofi.max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (size_t) 1 << 30;
    if (ofi.max_msg > POOL_MAX)
        ofi.max_msg = POOL_MAX;     /* every piece fits one ring block */
    ofi.iov_max = info->tx_attr->iov_limit ? info->tx_attr->iov_limit : 1;
    ofi.rma_iov_max = info->tx_attr->rma_iov_limit ? info->tx_attr->rma_iov_limit : 1;
    if (ofi.iov_max > BATCH_IOV)
        ofi.iov_max = BATCH_IOV;
    if (ofi.rma_iov_max > BATCH_IOV)
        ofi.rma_iov_max = BATCH_IOV;
    uint64_t order = info->tx_attr->msg_order & info->rx_attr->msg_order;
    ofi.raw_ordered = (order & (FI_ORDER_RMA_RAW | FI_ORDER_RAW)) != 0;
    ofi.atomic_ordered = (order & (FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW))
        == (FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW);
    ofi.waw_size = !(order & (FI_ORDER_RMA_WAW | FI_ORDER_WAW)) ? 0
        : stream_placed(info) ? SIZE_MAX : info->ep_attr->max_order_waw_size;
    if (!dc && !ofi.raw_ordered)
        return fail("neither FI_DELIVERY_COMPLETE nor read-after-write ordering");
    info->tx_attr->op_flags = dc ? FI_DELIVERY_COMPLETE : 0;

    int r = fi_fabric(info->fabric_attr, &ofi.fabric, NULL);
    if (r == 0)
        r = fi_domain(ofi.fabric, info, &ofi.domain, NULL);
    if (r != 0)
        return fail("cannot open fabric/domain: %s", fi_strerror(-r));

    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    r = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL);
    if (r != 0)
        return fail("fi_av_open: %s", fi_strerror(-r));

    /* Without atomics of its own, a provider runs on the mailbox alone (see the
     * top), which needs remote CQ data, 32-byte injects and someone reading our CQ. */
    int mailbox = software_atomics(info) && info->domain_attr->cq_data_size >= sizeof(uint64_t)
        && ofi.inject_size >= sizeof(rmaib_amo_req_t);
    ofi.amo_only = !domain_atomics64();
    if (ofi.amo_only && !mailbox)
        return fail("no 64-bit fetch-add and compare-swap");
    if (ofi.amo_only && rmaib_config.ofi_provider_atomics)
        return fail("no atomics of its own (RMAIB_OFI_ATOMICS=provider)");
    ofi.manual = info->domain_attr->data_progress == FI_PROGRESS_MANUAL || ofi.amo_only;
    ofi.thread = want_thread();

    /* The progress thread sleeps on tcp's sockets, where it can (sock_wait.c), and
     * in the CQ's wait object elsewhere. */
    static const char *const tcp[] = { "tcp" };
    ofi.sock_wait = ofi.thread && core_provider_in(info, tcp, 1)
        && (info->addr_format == FI_SOCKADDR_IN || info->addr_format == FI_SOCKADDR_IN6)
        && rmaib_sock_wait_open() == 0;
    struct fi_cq_attr cq_attr = { .size = CQ_SIZE, .format = FI_CQ_FORMAT_DATA,
        .wait_obj = ofi.thread && !ofi.sock_wait ? FI_WAIT_UNSPEC : FI_WAIT_NONE };
    r = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
    if (r != 0 && cq_attr.wait_obj != FI_WAIT_NONE) {
        cq_attr.wait_obj = FI_WAIT_NONE;
        r = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
    }
    if (r != 0)
        return fail("fi_cq_open: %s", fi_strerror(-r));
    ofi.cq_wait = cq_attr.wait_obj != FI_WAIT_NONE;

    r = fi_endpoint(ofi.domain, info, &ofi.ep, NULL);
    if (r == 0)
        r = fi_ep_bind(ofi.ep, &ofi.av->fid, 0);
    if (r == 0)
        r = fi_ep_bind(ofi.ep, &ofi.cq->fid, FI_TRANSMIT | FI_RECV);
    if (r == 0)
        r = fi_enable(ofi.ep);
    if (r != 0)
        return fail("cannot open the endpoint: %s", fi_strerror(-r));
    ofi.namelen = sizeof ofi.name;
    r = fi_getname(&ofi.ep->fid, ofi.name, &ofi.namelen);
    if (r != 0)
        return fail("fi_getname: %s", fi_strerror(-r));

    if (!ofi.amo_only && (!valid64(1, FI_SUM) || !valid64(2, FI_CSWAP)))
        return fail("no 64-bit fetch-add and compare-swap");
    ofi.have_read = valid64(1, FI_ATOMIC_READ);
    ofi.have_write = valid64(0, FI_ATOMIC_WRITE);
    ofi.have_swap = valid64(1, FI_ATOMIC_WRITE);
    build_atomic_table();
    ofi.amo = ofi.manual && mailbox && !rmaib_config.ofi_provider_atomics;

    if (posix_memalign((void **) &ofi.pool, 4096, POOL_BYTES) != 0) {
        ofi.pool = NULL;
        return fail("out of memory for the bounce ring");
    }
    ofi.head = ofi.tail = 0;
    ofi.pool_desc = NULL;
    if (ofi.mr_local) {
        memset(ofi.pool, 0, POOL_BYTES);        /* FI_MR_ALLOCATED: back every page */
        r = fi_mr_reg(ofi.domain, ofi.pool, POOL_BYTES, FI_READ | FI_WRITE, 0,
                      atomic_fetch_add(&ofi.next_key, 1), 0, &ofi.pool_mr, NULL);
        if (r == 0 && ofi.mr_endpoint) {
            r = fi_mr_bind(ofi.pool_mr, &ofi.ep->fid, 0);
            if (r == 0)
                r = fi_mr_enable(ofi.pool_mr);
        }
        if (r != 0)
            return fail("cannot register the bounce ring: %s", fi_strerror(-r));
        ofi.pool_desc = fi_mr_desc(ofi.pool_mr);
    }
    return RMAIB_OK;
}

static void ofi_atexit(void)
{
    rmaib_ofi_finalize();
}

int rmaib_ofi_init(void)
{
    static int atexit_done;
    static const char *const automatic[] = { "verbs;ofi_rxm", "tcp;ofi_rxm", "sockets", "shm" };
    int rc = RMAIB_OK;
    if (atomic_load(&ofi.up))
        return RMAIB_OK;
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&ofi.up) || ofi.failed) {
        rc = ofi.failed ? RMAIB_ERR_TRANSPORT : RMAIB_OK;
        goto fn_exit;
    }
    /* RMAIB_OFI_PROVIDER: one name or a comma-separated list, tried in order. */
    char names[512];
    const char *list[16];
    size_t nlist = 0;
    if (rmaib_config.ofi_provider) {
        char *save = NULL;
        snprintf(names, sizeof names, "%s", rmaib_config.ofi_provider);
        for (char *t = strtok_r(names, ",", &save); t && nlist < 16; t = strtok_r(NULL, ",", &save))
            if (*t)
                list[nlist++] = t;
    }
    if (nlist == 0)
        for (size_t i = 0; i < sizeof automatic / sizeof automatic[0]; i++)
            list[nlist++] = automatic[i];
    size_t used = 0;
    ofi.failure[0] = 0;
    atomic_store(&ofi.next_key, 1);
    rc = RMAIB_ERR_TRANSPORT;
    for (size_t i = 0; i < nlist; i++) {
        try_reason[0] = 0;
        rc = try_provider(list[i]);
        if (rc == RMAIB_OK)
            break;
        teardown();
        used += (size_t) snprintf(ofi.failure + used, used < sizeof ofi.failure ?
                                  sizeof ofi.failure - used : 0, "%s%s: %s", i ? ", " : "",
                                  list[i], try_reason);
        if (used >= sizeof ofi.failure)
            used = sizeof ofi.failure - 1;
    }
    if (rc != RMAIB_OK) {
        ofi.failed = 1;
        goto fn_exit;
    }
    atomic_store(&ofi.up, 1);
    if (!atexit_done) {
        atexit(ofi_atexit);
        atexit_done = 1;
    }
    if (rmaib_config.verbose)
        rmaib_host_say("rmaib: ofi provider %s on %s, mr_mode [%s], %s, progress thread %s, "
                       "control atomics by the %s",
                       ofi.info->fabric_attr->prov_name, ofi.info->domain_attr->name,
                       fi_tostr(&ofi.info->domain_attr->mr_mode, FI_TYPE_MR_MODE),
                       ofi.delivery_complete ? "FI_DELIVERY_COMPLETE" : "trailing reads",
                       !ofi.thread ? "off" : ofi.sock_wait ? "on (sleeps on tcp's sockets)" : "on",
                       ofi.amo_only ? "target (the provider has none)"
                       : ofi.amo ? "target" : "provider");
    if (ofi.thread && rmaib_progress_thread_start() != RMAIB_OK)
        ofi.thread = 0;
  fn_exit:
    pthread_mutex_unlock(&init_lock);
    return rc;
}

const char *rmaib_ofi_failure(void)
{
    return ofi.failure;
}

void rmaib_ofi_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&ofi.up)) {
        if (ofi.thread)
            rmaib_progress_thread_stop();
        atomic_store(&ofi.up, 0);
        teardown();
    }
    ofi.failed = 0;
    pthread_mutex_unlock(&init_lock);
}

/* ---------------------------------------------------------------- addresses, MRs */

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Each endpoint name goes into the AV once per process, however many windows. */
static int lookup_addr_locked(const char *name, size_t len, fi_addr_t *fa, int *connected)
{
    uint64_t h = fnv1a(name, len);
    for (size_t i = 0; i < ofi.naddrs; i++)
        if (ofi.addrs[i].hash == h && ofi.addrs[i].len == len
            && memcmp(ofi.addrs[i].name, name, len) == 0) {
            *fa = ofi.addrs[i].fa;
            *connected = ofi.addrs[i].connected;
            return RMAIB_OK;
        }
    if (ofi.naddrs == ofi.addrs_cap) {
        size_t cap = ofi.addrs_cap ? 2 * ofi.addrs_cap : 64;
        ofi_addr_entry_t *a = realloc(ofi.addrs, cap * sizeof *a);
        if (!a)
            return RMAIB_ERR_NO_MEM;
        ofi.addrs = a;
        ofi.addrs_cap = cap;
    }
    if (fi_av_insert(ofi.av, name, 1, fa, 0, NULL) != 1)
        return RMAIB_ERR_TRANSPORT;
    ofi_addr_entry_t *e = &ofi.addrs[ofi.naddrs++];
    e->hash = h;
    e->len = len;
    memcpy(e->name, name, len);
    e->fa = *fa;
    e->connected = *connected = 0;
    return RMAIB_OK;
}

static int lookup_addr(const char *name, size_t len, fi_addr_t *fa, int *connected)
{
    pthread_mutex_lock(&addr_lock);
    int rc = lookup_addr_locked(name, len, fa, connected);
    pthread_mutex_unlock(&addr_lock);
    return rc;
}

static void mark_connected(fi_addr_t fa)
{
    pthread_mutex_lock(&addr_lock);
    for (size_t i = 0; i < ofi.naddrs; i++)
        if (ofi.addrs[i].fa == fa)
            ofi.addrs[i].connected = 1;
    pthread_mutex_unlock(&addr_lock);
}

/* Connection-oriented providers (tcp;ofi_rxm) connect at the first operation to a
 * peer, and a peer that is computing accepts only from its progress thread's
 * periodic progress.  Window creation, where every rank is inside rmaib, is the
 * cheap moment: read 8 bytes of each new peer's control block, all at once. */
static int connect_peers(rmaib_win_t *w, ofi_win_t *o, const int *connected)
{
    int p = w->nranks, rc = RMAIB_OK, n = 0;
    for (int r = 0; r < p; r++)
        n += !connected[r];
    if (n == 0)
        return RMAIB_OK;
    pool_blk_t *b = pool_alloc((size_t) n * 8, NULL);
    char *buf = blk_data(b);
    ofi_waiter_t wt = { 0, 0 };
    for (int r = 0; r < p && rc == RMAIB_OK; r++) {
        if (connected[r])
            continue;
        ofi_peer_t *pe = &o->peers[r];
        ssize_t ret;
        atomic_fetch_add_explicit(&wt.pending, 1, memory_order_relaxed);
        POST(ret, fi_read(ofi.ep, buf, 8, ofi.pool_desc, pe->addr, pe->ctrl_raddr, pe->ctrl_key,
                          WAITER_CTX(&wt)));
        if (ret != 0) {
            atomic_fetch_sub_explicit(&wt.pending, 1, memory_order_relaxed);
            rc = post_failed("connection set-up", ret);
        }
        buf += 8;
    }
    rc = rmaib_first_error(rc, wait_for(&wt));
    pool_release(b);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (!connected[r])
            mark_connected(o->peers[r].addr);
    return rc;
}

static int reg(void *base, size_t size, uint64_t access, struct fid_mr **mr, uint64_t *key)
{
    uint64_t want_key = atomic_fetch_add_explicit(&ofi.next_key, 1, memory_order_relaxed);
    int r = fi_mr_reg(ofi.domain, base, size, access, 0, want_key, 0, mr, NULL);
    if (r == 0 && ofi.mr_endpoint) {
        r = fi_mr_bind(*mr, &ofi.ep->fid, 0);
        if (r == 0)
            r = fi_mr_enable(*mr);
        if (r != 0) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
        }
    }
    if (r != 0) {
        *mr = NULL;
        rmaib_host_say("rmaib: cannot register %zu bytes at %p with ofi: %s", size, base,
                       fi_strerror(-r));
        return RMAIB_ERR_TRANSPORT;
    }
    *key = fi_mr_key(*mr);
    return RMAIB_OK;
}

/* The address a region's byte at va goes by on the wire. */
static uint64_t wire_addr(uint64_t region_va, uint64_t va)
{
    return ofi.virt_addr ? va : va - region_va;
}

static void win_release(rmaib_win_t *w, ofi_win_t *o)
{
    amo_win_remove(o);
    for (int i = 0; i < RMAIB_MAX_ATTACH; i++)
        close_fid(&o->attach_mr[i]);
    close_fid(&o->data_mr);
    close_fid(&o->ctrl_mr);
    close_fid(&o->ktab_mr);
    close_fid(&o->box_mr);
    free(o->ktab);
    free(o->box);
    for (int r = 0; r < w->nranks; r++) {
        free(o->peers[r].ktab);
        pthread_mutex_destroy(&o->peers[r].amo_lock);
    }
    free(o);
}

static size_t amo_stage_bytes(int nranks);
static size_t amo_stage_off(const ofi_win_t *o, int origin);

static int ofi_win_init(rmaib_win_t *w)
{
    /* The network is in use exactly when it carries the window's atomics, which
     * every rank of the group decides alike. */
    if (w->atp != &rmaib_ofi_ops)
        return RMAIB_OK;
    int p = w->nranks, rc = RMAIB_OK;
    ofi_hello_t mine, *all = malloc(sizeof *all * (size_t) p);
    ofi_win_t *o = calloc(1, sizeof *o + sizeof(ofi_peer_t) * (size_t) p);
    const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (o) {
        o->rank = w->rank;
        o->nranks = p;
        o->ctrl = (char *) w->my_ctrl;
        o->ctrl_size = rmaib_ctrl_size(p, w->notify_max);
        if (w->flavor != RMAIB_FLAVOR_DYNAMIC) {
            o->data = w->base;
            o->data_size = w->size;
        }
        for (int r = 0; r < p; r++)
            pthread_mutex_init(&o->peers[r].amo_lock, NULL);
    }

    memset(&mine, 0, sizeof mine);
    mine.status = RMAIB_OK;
    if (!all || !o)
        mine.status = RMAIB_ERR_NO_MEM;
    else if (!atomic_load(&ofi.up) || ofi.namelen > OFI_NAME_MAX)
        mine.status = RMAIB_ERR_TRANSPORT;
    if (mine.status == RMAIB_OK) {
        memcpy(mine.name, ofi.name, ofi.namelen);
        mine.namelen = (uint32_t) ofi.namelen;
        mine.data_va = (uint64_t) (uintptr_t) w->base;
        if (w->flavor != RMAIB_FLAVOR_DYNAMIC && w->size > 0)
            mine.status = reg(w->base, w->size, remote, &o->data_mr, &mine.data_key);
    }
    if (mine.status == RMAIB_OK) {
        mine.ctrl_va = (uint64_t) (uintptr_t) w->my_ctrl;
        mine.status = reg(w->my_ctrl, rmaib_ctrl_size(p, w->notify_max), remote, &o->ctrl_mr, &mine.ctrl_key);
    }
    if (mine.status == RMAIB_OK && w->flavor == RMAIB_FLAVOR_DYNAMIC) {
        if (posix_memalign((void **) &o->ktab, 4096, sizeof *o->ktab) != 0) {
            o->ktab = NULL;
            mine.status = RMAIB_ERR_NO_MEM;
        } else {
            memset(o->ktab, 0, sizeof *o->ktab);
            mine.ktab_va = (uint64_t) (uintptr_t) o->ktab;
            mine.status = reg(o->ktab, sizeof *o->ktab, FI_REMOTE_READ, &o->ktab_mr,
                              &mine.ktab_key);
        }
    }
    /* The mailbox; a process out of window numbers goes without, and so then does
     * the whole window. */
    if (mine.status == RMAIB_OK && ofi.amo) {
        o->stage_bytes = amo_stage_bytes(p);
        size_t bytes = amo_stage_off(o, p);
        bytes = (bytes + 4095) & ~(size_t) 4095;
        if (posix_memalign((void **) &o->box, 4096, bytes) != 0) {
            o->box = NULL;
            mine.status = RMAIB_ERR_NO_MEM;
        } else {
            memset(o->box, 0, bytes);
            mine.box_va = (uint64_t) (uintptr_t) o->box;
            mine.status = reg(o->box, bytes, FI_REMOTE_WRITE | FI_REMOTE_READ, &o->box_mr,
                              &mine.box_key);
            if (mine.status == RMAIB_OK)
                mine.box_wid = o->wid = amo_win_add(o);
        }
    }

    if (!all) {
        rmaib_host_say("rmaib: out of memory setting up an ofi window");
        rc = RMAIB_ERR_NO_MEM;  /* cannot join the exchange; the peers will see it fail */
        goto fn_fail;
    }
    rc = rmaib_host_allgather(w->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].status != RMAIB_OK)
            rc = all[r].status;
    if (rc != RMAIB_OK)
        goto fn_fail;

    o->amo = ofi.amo;
    for (int r = 0; r < p; r++)
        if (!all[r].box_wid)
            o->amo = 0;
    if (ofi.amo_only && !o->amo) {      /* every rank sees the same boxes, so all fail */
        if (w->rank == 0)
            rmaib_host_say("rmaib: %s has no atomics and a rank of this window is out of "
                           "mailboxes (%d ofi windows at once)", ofi.info->fabric_attr->prov_name,
                           AMO_MAX_WINS);
        rc = RMAIB_ERR_NO_MEM;
        goto fn_fail;
    }
    int ins = RMAIB_OK;
    int *connected = calloc((size_t) p, sizeof(int));
    if (!connected)
        ins = RMAIB_ERR_NO_MEM;
    for (int r = 0; r < p && ins == RMAIB_OK; r++) {
        ofi_peer_t *pe = &o->peers[r];
        const ofi_hello_t *h = &all[r];
        ins = lookup_addr(h->name, h->namelen, &pe->addr, &connected[r]);
        pe->data_va = h->data_va;
        pe->data_raddr = wire_addr(h->data_va, h->data_va);
        pe->data_key = h->data_key;
        pe->ctrl_raddr = wire_addr(h->ctrl_va, h->ctrl_va);
        pe->ctrl_key = h->ctrl_key;
        pe->ktab_raddr = wire_addr(h->ktab_va, h->ktab_va);
        pe->ktab_key = h->ktab_key;
        pe->box_raddr = wire_addr(h->box_va, h->box_va);
        pe->box_key = h->box_key;
        pe->box_wid = h->box_wid;
        atomic_init(&pe->done, 0);
        atomic_init(&pe->err, 0);
        if (w->peers[r].tp == &rmaib_ofi_ops)
            w->peers[r].tpp = pe;
    }
    if (ins == RMAIB_OK)
        ins = connect_peers(w, o, connected);
    free(connected);
    /* One more exchange so that no rank keeps a window a peer could not set up. */
    int *st = (int *) all;
    rc = rmaib_host_allgather(w->hcomm, &ins, st, sizeof(int));
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (st[r] != RMAIB_OK)
            rc = st[r];
    if (rc != RMAIB_OK)
        goto fn_fail;
    free(all);
    w->ofi = o;
    return RMAIB_OK;

  fn_fail:
    if (o)
        win_release(w, o);
    free(all);
    return rc;
}

static int flush_peer(rmaib_win_t *w, ofi_peer_t *p);
static int ofi_quiesce(rmaib_win_t *w);

static void ofi_win_fini(rmaib_win_t *w)
{
    ofi_win_t *o = w->ofi;
    if (!o)
        return;
    ofi_quiesce(w);                         /* nothing may still credit this window */
    win_release(w, o);
    w->ofi = NULL;
}

/* ---------------------------------------------------------------- dynamic windows */

static int ofi_attach(rmaib_win_t *w, void *base, size_t size)
{
    ofi_win_t *o = w->ofi;
    if (!o || !o->ktab)
        return RMAIB_OK;
    ofi_ktab_t *t = o->ktab;
    if (t->n == RMAIB_MAX_ATTACH)
        return RMAIB_ERR_RMA_ATTACH;
    uint64_t key;
    int rc = reg(base, size, FI_REMOTE_READ | FI_REMOTE_WRITE, &o->attach_mr[t->n], &key);
    if (rc != RMAIB_OK)
        return rc;
    atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
    t->e[t->n].base = (uint64_t) (uintptr_t) base;
    t->e[t->n].size = size;
    t->e[t->n].key = key;
    t->n++;
    atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
    return RMAIB_OK;
}

static void ofi_detach(rmaib_win_t *w, const void *base)
{
    ofi_win_t *o = w->ofi;
    if (!o || !o->ktab)
        return;
    ofi_ktab_t *t = o->ktab;
    for (uint64_t i = 0; i < t->n; i++)
        if (t->e[i].base == (uint64_t) (uintptr_t) base) {
            atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
            struct fid_mr *mr = o->attach_mr[i];
            t->e[i] = t->e[t->n - 1];
            o->attach_mr[i] = o->attach_mr[t->n - 1];
            o->attach_mr[t->n - 1] = NULL;
            t->n--;
            atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
            fi_close(&mr->fid);
            return;
        }
}

/* ---------------------------------------------------------------- reads */

/* Read len bytes at (raddr, key) of p into dst and wait.  Without FI_MR_LOCAL the
 * pieces land in dst directly and are all in flight together; with it each goes
 * through a ring block. */
/* Post one read of n bytes at (raddr, key) of p into to, counted in wt. */
static int read_post(ofi_peer_t *p, void *to, size_t n, uint64_t raddr, uint64_t key,
                     ofi_waiter_t *wt)
{
    ssize_t r;
    atomic_fetch_add_explicit(&wt->pending, 1, memory_order_relaxed);
    POST(r, fi_read(ofi.ep, to, n, ofi.pool_desc, p->addr, raddr, key, WAITER_CTX(wt)));
    if (r == 0)
        return RMAIB_OK;
    atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_relaxed);
    return post_failed("get", r);
}

static int read_blocking(ofi_peer_t *p, void *dst, size_t len, uint64_t raddr, uint64_t key)
{
    ofi_waiter_t wt = { 0, 0 };
    int rc = RMAIB_OK;
    for (size_t done = 0; done < len && rc == RMAIB_OK; done += ofi.max_msg) {
        size_t n = len - done < ofi.max_msg ? len - done : ofi.max_msg;
        pool_blk_t *b = ofi.mr_local ? pool_alloc(n, NULL) : NULL;
        char *to = b ? blk_data(b) : (char *) dst + done;
        rc = read_post(p, to, n, raddr + done, key, &wt);
        if (b) {
            rc = rmaib_first_error(rc, wait_for(&wt));
            if (rc == RMAIB_OK)
                memcpy((char *) dst + done, to, n);
            pool_release(b);
        }
    }
    return rmaib_first_error(rc, wait_for(&wt));
}

/* A consistent copy of a dynamic target's key table, read again only when the
 * target's generation has moved. */
static int ktab_refresh(ofi_peer_t *p)
{
    uint64_t gen;
    RMAIB_BACKOFF(bo);
    if (!p->ktab) {
        p->ktab = malloc(sizeof *p->ktab);
        if (!p->ktab)
            return RMAIB_ERR_NO_MEM;
        p->ktab->gen = 1;       /* odd: never valid */
    }
    int rc = read_blocking(p, &gen, sizeof gen, p->ktab_raddr, p->ktab_key);
    while (rc == RMAIB_OK && gen != p->ktab->gen) {
        ofi_ktab_t *t = p->ktab;
        rc = read_blocking(p, t, 2 * sizeof(uint64_t), p->ktab_raddr, p->ktab_key);
        if (rc == RMAIB_OK && t->n > RMAIB_MAX_ATTACH)
            rc = RMAIB_ERR_INTERN;
        if (rc == RMAIB_OK && t->n)
            rc = read_blocking(p, t->e, t->n * sizeof t->e[0],
                               p->ktab_raddr + offsetof(ofi_ktab_t, e), p->ktab_key);
        if (rc == RMAIB_OK)
            rc = read_blocking(p, &gen, sizeof gen, p->ktab_raddr, p->ktab_key);
        if (rc == RMAIB_OK && ((t->gen & 1) || gen != t->gen)) {
            t->gen = 1;
            rmaib_backoff(&bo);
        }
    }
    return rc;
}

/* Where the len bytes at roff of p's data region are on the wire. */
static int data_target(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, size_t len,
                       uint64_t *raddr, uint64_t *key)
{
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC) {
        *raddr = p->data_raddr + roff;
        *key = p->data_key;
        return RMAIB_OK;
    }
    const ofi_ktab_t *t = p->ktab;
    for (uint64_t i = 0; t && i < t->n; i++)
        if (roff >= t->e[i].base && roff + len <= t->e[i].base + t->e[i].size) {
            *raddr = wire_addr(t->e[i].base, roff);
            *key = t->e[i].key;
            return RMAIB_OK;
        }
    return RMAIB_ERR_RMA_RANGE;
}

static int dyn_prepare(rmaib_win_t *w, ofi_peer_t *p)
{
    return w->flavor == RMAIB_FLAVOR_DYNAMIC ? ktab_refresh(p) : RMAIB_OK;
}

/* Regions attached back to back may be covered by one access (the core's range check
 * allows it, as MPICH does), but each has its own key: cut the pieces of a dynamic
 * window's transfer at region ends.  *out is segs itself when nothing is cut, else an
 * array the caller frees (*tofree).  Call after dyn_prepare. */
static int dyn_cut(rmaib_win_t *w, ofi_peer_t *p, const rmaib_seg_t *segs, size_t n,
                   const rmaib_seg_t **out, size_t *nout, rmaib_seg_t **tofree)
{
    *out = segs;
    *nout = n;
    *tofree = NULL;
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC)
        return RMAIB_OK;
    const ofi_ktab_t *t = p->ktab;
    rmaib_seg_t *cut = NULL;
    size_t pieces = 0;
    for (int pass = 0; pass < 2; pass++) {     /* count, then fill */
        pieces = 0;
        for (size_t j = 0; j < n; j++) {
            uint64_t off = segs[j].roff;
            size_t left = segs[j].len;
            char *la = segs[j].laddr;
            while (left > 0) {
                size_t fit = 0;
                for (uint64_t i = 0; t && i < t->n; i++)
                    if (off >= t->e[i].base && off < t->e[i].base + t->e[i].size) {
                        uint64_t room = t->e[i].base + t->e[i].size - off;
                        fit = room < left ? (size_t) room : left;
                        break;
                    }
                if (fit == 0) {
                    free(cut);
                    return RMAIB_ERR_RMA_RANGE;
                }
                if (cut)
                    cut[pieces] = (rmaib_seg_t) { off, la, fit };
                pieces++;
                off += fit;
                la += fit;
                left -= fit;
            }
        }
        if (pieces == n)
            return RMAIB_OK;    /* nothing crosses a region end */
        if (!cut && !(cut = malloc(pieces * sizeof *cut)))
            return RMAIB_ERR_NO_MEM;
    }
    *out = *tofree = cut;
    *nout = pieces;
    return RMAIB_OK;
}

/* ---------------------------------------------------------------- put / get */

/* Every write goes with fi_writemsg and these flags, not with fi_write: net 1.17's
 * fi_write hands its connection's endpoint that endpoint's own default flags, which
 * lack FI_DELIVERY_COMPLETE whatever ours say, so the write was reported once sent
 * (a 4 MiB put, its flush and a flag in shared memory after it found the target's
 * memory still old in 17 of 50 rounds); fi_writemsg passes its flags down.
 * In a PSCW access epoch nothing waits for delivery: MPI_Win_complete completes the
 * puts at the origin only, and the target learns of them from the complete, which
 * follows them in order (ofi_ctrl_store).  There, where a trailing read can stand in
 * should a flush be needed after all, the writes go without the target's
 * acknowledgement, one message fewer each. */
static uint64_t write_flags(const rmaib_win_t *w)
{
    int dc = ofi.delivery_complete && !(w->access == RMAIB_ACCESS_START && ofi.raw_ordered);
    return FI_COMPLETION | (dc ? FI_DELIVERY_COMPLETE : 0);
}

/* Write len bytes of src to (raddr, key) of p through ring blocks, so src is free
 * again on return; counted in p->issued for the flush, and in p->unread if the
 * writes go without FI_DELIVERY_COMPLETE. */
static int write_copied(const rmaib_win_t *w, ofi_peer_t *p, uint64_t raddr, uint64_t key,
                        const void *src, size_t len)
{
    uint64_t flags = write_flags(w);
    for (size_t done = 0; done < len; done += ofi.max_msg) {
        size_t n = len - done < ofi.max_msg ? len - done : ofi.max_msg;
        pool_blk_t *b = pool_alloc(n, p);
        ssize_t r;
        memcpy(blk_data(b), (const char *) src + done, n);
        struct iovec iov = { blk_data(b), n };
        void *desc = ofi.pool_desc;
        struct fi_rma_iov riov = { raddr + done, n, key };
        struct fi_msg_rma msg = {
            .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = p->addr,
            .rma_iov = &riov, .rma_iov_count = 1, .context = b,
        };
        POST(r, fi_writemsg(ofi.ep, &msg, flags));
        if (r != 0) {
            pool_release(b);
            return post_failed("put", r);
        }
        p->issued++;
        p->unread |= !(flags & FI_DELIVERY_COMPLETE);
    }
    return RMAIB_OK;
}

static int put_one(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, const void *src, size_t len)
{
    uint64_t raddr, key;
    int rc = data_target(w, p, roff, len, &raddr, &key);
    if (rc == RMAIB_OK)
        rc = write_copied(w, p, raddr, key, src, len);
    if (rc == RMAIB_OK)
        p->unordered |= len > ofi.waw_size;
    return rc;
}

static int ofi_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t nsegs);

static int ofi_put(rmaib_win_t *w, int peer, uint64_t roff, const void *src, size_t len)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC) {   /* may cross a region end */
        rmaib_seg_t seg = { roff, (void *) src, len };
        return ofi_putv(w, peer, &seg, 1);
    }
    return put_one(w, p, roff, src, len);
}

static int ofi_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *user_segs, size_t user_n)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    uint64_t flags = write_flags(w);
    const rmaib_seg_t *segs = user_segs;
    rmaib_seg_t *cut = NULL;
    size_t nsegs = user_n;
    int rc = dyn_prepare(w, p);
    if (rc == RMAIB_OK)
        rc = dyn_cut(w, p, user_segs, user_n, &segs, &nsegs, &cut);
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
        pool_blk_t *b = pool_alloc(total, p);
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
        POST(r, fi_writemsg(ofi.ep, &msg, flags));
        if (r != 0) {
            pool_release(b);
            rc = post_failed("put", r);
            break;
        }
        p->issued++;
        p->unordered |= total > ofi.waw_size;
        i += k;
    }
    if (rc == RMAIB_OK)
        p->unread |= !(flags & FI_DELIVERY_COMPLETE);
    free(cut);
    return rc;
}

/* Gets are blocking: the core uses what it fetched at once (the locked accumulate
 * path), so the data is there when get returns. */
static int get_one(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, void *dst, size_t len)
{
    uint64_t raddr, key;
    int rc = data_target(w, p, roff, len, &raddr, &key);
    if (rc == RMAIB_OK)
        rc = read_blocking(p, dst, len, raddr, key);
    if (rc == RMAIB_OK)
        p->unread = 0;
    return rc;
}

static int ofi_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t nsegs);

static int ofi_get(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    if (w->flavor == RMAIB_FLAVOR_DYNAMIC) {   /* may cross a region end */
        rmaib_seg_t seg = { roff, dst, len };
        return ofi_getv(w, peer, &seg, 1);
    }
    return get_one(w, p, roff, dst, len);
}

/* Batches of pieces, each one fi_readmsg straight into the user's memory, up to 64
 * batches in flight before one wait.  With FI_MR_LOCAL, piece by piece through the
 * ring. */
static int ofi_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *user_segs, size_t user_n)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    const rmaib_seg_t *segs = user_segs;
    rmaib_seg_t *cut = NULL;
    size_t nsegs = user_n;
    int rc = dyn_prepare(w, p);
    if (rc == RMAIB_OK)
        rc = dyn_cut(w, p, user_segs, user_n, &segs, &nsegs, &cut);
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
                rc = post_failed("get", r);
                break;
            }
            posted++;
            i += k;
        }
        rc = rmaib_first_error(rc, wait_for(&wt));
    }
    if (rc == RMAIB_OK)
        p->unread = 0;
    free(cut);
    return rc;
}

/* ---------------------------------------------------------------- flush */

static int flush_peer(rmaib_win_t *w, ofi_peer_t *p)
{
    RMAIB_BACKOFF(bo);
    (void) w;
    /* Without delivery completion a read behind the writes shows them placed
     * (FI_ORDER_RAW).  It goes out before we wait for the writes' own completions,
     * so the two waits overlap: where writes complete once sent, waiting for them
     * first made a put+flush cost two trips through the target's progress thread. */
    uint64_t dummy;
    ofi_waiter_t wt = { 0, 0 };
    int rc = RMAIB_OK, early = p->unread && !ofi.mr_local;
    if (early)
        rc = read_post(p, &dummy, sizeof dummy, p->ctrl_raddr, p->ctrl_key, &wt);
    while (atomic_load_explicit(&p->done, memory_order_acquire) != p->issued)
        rmaib_backoff(&bo);
    p->unordered = 0;
    if (early) {
        rc = rmaib_first_error(rc, wait_for(&wt));
        p->unread = 0;
    } else if (p->unread) {     /* FI_MR_LOCAL: the read lands in a ring block */
        rc = read_blocking(p, &dummy, sizeof dummy, p->ctrl_raddr, p->ctrl_key);
        p->unread = 0;
    }
    if (atomic_exchange_explicit(&p->err, 0, memory_order_relaxed))
        rc = RMAIB_ERR_TRANSPORT;
    return rc;
}

static int ofi_flush(rmaib_win_t *w, int peer)
{
    ofi_win_t *o = w->ofi;
    if (peer >= 0)
        return flush_peer(w, &o->peers[peer]);
    int rc = RMAIB_OK;
    for (int r = 0; r < w->nranks; r++) {
        ofi_peer_t *p = &o->peers[r];
        if (p->issued != atomic_load_explicit(&p->done, memory_order_acquire) || p->unread
            || atomic_load_explicit(&p->err, memory_order_relaxed)) {
            rc = rmaib_first_error(rc, flush_peer(w, p));
        }
    }
    return rc;
}

/* Puts are copied out when they return, and everything else is blocking. */
/* Window free: the control-word atomics left in flight land too (and the data). */
static int amo_quiesce(ofi_win_t *o);

/* Every step runs whatever an earlier one reported: the peers' records go after
 * this, and an operation still posted would complete into freed memory. */
static int ofi_quiesce(rmaib_win_t *w)
{
    ofi_win_t *o = w->ofi;
    int rc = o->amo ? amo_quiesce(o) : RMAIB_OK;
    for (int r = 0; r < w->nranks; r++) {
        ofi_peer_t *p = &o->peers[r];
        RMAIB_BACKOFF(bo);
        while (atomic_load_explicit(&p->ctrl_done, memory_order_acquire) != p->ctrl_issued)
            rmaib_backoff(&bo);
    }
    return rmaib_first_error(rc, ofi_flush(w, -1));
}

static int ofi_flush_local(rmaib_win_t *w, int peer)
{
    (void) w;
    (void) peer;
    return RMAIB_OK;
}

/* ---------------------------------------------------------------- atomics */

enum { AT_PLAIN, AT_FETCH, AT_COMPARE };

/* One blocking atomic of count elements of dt: operand (NULL for a read), compare
 * (AT_COMPARE only), result (AT_FETCH/AT_COMPARE) each of count * size bytes. */
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
    pool_blk_t *b = pool_alloc(3 * bytes, NULL);
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
        return post_failed("atomic", r);
    }
    if (kind == AT_PLAIN && !ofi.delivery_complete)
        p->unread = 1;
    *a = (ofi_atomic_op_t) { b, kind, bytes };
    return RMAIB_OK;
}

static void atomic_finish(ofi_atomic_op_t *a, void *result)
{
    if (result && a->kind != AT_PLAIN)
        memcpy(result, (char *) blk_data(a->b) + 2 * a->bytes, a->bytes);
    pool_release(a->b);
}

static int atomic_blocking(ofi_peer_t *p, int kind, uint64_t raddr, uint64_t key,
                           enum fi_datatype dt, enum fi_op op, size_t size, size_t count,
                           const void *operand, const void *compare, void *result)
{
    ofi_waiter_t wt = { 1, 0 };
    ofi_atomic_op_t a;
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

/* ---------------------------------------------------------------- target-executed control atomics */

/* The kinds of mailbox message with remote CQ data (answers have none). */
enum { AMO_REFUSED = 0, AMO_REQUEST = 1, AMO_ONE_WAY = 2 };
enum { AMO_FULL = 1 };          /* amo_issue: no slot may go to a one-way request now */
/* In the slot byte of an AMO_REFUSED answer: the refused request was one-way.  Nobody
 * waits on its slot, which the next answered request frees as for any one-way; the
 * origin keeps the error for its next flush to this target. */
enum { AMO_ONE_WAY_REFUSED = 0x80 };
/* From this many bytes an accumulate goes to the target as runs (amo_runs) even
 * where the provider has atomics, which over tcp are the same CPU atomics applied
 * by rxm element by element: accumulate+flush of 16 KiB took 177-195 us with rxm's
 * and 57 as runs, 64 KiB 654 and 262; at 4 KiB both about 50, at 1 KiB rxm's 33-36
 * and runs 47-53. */
enum { AMO_RUN_MIN = 4096 };

/* The remote CQ data of a mailbox message: kind, the receiver's number for the
 * window, the sender's rank in it, the slot. */
static uint64_t amo_data(unsigned kind, uint32_t wid, int rank, int slot)
{
    return (uint64_t) kind << 62 | (uint64_t) (wid & 0x3fffff) << 40
        | (uint64_t) (uint32_t) rank << 8 | (uint64_t) slot;
}

static size_t amo_answers_off(const ofi_win_t *o)
{
    return (size_t) o->nranks * RMAIB_AMO_SLOTS * sizeof(rmaib_amo_req_t);
}

/* Each origin's stage in a target's mailbox, for runs of elements.  Every rank
 * computes the same size from the window's: 16 KiB an origin, at most 1 MiB a
 * window, 256 bytes at least (32 elements of 8 bytes). */
static size_t amo_stage_bytes(int nranks)
{
    size_t b = ((size_t) 1 << 20) / (size_t) nranks;
    b = b > 16384 ? 16384 : b < 256 ? 256 : b;
    return b & ~(size_t) 63;
}

/* Where origin's stage starts in the mailbox (origin == nranks: its end). */
static size_t amo_stage_off(const ofi_win_t *o, int origin)
{
    size_t base = amo_answers_off(o)
        + (size_t) o->nranks * RMAIB_AMO_SLOTS * sizeof(rmaib_amo_ans_t);
    base = (base + 63) & ~(size_t) 63;
    return base + (size_t) origin * o->stage_bytes;
}

/* Answers the provider would not take yet (-FI_EAGAIN), sent by the next reaper;
 * touched only under reap_lock.  data 0: an answer the origin looks for (no
 * completion); else the refusal of a one-way request, which nobody looks for: its
 * remote CQ data tells the origin. */
typedef struct amo_unsent {
    fi_addr_t addr;
    uint64_t raddr, key, data;
    rmaib_amo_ans_t ans;
} amo_unsent_t;
static amo_unsent_t *amo_queue;
static size_t amo_nqueued, amo_queue_cap;

static int amo_send_answer(const amo_unsent_t *a)
{
    ssize_t r = a->data
        ? fi_inject_writedata(ofi.ep, &a->ans.value, sizeof a->ans.value, a->data, a->addr,
                              a->raddr, a->key)
        : fi_inject_write(ofi.ep, &a->ans, sizeof a->ans, a->addr, a->raddr, a->key);
    if (r == -FI_EAGAIN)
        return 0;
    if (r != 0)
        post_failed("a control atomic's answer", r);
    return 1;
}

static void amo_resend(void)
{
    size_t sent = 0;
    while (sent < amo_nqueued && amo_send_answer(&amo_queue[sent]))
        sent++;
    if (sent) {
        memmove(amo_queue, amo_queue + sent, (amo_nqueued - sent) * sizeof *amo_queue);
        amo_nqueued -= sent;
    }
}

/* Answer origin's request tagged tag in slot with its old value, or refuse it;
 * one_way: refuse a one-way request, by remote CQ data. */
static void amo_answer(ofi_win_t *o, int origin, int slot, int refused, int one_way,
                       uint32_t tag, uint64_t value)
{
    ofi_peer_t *p = &o->peers[origin];
    uint64_t at = ((uint64_t) o->rank * RMAIB_AMO_SLOTS + (uint64_t) slot)
        * sizeof(rmaib_amo_ans_t);
    amo_unsent_t a = {
        p->addr, p->box_raddr + amo_answers_off(o) + at, p->box_key,
        one_way ? amo_data(AMO_REFUSED, p->box_wid, o->rank, slot | AMO_ONE_WAY_REFUSED) : 0,
        { 0, 0, 0 },
    };
    rmaib_amo_answer_fill(&a.ans, tag, refused, value);
    if (amo_nqueued == 0 && amo_send_answer(&a))
        return;
    if (amo_nqueued == amo_queue_cap) {
        size_t cap = amo_queue_cap ? 2 * amo_queue_cap : 64;
        amo_unsent_t *q = realloc(amo_queue, cap * sizeof *q);
        if (!q) {               /* the origin would wait forever: say so */
            rmaib_host_say("rmaib: out of memory queueing a control atomic's answer");
            return;
        }
        amo_queue = q;
        amo_queue_cap = cap;
    }
    amo_queue[amo_nqueued++] = a;
}

/* A malformed request is refused, not guessed at: the answer says so and the
 * origin's call fails, rather than returning a value nobody computed. */
static void amo_serve(ofi_win_t *o, int origin, int slot, int one_way)
{
    const rmaib_amo_req_t *q = (const rmaib_amo_req_t *) o->box
        + (size_t) origin * RMAIB_AMO_SLOTS + (size_t) slot;
    uint64_t old;
    int rc = rmaib_amo_apply(q, o->ctrl, o->ctrl_size, o->data, o->data_size,
                             o->box + amo_stage_off(o, origin), o->stage_bytes, &old);
    if (rc != RMAIB_OK && !atomic_exchange(&ofi.said_error, 1))
        rmaib_host_say("rmaib: refused a malformed mailbox atomic from rank %d "
                       "(offset %llu, op %#x)", origin, (unsigned long long) q->off, q->op);
    if (!one_way)
        amo_answer(o, origin, slot, rc != RMAIB_OK, 0, q->tag, old);
    else if (rc != RMAIB_OK)
        amo_answer(o, origin, slot, 1, 1, q->tag, 0);
}

/* Our request in slot came back with value (refused: the target did not apply it):
 * hand value over, and free the slot and every one-way slot sent before it (the
 * target served those first). */
static void amo_answered(ofi_win_t *o, int target, int slot, int refused, uint64_t value)
{
    ofi_peer_t *p = &o->peers[target];
    pthread_mutex_lock(&p->amo_lock);
    amo_slot_t *a = &p->amo[slot];
    ofi_waiter_t *wt = a->wt;
    if (!(p->amo_busy >> slot & 1) || !wt) {
        pthread_mutex_unlock(&p->amo_lock);
        return;
    }
    if (refused)
        atomic_store_explicit(&wt->err, 1, memory_order_relaxed);
    else if (a->result)
        *a->result = value;
    for (int i = 0; i < RMAIB_AMO_SLOTS; i++)
        if ((p->amo_busy >> i & 1) && (i == slot || (!p->amo[i].wt && p->amo[i].seq < a->seq)))
            p->amo_busy &= ~(1u << i);
    pthread_mutex_unlock(&p->amo_lock);
    atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_release);
}

static int amo_await(ofi_win_t *o, int target, int slot, uint32_t tag)
{
    pthread_mutex_lock(&awaited_lock);
    if (nawaited == awaited_cap) {
        size_t cap = awaited_cap ? 2 * awaited_cap : 64;
        amo_awaited_t *a = realloc(awaited, cap * sizeof *a);
        if (!a) {
            pthread_mutex_unlock(&awaited_lock);
            return RMAIB_ERR_NO_MEM;
        }
        awaited = a;
        awaited_cap = cap;
    }
    awaited[nawaited++] = (amo_awaited_t) { o, target, slot, tag };
    atomic_store_explicit(&awaited_count, nawaited, memory_order_relaxed);
    pthread_mutex_unlock(&awaited_lock);
    return RMAIB_OK;
}

/* Take entry i off the list (the caller holds awaited_lock). */
static void amo_unlist(size_t i)
{
    awaited[i] = awaited[--nawaited];
    atomic_store_explicit(&awaited_count, nawaited, memory_order_relaxed);
}

static void amo_unawait(ofi_win_t *o, int target, int slot)
{
    pthread_mutex_lock(&awaited_lock);
    for (size_t i = 0; i < nawaited; i++)
        if (awaited[i].o == o && awaited[i].target == target && awaited[i].slot == slot) {
            amo_unlist(i);
            break;
        }
    pthread_mutex_unlock(&awaited_lock);
}

/* Look for the answers awaited; the caller holds reap_lock and has just read the CQ,
 * which is what places them.  Answers found are handed over after the list's lock is
 * released (amo_answered takes the slot's). */
static int amo_collect(void)
{
    if (atomic_load_explicit(&awaited_count, memory_order_relaxed) == 0)
        return 0;
    struct answer_found {
        ofi_win_t *o;
        int target, slot, refused;
        uint64_t value;
    } found[32];
    int n = 0;
    pthread_mutex_lock(&awaited_lock);
    for (size_t i = 0; i < nawaited && n < 32;) {
        amo_awaited_t *w = &awaited[i];
        const volatile rmaib_amo_ans_t *ans = (const volatile rmaib_amo_ans_t *) (w->o->box
            + amo_answers_off(w->o)) + (size_t) w->target * RMAIB_AMO_SLOTS + (size_t) w->slot;
        uint64_t value = 0;
        int got = rmaib_amo_answer_read(ans, w->tag, &value);
        if (got) {
            found[n++] = (struct answer_found) { w->o, w->target, w->slot, got < 0, value };
            amo_unlist(i);
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&awaited_lock);
    atomic_thread_fence(memory_order_acquire);
    for (int i = 0; i < n; i++)
        amo_answered(found[i].o, found[i].target, found[i].slot, found[i].refused,
                     found[i].value);
    return n;
}

/* A mailbox message with remote CQ data: a request, or the refusal of a one-way one. */
static void amo_incoming(uint64_t data)
{
    unsigned kind = (unsigned) (data >> 62), wid = (unsigned) (data >> 40) & 0x3fffff;
    uint32_t rank = (uint32_t) (data >> 8);
    int slot = (int) (data & 0xff & ~AMO_ONE_WAY_REFUSED);
    ofi_win_t *o = wid >= 1 && wid <= AMO_MAX_WINS
        ? atomic_load_explicit(&amo_wins[wid - 1], memory_order_acquire) : NULL;
    if (!o || rank >= (uint32_t) o->nranks || slot >= RMAIB_AMO_SLOTS || kind > AMO_ONE_WAY
        || (kind == AMO_REFUSED && !(data & AMO_ONE_WAY_REFUSED))) {
        if (!atomic_exchange(&ofi.said_error, 1))
            rmaib_host_say("rmaib: a mailbox message for no window (data %#llx)",
                           (unsigned long long) data);
        return;
    }
    if (kind == AMO_REFUSED)
        atomic_store_explicit(&o->peers[rank].err, FI_EINVAL, memory_order_relaxed);
    else
        amo_serve(o, (int) rank, slot, kind == AMO_ONE_WAY);
}

/* Send one request; wt NULL makes it one-way, which needs two slots left over for
 * the answered requests that free it (else AMO_FULL).  An answered request waits
 * for a free slot; its waiter's pending count already includes it. */
static int amo_issue(ofi_win_t *o, int peer, uint64_t off, uint32_t op, uint64_t operand,
                     uint64_t compare, uint64_t *result, ofi_waiter_t *wt)
{
    ofi_peer_t *p = &o->peers[peer];
    int slot = -1;
    RMAIB_BACKOFF(bo);
    for (;;) {
        pthread_mutex_lock(&p->amo_lock);
        slot = rmaib_amo_pick_slot(p->amo_busy, wt != NULL);
        if (slot >= 0) {
            p->amo_busy |= 1u << slot;
            p->amo[slot] = (amo_slot_t) { wt, result, ++p->amo_seq };
        }
        pthread_mutex_unlock(&p->amo_lock);
        if (slot >= 0)
            break;
        if (!wt)
            return AMO_FULL;
        rmaib_backoff(&bo);
    }
    rmaib_amo_req_t q = { off, operand, compare, op, (uint32_t) p->amo[slot].seq };
    uint64_t raddr = p->box_raddr
        + ((uint64_t) o->rank * RMAIB_AMO_SLOTS + (uint64_t) slot) * sizeof q;
    uint64_t data = amo_data(wt ? AMO_REQUEST : AMO_ONE_WAY, p->box_wid, o->rank, slot);
    ssize_t r = wt ? amo_await(o, peer, slot, q.tag) : RMAIB_OK;
    if (r == RMAIB_OK)
        RETRY(r, fi_inject_writedata(ofi.ep, &q, sizeof q, data, p->addr, raddr, p->box_key));
    if (r != 0) {
        if (wt)
            amo_unawait(o, peer, slot);
        pthread_mutex_lock(&p->amo_lock);
        p->amo_busy &= ~(1u << slot);
        pthread_mutex_unlock(&p->amo_lock);
        return r == RMAIB_ERR_NO_MEM ? (int) r : post_failed("control atomic", r);
    }
    return RMAIB_OK;
}

static int amo_blocking(ofi_win_t *o, int peer, uint64_t off, uint32_t op, uint64_t operand,
                        uint64_t compare, uint64_t *result)
{
    ofi_waiter_t wt = { 1, 0 };
    uint64_t ignored;
    int rc = amo_issue(o, peer, off, op, operand, compare, result ? result : &ignored, &wt);
    return rc != RMAIB_OK ? rc : wait_for(&wt);
}

/* Window free: our one-way requests to each target are served before the barrier
 * that lets the target drop its mailbox.  An answered read sent after them shows it. */
static int amo_quiesce(ofi_win_t *o)
{
    int rc = RMAIB_OK;
    for (int r = 0; r < o->nranks; r++) {
        ofi_peer_t *p = &o->peers[r];
        pthread_mutex_lock(&p->amo_lock);
        uint32_t busy = p->amo_busy;
        pthread_mutex_unlock(&p->amo_lock);
        if (busy)
            rc = rmaib_first_error(rc, amo_blocking(o, r, 0, RMAIB_AOP_READ, 0, 0, NULL));
    }
    return rc;
}

/* Two answered requests in flight at once (the MCS lock's tail swap and node reset). */
static int amo_pair(ofi_win_t *o, const rmaib_ctrl_req_t req[2])
{
    ofi_waiter_t wt = { 2, 0 };
    int rc = RMAIB_OK, n = 0;
    for (; n < 2 && rc == RMAIB_OK; n++)
        rc = amo_issue(o, req[n].peer, req[n].off, req[n].op, req[n].operand, req[n].compare,
                       req[n].result, &wt);
    /* A failed request is not in flight, nor is one never tried. */
    if (rc != RMAIB_OK)
        atomic_fetch_sub_explicit(&wt.pending, n == 1 ? 2 : 1, memory_order_relaxed);
    return rmaib_first_error(rc, wait_for(&wt));
}

static int ofi_ctrl_atomic2(rmaib_win_t *w, const rmaib_ctrl_req_t req[2])
{
    if (((ofi_win_t *) w->ofi)->amo)
        return amo_pair(w->ofi, req);
    ofi_waiter_t wt = { 2, 0 };
    ofi_atomic_op_t a[2];
    int rc = RMAIB_OK, n = 0;
    while (n < 2) {
        const rmaib_ctrl_req_t *q = &req[n];
        ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[q->peer];
        int cas = q->op == RMAIB_AOP_CAS;
        rc = atomic_start(&a[n], &wt, p, cas ? AT_COMPARE : AT_FETCH, p->ctrl_raddr + q->off,
                          p->ctrl_key, FI_UINT64, cas ? FI_CSWAP : FI_SUM, 8, 1, &q->operand,
                          &q->compare);
        if (rc != RMAIB_OK)
            break;
        n++;
    }
    /* A failed start took its own count back; the one never tried must go too. */
    if (n == 0 && rc != RMAIB_OK)
        atomic_fetch_sub_explicit(&wt.pending, 1, memory_order_relaxed);
    int rc2 = wait_for(&wt);
    for (int i = 0; i < n; i++)
        atomic_finish(&a[i], req[i].result);
    return rmaib_first_error(rc, rc2);
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
    pool_blk_t *blk = pool_alloc(bytes, (ofi_peer_t *) ((uintptr_t) p | (uintptr_t) (ctrl != 0)));
    ssize_t r;
    memcpy(blk_data(blk), operand, bytes);
    POST(r, fi_atomic(ofi.ep, blk_data(blk), count, ofi.pool_desc, p->addr, raddr, key, dt, op,
                      blk));
    if (r != 0) {
        pool_release(blk);
        return post_failed("atomic", r);
    }
    if (ctrl) {
        p->ctrl_issued++;
    } else {
        p->issued++;
        p->unordered = 1;   /* rxm applies an atomic after writes that follow it */
    }
    p->unread |= !ofi.delivery_complete;
    return RMAIB_OK;
}


static int ofi_ctrl_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                           uint64_t operand, uint64_t compare, uint64_t *result)
{
    ofi_win_t *o = w->ofi;
    ofi_peer_t *p = &o->peers[peer];
    int may_stay = !result && (peer != w->rank || rmaib_ctrl_atomic_only(off))
        && (op == RMAIB_AOP_FADD || op == RMAIB_AOP_WRITE);
    if (o->amo) {
        int rc = may_stay ? amo_issue(o, peer, off, op, operand, compare, NULL, NULL) : AMO_FULL;
        return rc != AMO_FULL ? rc : amo_blocking(o, peer, off, op, operand, compare, result);
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

/* An injected write: one message, no completion, no response.  Without inject
 * support, an ordinary write whose completion window free waits for.  It lands
 * after the writes issued before it (FI_ORDER_RMA_WAW), so only what it could
 * overtake is flushed first: a PSCW complete after puts costs one message, not a
 * round trip and a message. */
static int ofi_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    ssize_t r;
    if (p->unordered) {
        int rc = flush_peer(w, p);
        if (rc != RMAIB_OK)
            return rc;
    }
    if (ofi.inject_size >= sizeof value) {
        RETRY(r, fi_inject_write(ofi.ep, &value, sizeof value, p->addr, p->ctrl_raddr + off,
                                 p->ctrl_key));
        return r == 0 ? RMAIB_OK : post_failed("store", r);
    }
    pool_blk_t *b = pool_alloc(sizeof value, (ofi_peer_t *) ((uintptr_t) p | 1));
    memcpy(blk_data(b), &value, sizeof value);
    POST(r, fi_write(ofi.ep, blk_data(b), sizeof value, ofi.pool_desc, p->addr,
                     p->ctrl_raddr + off, p->ctrl_key, b));
    if (r != 0) {
        pool_release(b);
        return post_failed("store", r);
    }
    p->ctrl_issued++;
    return RMAIB_OK;
}

static int ofi_ctrl_read(rmaib_win_t *w, int peer, size_t off, void *dst, size_t len)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    return read_blocking(p, dst, len, p->ctrl_raddr + off, p->ctrl_key);
}

/* By type only (and the element's alignment, which every origin sees alike).  A
 * provider without atomics has the target's mailbox instead, on the types the CPU
 * does atomically (all or nothing per type, as rxm's table), outside dynamic windows,
 * whose memory the mailbox does not reach. */
static int ofi_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b, rmaib_op_t op)
{
    if ((unsigned) b >= RMAIB_BASIC_COUNT)
        return 0;
    if (ofi.amo_only ? w->flavor == RMAIB_FLAVOR_DYNAMIC || !rmaib_cpu_atomic_supported(b, op)
        : !ofi.native[b])
        return 0;
    uint64_t va = w->flavor == RMAIB_FLAVOR_DYNAMIC ? roff
        : ((ofi_win_t *) w->ofi)->peers[peer].data_va + roff;
    return va % rmaib_basic_size(b) == 0;
}

/* n elements of window data in runs: each run's operands are put into our stage at
 * the target, one request has the target apply them all, and after its answer the
 * old values wait in the stage to be read.  The request must not overtake the put:
 * one stream per peer places them in order, elsewhere the put is flushed first.
 * One request per element cost 10-16 us an element over net. */
static int amo_runs(rmaib_win_t *w, ofi_win_t *o, int peer, uint64_t roff, rmaib_basic_t b,
                    rmaib_op_t op, const char *operand, char *fetch, size_t n)
{
    ofi_peer_t *p = &o->peers[peer];
    size_t es = rmaib_basic_size(b), per = o->stage_bytes / es;
    uint64_t stage = p->box_raddr + amo_stage_off(o, o->rank);
    int rc = RMAIB_OK;
    for (size_t done = 0; done < n && rc == RMAIB_OK; done += per) {
        size_t k = n - done < per ? n - done : per;
        if (operand) {
            rc = write_copied(w, p, stage, p->box_key, operand + done * es, k * es);
            if (rc == RMAIB_OK && k * es > ofi.waw_size)
                rc = flush_peer(w, p);
        }
        if (rc == RMAIB_OK)
            rc = amo_blocking(o, peer, roff + done * es, rmaib_amo_data_run(b, op), k, 0, NULL);
        if (rc == RMAIB_OK && fetch)
            rc = read_blocking(p, fetch + done * es, k * es, stage, p->box_key);
    }
    return rc;
}

static int ofi_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                           rmaib_op_t op, const void *operand, void *fetch, size_t n)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
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
     * provider's atomic does at most, and rxm's over tcp costs more (see the top).
     * rxm applies its atomics with the same CPU atomics (libfabric's __atomic
     * handlers), so elements it updates stay atomic with these; and a request waits
     * for its answer, so nothing sent later overtakes it.  A provider without
     * atomics sends every element this way (acc_native said which). */
    ofi_win_t *o = w->ofi;
    int runs = n > 1 && (ofi.amo_only || n * es >= AMO_RUN_MIN);
    if (o->amo && (ofi.amo_only || runs || (fetch && n == 1))
        && w->flavor != RMAIB_FLAVOR_DYNAMIC && rmaib_cpu_atomic_supported(b, op)) {
        if (runs)
            return amo_runs(w, o, peer, roff, b, op, operand, fetch, n);
        uint64_t in = 0, old = 0;
        if (operand)
            memcpy(&in, operand, es);
        rc = amo_blocking(o, peer, roff, rmaib_amo_data_op(b, op), in, 0, &old);
        if (fetch)
            memcpy(fetch, &old, es);
        return rc;
    }
    if (!map_datatype(b, &dt) || !map_op(op, &fop))
        return RMAIB_ERR_INTERN;
    size_t lim = fetch ? ofi.count_f[b] : ofi.count_nf[b];
    if (lim > POOL_MAX / 3 / es)
        lim = POOL_MAX / 3 / es;
    /* A non-fetching atomic may stay in flight when the provider orders atomics and
     * the flush that ends the epoch comes to this backend: a peer reached by shm
     * for data gets its flush from shm, so atomics to it complete here. */
    int async = !fetch && operand && ofi.atomic_ordered && w->peers[peer].tp == &rmaib_ofi_ops;
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

static int ofi_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                        const void *compare, const void *swap, void *result)
{
    ofi_peer_t *p = &((ofi_win_t *) w->ofi)->peers[peer];
    uint64_t raddr, key;
    int rc = dyn_prepare(w, p);
    if (rc == RMAIB_OK)
        rc = data_target(w, p, roff, size, &raddr, &key);
    if (rc != RMAIB_OK)
        return rc;
    ofi_win_t *o = w->ofi;
    if (o->amo && w->flavor != RMAIB_FLAVOR_DYNAMIC) {     /* as ofi_data_atomic */
        uint64_t sw = 0, cmp = 0, old = 0;
        memcpy(&sw, swap, size);
        memcpy(&cmp, compare, size);
        rc = amo_blocking(o, peer, roff, rmaib_amo_data_cas(size), sw, cmp, &old);
        memcpy(result, &old, size);
        return rc;
    }
    return atomic_blocking(p, AT_COMPARE, raddr, key, uint_of_size(size), FI_CSWAP, size, 1, swap,
                           compare, result);
}

const rmaib_tp_ops_t rmaib_ofi_ops = {
    .name = "ofi",
    .reach = RMAIB_TP_NET,
    .start = rmaib_ofi_init,
    .failure = rmaib_ofi_failure,
    .atomics_on_cpu = rmaib_ofi_atomics_on_cpu,
    .wants_polling = rmaib_ofi_wants_polling,
    .poll_enter = rmaib_progress_thread_hold,
    .poll_leave = rmaib_progress_thread_release,
    .finalize = rmaib_ofi_finalize,
    .win_init = ofi_win_init,
    .win_fini = ofi_win_fini,
    .put = ofi_put,
    .get = ofi_get,
    .putv = ofi_putv,
    .getv = ofi_getv,
    .ctrl_atomic = ofi_ctrl_atomic,
    .ctrl_atomic2 = ofi_ctrl_atomic2,
    .ctrl_store = ofi_ctrl_store,
    .quiesce = ofi_quiesce,
    .acc_native = ofi_acc_native,
    .data_atomic = ofi_data_atomic,
    .data_cas = ofi_data_cas,
    .ctrl_read = ofi_ctrl_read,
    .flush = ofi_flush,
    .flush_local = ofi_flush_local,
    .progress = ofi_progress,
    .attach = ofi_attach,
    .detach = ofi_detach,
};
