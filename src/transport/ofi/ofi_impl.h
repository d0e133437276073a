/*
 * The ofi backend's private state, shared by its files: endpoint.c (provider choice,
 * start-up), cq.c (completions, bounce ring), win.c (registration, addresses,
 * windows), peer.c (per-peer state), rma.c (put, get, flush, the touched list),
 * atomic.c (provider atomics) and amo.c (the mailbox's traffic).  ofi.h is the interface towards transport.c and the thread.
 */
#ifndef RMAIB_OFI_IMPL_H_INCLUDED
#define RMAIB_OFI_IMPL_H_INCLUDED

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_errno.h>
#include "rmaib_win.h"
#include "ofi.h"
#include "mailbox.h"
#include "loader.h"
#include "transport/rank_map.h"

/* Nothing below leaves the library: accesses to the state and calls between the
 * files stay direct (no GOT or PLT), as when all of it was one file. */
#pragma GCC visibility push(hidden)

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
/* A window's mailbox number: its serial (w->serial, below RMAIB_SERIAL_MAX), alike
 * on every rank, or one of the process's own from here up to 2^22. */
#define AMO_LOCAL_ID0 ((uint32_t) RMAIB_SERIAL_MAX)
/* Requested keys (no FI_MR_PROV_KEY): a window with a serial takes the four from 4 x
 * serial, alike on every rank; every other registration the next of next_key. */
#define OFI_KEY_LOCAL0 (4 * RMAIB_SERIAL_MAX)

/* An origin's record of a request in a slot.  A one-way request holds its slot
 * until an answered request sent after it comes back: the target served it by then. */
typedef struct amo_slot {
    ofi_waiter_t *wt;           /* NULL: one-way */
    uint64_t *result;
    uint64_t seq;
} amo_slot_t;

/* The part of a peer's record only the mailbox uses (amo.c), made at the first
 * request to the peer (rmaib_ofi_peer_amo). */
typedef struct ofi_peer_amo {
    pthread_mutex_t amo_lock;           /* the slots below: the caller's and the reaper's */
    /* Requests go out in the order of their seq (amo_answered frees one-way slots by
     * it): threads take turns from slot to post.  Never held by the CQ's reader. */
    pthread_mutex_t send_lock;
    pthread_mutex_t stage_lock;         /* our stage in its mailbox: one run at a time */
    uint32_t amo_busy;                  /* bit s: slot s in use */
    uint64_t amo_seq;
    amo_slot_t amo[RMAIB_AMO_SLOTS];
} ofi_peer_amo_t;

/* One target as this window sees it, made at the first access (peer.c). */
typedef struct ofi_peer {
    struct ofi_win *o;          /* its window */
    int rank;
    /* On o->touched: set (with one exchange) by whoever leaves work outstanding to
     * the peer, after the counters and flags below; cleared by the list's walker. */
    _Atomic int listed;
    struct ofi_peer *touched_next;
    fi_addr_t addr;
    uint64_t data_raddr, data_key;      /* raddr: what roff 0 is on the wire */
    uint64_t ctrl_raddr, ctrl_key;
    uint64_t ktab_raddr, ktab_key;
    uint64_t box_raddr, box_key;        /* the peer's mailbox */
    uint32_t box_wid;                   /* ... and its number for this window */
    /* Counted before the post, so done never passes issued, and any thread may issue
     * (MPI_THREAD_MULTIPLE): the flags below are atomics for the same reason. */
    _Atomic uint64_t issued;    /* asynchronous operations posted */
    _Atomic uint64_t done;      /* ... and completed (any thread) */
    _Atomic uint64_t ctrl_issued; /* the same for control-word atomics left in flight, */
    _Atomic uint64_t ctrl_done; /* which a flush does not wait for (see quiesce) */
    _Atomic uint64_t nread_issued; /* notified reads' pieces posted (nread.c) */
    _Atomic uint64_t nread_done; /* ... and completed */
    _Atomic int err;            /* an asynchronous operation failed: fi_errno */
    _Atomic int unread;         /* written without FI_DELIVERY_COMPLETE since the last read */
    _Atomic int stored;         /* injected control stores since the last read (quiesce) */
    _Atomic int unordered;      /* issued since the last flush: something a later write
                                 * may overtake (an atomic, a write beyond waw_size) */
    _Atomic(ofi_peer_amo_t *) amo;      /* NULL until the first mailbox request */
    ofi_ktab_t *ktab;           /* dynamic windows: cached copy of the peer's table */
    pthread_mutex_t ktab_lock;  /* ktab, refreshed in place (dyn_lock) */
} ofi_peer_t;

/* What window creation keeps of every peer's hello, one column per field (peer.c):
 * the same value for all (v NULL), that plus the rank (linear), column base's value
 * plus same (base >= 0), or an array of width-byte values. */
typedef struct ofi_col {
    uint64_t same;
    void *v;
    int8_t base;
    uint8_t width, linear;
} ofi_col_t;

/* The columns.  DATA_VA is the peer's window base modulo 64 (what alignment needs;
 * an allocated window's is 0 on every rank); the RADDRs are what the regions' first bytes are on the wire. */
enum {
    OFI_COL_AV, OFI_COL_DATA_VA, OFI_COL_DATA_RADDR, OFI_COL_DATA_KEY, OFI_COL_CTRL_RADDR,
    OFI_COL_CTRL_KEY, OFI_COL_KTAB_RADDR, OFI_COL_KTAB_KEY, OFI_COL_BOX_RADDR, OFI_COL_BOX_KEY,
    OFI_COL_BOX_WID, OFI_COL_N
};

typedef struct ofi_win {
    struct fid_mr *data_mr, *ctrl_mr, *ktab_mr, *box_mr;
    /* Mailbox: for each peer rank [nranks], its requests [RMAIB_AMO_SLOTS] and the
     * answers from it [RMAIB_AMO_SLOTS] (rmaib_amo_ans_t), then each origin's stage
     * for runs of elements [nranks][stage_bytes] (rmaib_ofi_amo_stage_bytes). */
    char *box;
    size_t box_bytes, stage_bytes;
    uint32_t wid;               /* its number in the process's mailboxes; 0: none */
    int amo;                    /* every rank has one: control atomics go through them */
    int rank, nranks;
    char *ctrl;                 /* our control block, size ctrl_size */
    size_t ctrl_size;
    char *data;                 /* our window memory, for mailbox data atomics; */
    size_t data_size;           /* 0 where there are none (dynamic windows) */
    ofi_ktab_t *ktab;           /* dynamic: own table, registered */
    struct fid_mr **attach_mr;  /* dynamic: [RMAIB_MAX_ATTACH], the regions' */
    /* The peers with work outstanding since a walk of the list last found them idle
     * (rma.c: rmaib_ofi_touch, rmaib_ofi_walk): what flush(-1), flush_local(-1) and
     * quiesce visit, in place of all nranks.  Pushed lock-free; walked by one thread
     * at a time (walk_lock), never on the put/get path. */
    _Atomic(ofi_peer_t *) touched;
    pthread_mutex_t walk_lock;
    ofi_col_t col[OFI_COL_N];
    rmaib_rank_map_t pmap;              /* the peers touched so far (peer.c) */
    pthread_mutex_t open_lock;          /* one thread at a time makes a record */
    /* Mailbox requests applied here, counted before each is answered: MPI_Win_sync
     * reads it (acquire), so what a CQ reader applied for a peer happens before. */
    _Atomic uint64_t served;
    /* A communicator's first window: the hellos' array, ours filled in, made inside
     * the node backend's agreement (rmaib_ofi_win_early) for win_init's exchange. */
    void *early_hellos;
} ofi_win_t;

#define OFI_INET_KEY 19         /* family, port, IPv6 address */

typedef struct ofi_addr_entry {
    uint64_t hash, ihash;       /* of name, of ikey */
    size_t len;
    char name[OFI_NAME_MAX];
    unsigned char ikey[OFI_INET_KEY]; /* the inet address in name, ilen bytes (0: none) */
    uint8_t ilen;
    fi_addr_t fa;
} ofi_addr_entry_t;

struct ofi_state {
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
    int chosen_keys;            /* we choose keys, and addresses are offsets: a window's
                                 * are the same on every rank (OFI_KEY_LOCAL0) */
    int delivery_complete;
    int raw_ordered;            /* a read shows the writes before it placed (FI_ORDER_RAW) */
    int atomic_ordered;         /* non-fetching atomics may stay outstanding */
    size_t waw_size;            /* writes up to this size land in the order posted */
    int cq_wait;                /* the CQ has a wait object: fi_cq_sread works */
    int sock_wait;              /* the thread sleeps on tcp's sockets (sock_wait.c) */
    int local_only;             /* the provider reaches this host only (shm) */
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

    ofi_addr_entry_t *addrs;    /* the address cache (win.c) */
    size_t naddrs, addrs_cap;
    uint32_t *addr_by_name, *addr_by_inet;  /* entry + 1 by hash, addr_slots each */
    size_t addr_slots;
    _Atomic int said_error;
};

/* The endpoint, its provider's traits and the bounce ring: one per process, defined
 * in ofi.c. */
extern struct ofi_state ofi;

#define WAITER_CTX(wt) ((void *) ((uintptr_t) (wt) | 1))

/* The per-peer counters and flags: relaxed, as the CQ's reader publishes done with
 * release and the flush reads it with acquire. */
#define CNT_ADD(c, n) atomic_fetch_add_explicit(&(c), (n), memory_order_relaxed)
#define CNT_GET(c) atomic_load_explicit(&(c), memory_order_relaxed)
#define FLAG_SET(f) atomic_store_explicit(&(f), 1, memory_order_relaxed)
#define FLAG_GET(f) atomic_load_explicit(&(f), memory_order_relaxed)
#define FLAG_TAKE(f) atomic_exchange_explicit(&(f), 0, memory_order_relaxed)

static inline int wait_for(ofi_waiter_t *wt)
{
    RMAIB_BACKOFF(bo);
    while (atomic_load_explicit(&wt->pending, memory_order_acquire) > 0)
        rmaib_backoff(&bo);
    return atomic_load_explicit(&wt->err, memory_order_relaxed) ? RMAIB_ERR_TRANSPORT : RMAIB_OK;
}

/* A wait for room to post (the provider's queue, the CQ's share, the ring) gives
 * up after RMAIB_OFI_TIMEOUT seconds, which an unreachable peer would otherwise
 * make for ever; nothing is in flight for the operation then, so it fails cleanly.
 * *since: when the wait began (0 until its first round). */
int rmaib_ofi_waited_out(uint64_t *since);

/* Make a provider call into r, polling while it says -FI_EAGAIN (its queue is
 * full until completions are read, or a connection is still being set up), or
 * -FI_ETIMEDOUT once that has lasted RMAIB_OFI_TIMEOUT. */
#define RETRY(r, call)                                                          \
    do {                                                                        \
        RMAIB_BACKOFF(rbo_);                                                    \
        uint64_t rsince_ = 0;                                                   \
        while (((r) = (call)) == -FI_EAGAIN) {                                  \
            if (rmaib_ofi_waited_out(&rsince_)) {                               \
                (r) = -FI_ETIMEDOUT;                                            \
                break;                                                          \
            }                                                                   \
            rmaib_backoff(&rbo_);                                               \
        }                                                                       \
    } while (0)

/* Post with a provider call into r, draining the CQ while the queue is full; a
 * posted operation counts as outstanding until its completion is read. */
#define POST(r, call)                                                           \
    do {                                                                        \
        RMAIB_BACKOFF(bo_);                                                     \
        uint64_t since_ = 0;                                                    \
        (r) = 0;                                                                \
        while (atomic_load_explicit(&ofi.outstanding, memory_order_relaxed)     \
               >= CQ_SIZE / 2) {                                                \
            if (rmaib_ofi_waited_out(&since_)) {                                \
                (r) = -FI_ETIMEDOUT;                                            \
                break;                                                          \
            }                                                                   \
            rmaib_backoff(&bo_);                                                \
        }                                                                       \
        if ((r) == 0)                                                           \
            RETRY(r, call);                                                     \
        if ((r) == 0)                                                           \
            atomic_fetch_add_explicit(&ofi.outstanding, 1, memory_order_relaxed); \
    } while (0)

/* endpoint.c */
void rmaib_ofi_close_fid(void *fidp);
int rmaib_ofi_map_datatype(rmaib_basic_t b, enum fi_datatype *dt);
int rmaib_ofi_map_op(rmaib_op_t op, enum fi_op *fop);

static inline enum fi_datatype rmaib_ofi_uint_of_size(size_t size)
{
    return size == 1 ? FI_UINT8 : size == 2 ? FI_UINT16 : size == 4 ? FI_UINT32 : FI_UINT64;
}

/* cq.c: completions and the bounce ring */
void rmaib_ofi_progress(void);
int rmaib_ofi_post_failed(const char *what, ssize_t r);
pool_blk_t *rmaib_ofi_pool_alloc(size_t len, ofi_peer_t *peer);

/* win.c: windows, registrations, dynamic windows' key tables */
int rmaib_ofi_win_init(rmaib_win_t *w);
int rmaib_ofi_win_early(rmaib_win_t *w);
void rmaib_ofi_dir_free(void *state);
void rmaib_ofi_win_fini(rmaib_win_t *w);
void rmaib_ofi_win_sync(rmaib_win_t *w);
int rmaib_ofi_attach(rmaib_win_t *w, void *base, size_t size);
void rmaib_ofi_detach(rmaib_win_t *w, const void *base);
int rmaib_ofi_ktab_refresh(ofi_peer_t *p);
int rmaib_ofi_dyn_cut(rmaib_win_t *w, ofi_peer_t *p, const rmaib_seg_t *segs, size_t n,
                      const rmaib_seg_t **out, size_t *nout, rmaib_seg_t **tofree);

/* peer.c */
int rmaib_ofi_col_set(ofi_win_t *o, int c, const uint64_t *v);
size_t rmaib_ofi_cols_bytes(const ofi_win_t *o);
void rmaib_ofi_cols_free(ofi_win_t *o);
ofi_peer_t *rmaib_ofi_peer_open(ofi_win_t *o, int r);
ofi_peer_amo_t *rmaib_ofi_peer_amo(ofi_peer_t *p);
void rmaib_ofi_peers_free(ofi_win_t *o);

/* Peer r's value of column c. */
static inline uint64_t rmaib_ofi_col(const ofi_win_t *o, int c, int r)
{
    const ofi_col_t *k = &o->col[c];
    if (k->v)
        return k->width == 4 ? ((const uint32_t *) k->v)[r] : ((const uint64_t *) k->v)[r];
    if (k->base >= 0)
        return k->same + rmaib_ofi_col(o, k->base, r);
    return k->same + (k->linear ? (uint64_t) r : 0);
}

/* Peer r's record if this process has touched it, else NULL. */
static inline ofi_peer_t *rmaib_ofi_peer_find(ofi_win_t *o, int r)
{
    return rmaib_rank_map_find(&o->pmap, r);
}

/* Peer r's record, made at the first access (NULL: out of memory).  The one place
 * an operation finds its target's state. */
static inline ofi_peer_t *ofi_peer(ofi_win_t *o, int r)
{
    ofi_peer_t *p = rmaib_ofi_peer_find(o, r);
    return __builtin_expect(p != NULL, 1) ? p : rmaib_ofi_peer_open(o, r);
}

/* rma.c */
/* p has work outstanding: put it on its window's touched list.  Call after the
 * counter or flag that says so: the exchange publishes them to the walker. */
static inline void rmaib_ofi_touch(ofi_peer_t *p)
{
    if (atomic_exchange(&p->listed, 1))
        return;
    ofi_peer_t *head = atomic_load_explicit(&p->o->touched, memory_order_relaxed);
    do
        p->touched_next = head;
    while (!atomic_compare_exchange_weak_explicit(&p->o->touched, &head, p,
                                                  memory_order_release, memory_order_relaxed));
}
int rmaib_ofi_walk(rmaib_win_t *w, int (*fn)(rmaib_win_t *, ofi_peer_t *, void *), void *arg);
int rmaib_ofi_read_post(ofi_peer_t *p, void *to, size_t n, uint64_t raddr, uint64_t key,
                        ofi_waiter_t *wt);
int rmaib_ofi_read_blocking(ofi_peer_t *p, void *dst, size_t len, uint64_t raddr,
                            uint64_t key);
int rmaib_ofi_write_copied(const rmaib_win_t *w, ofi_peer_t *p, uint64_t raddr, uint64_t key,
                           const void *src, size_t len);
int rmaib_ofi_put(rmaib_win_t *w, int peer, uint64_t roff, const void *src, size_t len);
int rmaib_ofi_get(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len);
int rmaib_ofi_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t nsegs);
int rmaib_ofi_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t nsegs);
int rmaib_ofi_flush_peer(rmaib_win_t *w, ofi_peer_t *p);
int rmaib_ofi_flush(rmaib_win_t *w, int peer);
int rmaib_ofi_flush_local(rmaib_win_t *w, int peer);
int rmaib_ofi_quiesce(rmaib_win_t *w);

/* nread.c */
int rmaib_ofi_notify_add(rmaib_win_t *w, int peer, size_t off);
int rmaib_ofi_get_notify(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n,
                         _Atomic uint64_t *counter);
void rmaib_ofi_nread_complete(void *ctx, int err);
void rmaib_ofi_nread_wait(ofi_win_t *o, ofi_peer_t *p);

/* atomic.c */
int rmaib_ofi_ctrl_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                          uint64_t operand, uint64_t compare, uint64_t *result);
int rmaib_ofi_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value);
int rmaib_ofi_ctrl_read(rmaib_win_t *w, int peer, size_t off, void *dst, size_t len);
int rmaib_ofi_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op);
int rmaib_ofi_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n);
int rmaib_ofi_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result);

/* amo.c: the mailbox's traffic (its wire format and checks are mailbox.c's) */
/* rmaib_ofi_amo_issue: no slot may go to a one-way request now. */
enum { AMO_FULL = 1 };
/* From this many bytes an accumulate goes to the target as runs even where the
 * provider has atomics, which over tcp are the same CPU atomics applied element by
 * element (docs/performance.md has the figures). */
enum { AMO_RUN_MIN = 4096 };
uint32_t rmaib_ofi_amo_win_add(ofi_win_t *o, uint32_t want);
int rmaib_ofi_amo_reserve(void);
void rmaib_ofi_amo_win_remove(ofi_win_t *o);
size_t rmaib_ofi_amo_stage_bytes(int nranks);
size_t rmaib_ofi_amo_stage_off(const ofi_win_t *o, int origin);
void rmaib_ofi_amo_incoming(uint64_t data);
void rmaib_ofi_amo_resend(void);
int rmaib_ofi_amo_collect(void);
void rmaib_ofi_cq_readers_out(void);
size_t rmaib_ofi_amo_awaited(void);
int rmaib_ofi_amo_issue(ofi_win_t *o, int peer, uint64_t off, uint32_t op, uint64_t operand,
                        uint64_t compare, uint64_t *result, ofi_waiter_t *wt);
int rmaib_ofi_amo_blocking(ofi_win_t *o, int peer, uint64_t off, uint32_t op,
                           uint64_t operand, uint64_t compare, uint64_t *result);
int rmaib_ofi_amo_quiesce(ofi_win_t *o, ofi_peer_t *p);
int rmaib_ofi_amo_runs(rmaib_win_t *w, ofi_win_t *o, int peer, uint64_t roff, rmaib_basic_t b,
                       rmaib_op_t op, const char *operand, char *fetch, size_t n);

static inline void pool_release(pool_blk_t *b)
{
    atomic_store_explicit(&b->busy, 0, memory_order_release);
}

static inline void *blk_data(pool_blk_t *b)
{
    return b + 1;
}

/* The address a region's byte at va goes by on the wire. */
static inline uint64_t wire_addr(uint64_t region_va, uint64_t va)
{
    return ofi.virt_addr ? va : va - region_va;
}

/* Where the len bytes at roff of p's data region are on the wire. */
static inline int data_target(rmaib_win_t *w, ofi_peer_t *p, uint64_t roff, size_t len,
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

static inline int dyn_prepare(rmaib_win_t *w, ofi_peer_t *p)
{
    return w->flavor == RMAIB_FLAVOR_DYNAMIC ? rmaib_ofi_ktab_refresh(p) : RMAIB_OK;
}

/* A dynamic window's cached key table of p is refreshed in place, so one thread at a
 * time uses it, from the refresh to the last post; a wait meanwhile serves the CQ
 * itself.  Returns what dyn_unlock needs. */
static inline int dyn_lock(const rmaib_win_t *w, ofi_peer_t *p)
{
    int dyn = w->flavor == RMAIB_FLAVOR_DYNAMIC;
    if (dyn)
        pthread_mutex_lock(&p->ktab_lock);
    return dyn;
}

static inline void dyn_unlock(ofi_peer_t *p, int dyn)
{
    if (dyn)
        pthread_mutex_unlock(&p->ktab_lock);
}

#pragma GCC visibility pop

#endif
