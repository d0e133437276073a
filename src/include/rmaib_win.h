/*
 * Core-private window state: the window, its peers, the control block every rank
 * exposes, and the epoch bookkeeping the synchronisation files share.
 */
#ifndef RMAIB_WIN_H_INCLUDED
#define RMAIB_WIN_H_INCLUDED

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "rmaib.h"
#include "base/backoff.h"
#include "transport/transport.h"

#define RMAIB_CACHELINE 64
#define RMAIB_FENCE_ROUNDS 32        /* fence flags: 30 doubling rounds and 2 (fence.c) */
/* The two beyond the rounds, where P is not a power of two: an extra rank's arrival
 * at its partner, and the partner's word back once all are in. */
enum { RMAIB_FENCE_PRE = RMAIB_FENCE_ROUNDS - 2, RMAIB_FENCE_POST = RMAIB_FENCE_ROUNDS - 1 };
#define RMAIB_MAX_ATTACH 1024        /* attached regions per dynamic window and rank */

/* Lock word of a target (struct rmaib_ctrl.lock): shared holders in the low half,
 * writers waiting for readers to drain in bits 32..62, the writer bit on top.  A
 * waiting writer makes new readers back off, so a stream of readers cannot starve it.
 * Each process waits for a target at most once, so neither count can overflow in a
 * group MPI can make (int ranks). */
#define RMAIB_LOCK_SHARED_ONE   UINT64_C(1)
#define RMAIB_LOCK_SHARED_MASK  UINT64_C(0x00000000ffffffff)
#define RMAIB_LOCK_WAIT_ONE     (UINT64_C(1) << 32)
#define RMAIB_LOCK_WAIT_MASK    UINT64_C(0x7fffffff00000000)
#define RMAIB_LOCK_WRITER       (UINT64_C(1) << 63)
_Static_assert((RMAIB_LOCK_WAIT_MASK / RMAIB_LOCK_WAIT_ONE) >= (uint64_t) INT32_MAX
               && (RMAIB_LOCK_SHARED_MASK / RMAIB_LOCK_SHARED_ONE) >= (uint64_t) INT32_MAX,
               "a lock word counts every rank of the largest group waiting or sharing");

/* Global word on the window's master (rank 0): lock_all holders in the high half,
 * processes holding at least one exclusive lock in the low half (as foMPI). */
#define RMAIB_GLOBAL_ALL_ONE    (UINT64_C(1) << 32)
#define RMAIB_GLOBAL_ALL_MASK   UINT64_C(0xffffffff00000000)
#define RMAIB_GLOBAL_EXCL_ONE   UINT64_C(1)
#define RMAIB_GLOBAL_EXCL_MASK  UINT64_C(0x00000000ffffffff)

typedef struct rmaib_attach_region {
    uint64_t base, size;
} rmaib_attach_region_t;

/* Dynamic windows: the region of a target's table an access last fell in, and the
 * table's generation then; while that holds, the region does too. */
typedef struct rmaib_dyn_seen {
    uint64_t gen, lo, hi;
} rmaib_dyn_seen_t;

/* The control block: remotely accessible by every peer.  Words that different
 * ranks hammer sit on separate cache lines.  Two arrays follow the fixed part: the
 * PSCW area (per-rank sequence words or a post queue, rmaib_ctrl_pscw_bytes) and a
 * pool of MCS queue nodes, because a process may hold or
 * wait for exclusive locks on several targets at once and each queue links its own
 * node.  The notification counters come next (rmaib_ctrl_notify_off), and a
 * dynamic window's attach table last (rmaib_ctrl_attach_off).  The arrays are
 * address space: a page of them is memory once a word in it is written.
 *
 * Fence flags and PSCW sequence words are signals: each has one writer, which
 * stores growing values into it (rmaib_ctrl_store), and its owner reads it with
 * loads; no atomic ever touches it. */
struct rmaib_ctrl {
    /* lock .. mcs_tail: accessed only through the window's atomics transport, by
     * their owner too (see rmaib_ctrl_atomic_only) */
    _Alignas(RMAIB_CACHELINE) uint64_t lock;        /* this target's reader-writer lock */
    _Alignas(RMAIB_CACHELINE) uint64_t global_lock; /* used on the master only */
    _Alignas(RMAIB_CACHELINE) uint64_t acc_lock;    /* serialises locked accumulates */
    _Alignas(RMAIB_CACHELINE) uint64_t mcs_tail;    /* MCS queue tail: rank + 1, 0 = empty */
    _Alignas(RMAIB_CACHELINE) uint64_t fence_flag[RMAIB_FENCE_ROUNDS];
    _Alignas(RMAIB_CACHELINE) uint64_t seq[];
};

/* Dynamic windows' attach table, after the notification counters (the other flavors
 * have none): written by its owner only, read by origins. */
typedef struct rmaib_ctrl_attach {
    uint64_t gen;               /* odd while the table changes */
    uint64_t n;
    rmaib_attach_region_t r[RMAIB_MAX_ATTACH];
} rmaib_ctrl_attach_t;

/* Is the word at off one its owner never reads with plain loads?  Then an atomic on
 * it may stay in flight even when the owner is us: our next access is an atomic too,
 * which the transport orders after it. */
static inline int rmaib_ctrl_atomic_only(size_t off)
{
    return off < offsetof(struct rmaib_ctrl, fence_flag);
}

/* MCS queue node of this process for one target's queue. */
typedef struct rmaib_mcs_node {
    uint64_t next;      /* successor rank + 1, 0 = none yet */
    uint64_t locked;    /* 1 while waiting; the predecessor writes 0 to hand over */
} rmaib_mcs_node_t;

#define RMAIB_CTRL_OFF(field) offsetof(struct rmaib_ctrl, field)

/* The PSCW area after the fixed part, in one of two forms (pscw.c), the same in
 * every control block of a window (RMAIB_PSCW_*):
 *   words: per rank, the posts it made to us and the completes it sent us (16 B a
 *          rank: up to RMAIB_PSCW_DENSE ranks, where a post is one store);
 *   queue: rmaib_postq_t, whatever P.
 * A window that never takes PSCW epochs (the collectives') has neither. */
enum { RMAIB_PSCW_NONE, RMAIB_PSCW_WORDS, RMAIB_PSCW_QUEUE };
enum { RMAIB_SEQ_POST, RMAIB_SEQ_COMPLETE };

static inline size_t rmaib_ctrl_seq_off(int nranks, int kind, int rank)
{
    return sizeof(struct rmaib_ctrl) + ((size_t) kind * (size_t) nranks + (size_t) rank)
        * sizeof(uint64_t);
}

/* The post queue: a target claims a slot with a fetch-add on tail and stores
 * (round << 32 | its rank) in it, round = slot number / RMAIB_POSTQ_SLOTS + 1, so each
 * slot's values grow as ctrl_store wants; the owner drains slots in order and adds
 * what it took to head, which a target reads only when its slot may not be free yet.
 * Origins add their completes to done, the owner's wait counts them. */
enum { RMAIB_POSTQ_SLOTS = 64 };

typedef struct rmaib_postq {
    _Alignas(RMAIB_CACHELINE) uint64_t tail;    /* atomic-only */
    _Alignas(RMAIB_CACHELINE) uint64_t head;    /* atomic-only */
    _Alignas(RMAIB_CACHELINE) uint64_t done;    /* grown by atomics, read with loads */
    _Alignas(RMAIB_CACHELINE) uint64_t slot[RMAIB_POSTQ_SLOTS];     /* signals */
} rmaib_postq_t;

#define RMAIB_POSTQ_OFF(field) (sizeof(struct rmaib_ctrl) + offsetof(rmaib_postq_t, field))

/* A control block's post queue (windows in RMAIB_PSCW_QUEUE form). */
static inline rmaib_postq_t *rmaib_ctrl_postq(struct rmaib_ctrl *c)
{
    return (rmaib_postq_t *) (void *) (c + 1);
}

/* Bytes of the PSCW area for a mode and a group of nranks. */
static inline size_t rmaib_ctrl_pscw_bytes(int mode, int nranks)
{
    return mode == RMAIB_PSCW_WORDS ? 2 * (size_t) nranks * sizeof(uint64_t)
        : mode == RMAIB_PSCW_QUEUE ? sizeof(rmaib_postq_t) : 0;
}

/* The MCS queue nodes, a pool of RMAIB_MCS_NODES: a process queues or holds an
 * exclusive lock on one target per node (mcs.c).  The offsets from here on take the
 * PSCW area's size (rmaib_ctrl_pscw_bytes). */
enum { RMAIB_MCS_NODES = 64 };

static inline size_t rmaib_ctrl_mcs_off(size_t pscw, int node)
{
    return sizeof(struct rmaib_ctrl) + pscw + (size_t) node * sizeof(rmaib_mcs_node_t);
}

/* Notification counters after the MCS nodes, as many as the window's maximum
 * (struct rmaib_win.notify_max): atomic-only words, grown by peers' fetch-adds. */
static inline size_t rmaib_ctrl_notify_off(size_t pscw, int idx)
{
    return rmaib_ctrl_mcs_off(pscw, RMAIB_MCS_NODES) + (size_t) idx * sizeof(uint64_t);
}

static inline size_t rmaib_ctrl_attach_off(size_t pscw, int nnotify)
{
    size_t s = rmaib_ctrl_notify_off(pscw, nnotify);
    return (s + RMAIB_CACHELINE - 1) & ~(size_t) (RMAIB_CACHELINE - 1);
}

static inline size_t rmaib_ctrl_size(size_t pscw, int nnotify, int dynamic)
{
    size_t s = dynamic ? rmaib_ctrl_attach_off(pscw, nnotify) + sizeof(rmaib_ctrl_attach_t)
        : rmaib_ctrl_notify_off(pscw, nnotify);
    return (s + RMAIB_CACHELINE - 1) & ~(size_t) (RMAIB_CACHELINE - 1);
}

/* What the core knows of one peer: its entry of the window's peer table (peer.c),
 * made at the first access to it, or at creation for a window within one node. */
typedef struct rmaib_peer {
    const rmaib_tp_ops_t *tp;   /* data movement to this peer */
    void *tpp;                  /* that backend's per-peer state */
    uint64_t size;              /* peer's window size in bytes */
    int disp_unit;
    int node;                   /* node index, equal for peers that share memory */
    int pid;                    /* node-local peers only */
    int board_fd;               /* node-local peers: their board (shm_seg.c), or -1 */
    uint64_t base;              /* node-local peers: window base in its own address space */
    uint8_t lock_type;          /* RMAIB_LOCK_* this process holds on the peer */
    /* Set by the atomics transport where its elem_atomic does every element of a
     * CPU atomic type at an offset aligned to its size (allocated memory, mapped). */
    uint8_t elem_native;
    /* The peer's control block in this address space, set by the atomics transport
     * when its control-word atomics are plain CPU atomics on it (shm), else NULL. */
    char *ctrl_mapped;
} rmaib_peer_t;
/* Every operation reads its target's entry: keep each within one cache line. */
_Static_assert(sizeof(rmaib_peer_t) <= RMAIB_CACHELINE, "rmaib_peer_t outgrew a cache line");

/* Access epoch kinds. FENCE_ISSUED: a fence opened an epoch that no operation has
 * used yet, so the window may still move on to lock or PSCW (as MPICH does).
 * A lazy lock_all (lock_all.c) is a LOCK epoch with w->lock_all_lazy set: a target
 * is covered once its shared lock is taken, at the first operation on it, so the
 * latency paths test nothing more than for lock. */
enum {
    RMAIB_ACCESS_NONE = 0, RMAIB_ACCESS_FENCE_ISSUED, RMAIB_ACCESS_FENCE,
    RMAIB_ACCESS_START, RMAIB_ACCESS_LOCK, RMAIB_ACCESS_LOCK_ALL
};
enum { RMAIB_EXPOSURE_NONE = 0, RMAIB_EXPOSURE_FENCE, RMAIB_EXPOSURE_POST };
/* A rank's place in the current start group: not in it, in it but its post not yet
 * seen, or post seen (or MPI_MODE_NOCHECK).  Any thread of the epoch may change
 * WAITING to READY (pscw.c), so it is read and written with atomics. */
enum { RMAIB_START_OUT = 0, RMAIB_START_WAITING, RMAIB_START_READY };
/* peer.lock_type carries this bit when the lock was taken with MPI_MODE_NOCHECK, and
 * (mt) RMAIB_LOCK_PENDING while a thread acquires it. */
#define RMAIB_LOCK_NOCHECK_BIT 0x80
#define RMAIB_LOCK_PENDING 0x40

/* What this process has sent to one rank and consumed from it, in the units of the
 * sequence words (see rmaib_ctrl_seq_off).  With the post queue, posts_arrived
 * counts the rank's posts drained from it (any thread reads it), and post_head is
 * what the rank's queue's head last said. */
typedef struct rmaib_pscw_count {
    uint64_t posts_sent, posts_seen, completes_sent, completes_seen;
    uint64_t posts_arrived, post_head;
} rmaib_pscw_count_t;

/* A peer's entry: the hot part the operations read, then what the synchronisation
 * calls keep of it. */
typedef struct rmaib_peer_ent {
    rmaib_peer_t p;             /* first: a peer's address is its entry's */
    rmaib_pscw_count_t pscw;    /* the PSCW signals sent to it and taken from it */
    rmaib_dyn_seen_t dyn;       /* dynamic windows (not used with mt) */
    uint8_t start_state;        /* RMAIB_START_* */
    int8_t mcs_node;            /* our MCS node for the exclusive lock on it; -1: none
                                 * (the lock taken by test-and-set, the pool empty) */
    uint8_t lazy_shared;        /* mt: a lazy lock_all holds it (lock_all.c) */
    int rank;
} rmaib_peer_ent_t;

/* What creation learnt of every rank, in as few bytes as it takes (peer.c): a peer's
 * entry is made from it.  NULL arrays: the value is the same for every rank, or
 * (node) rank / node_block. */
typedef struct rmaib_peer_dir {
    uint64_t size;              /* every rank's size, unless sizes */
    int disp_unit;              /* ... and disp_unit, unless disp_units */
    int notify_num;             /* ... and notification counters, unless notify_nums */
    int node_block;             /* nodes of node_block consecutive ranks, unless nodes */
    uint64_t *sizes;
    int32_t *disp_units, *notify_nums, *nodes;
} rmaib_peer_dir_t;

struct rmaib_peer_tab;

struct rmaib_win {
    int flavor;
    int rank, nranks;
    void *hcomm;
    void *base;
    size_t size;
    int disp_unit;
    int lock_alg;
    int noncontig;
    int cma_peers;              /* rmaib_win_args_t.cma_peers */
    int map_user;               /* rmaib_win_args_t.map_user */
    int notify_max;             /* notification counters in every control block */
    /* The control blocks' PSCW area: its form (RMAIB_PSCW_*) and size.  None for a
     * window that never takes locks or PSCW (the collectives': bounded at any P). */
    int pscw_mode;
    size_t ctrl_pscw;
    uint64_t postq_head;        /* queue: slots of ours drained (pscw.c) */
    int postq_slots;            /* queue: its slots in use (RMAIB_POSTQ_SLOTS) */
    int setup_status;           /* creation: a local failure since the last agreement,
                                 * which the node backend's first agreement carries */
    /* The group's number for the window, alike on every rank and unique among the
     * process's windows, from which the network takes its keys (0: none; see
     * win_exchange.c); and the communicator's slot for the network's state. */
    uint64_t serial;
    void **net_dir;
    int boards;                 /* every rank has a board (shm_seg.c): alike on all */
    unsigned create_calls;      /* host collectives the creation made */
#define RMAIB_SERIAL_MAX (UINT64_C(1) << 21)    /* (the network's mailbox numbers) */
    uint64_t postq_completes;    /* queue: completes our waits consumed */
    int postq_draining;         /* queue: a thread drains (mt) */
    /* The notified reads' share of our own counters (MPIX_Get_notify_local): grown
     * by whoever completes a read, never by a peer, so a process-local word apart
     * from the control block's (which peers' network atomics may grow). */
    _Atomic uint64_t *notify_local;
    int mynode, nnodes;         /* node of this rank; number of nodes in the group */

    /* The peer table: every rank's entry where the window lies within one node and
     * on the node backend (dense), else the entries opened so far (ptab).  Either
     * way the node-local ranks, in order, are in local_ranks. */
    rmaib_peer_ent_t *peers;
    struct rmaib_peer_tab *ptab;
    rmaib_peer_dir_t dir;
    int *local_ranks, nlocal;
    const rmaib_tp_ops_t *tp_local, *tp_remote; /* for peers on our node, and the rest */
    const rmaib_tp_ops_t *atp;  /* the one transport for every control-block atomic */
    int ctrl_cpu;               /* which mapped control blocks take CPU atomics */
    struct rmaib_ctrl *my_ctrl; /* own control block, for local polling */
    const rmaib_tp_ops_t *tps[2]; /* distinct transports in use, for flush_all/progress */
    int ntps;
    void *shm;                  /* shm backend's window state */
    void *ofi;                  /* ofi backend's window state */

    /* epochs.  access is read with rmaib_access wherever another thread may change
     * it: with MPI_THREAD_MULTIPLE (mt), lock and unlock of different targets run at
     * once, and they change access, nlocks and peer.lock_type under epoch_lock; PSCW's
     * access and exposure epochs may be in two threads at once (rmaib_exposure). */
    int access, exposure;
    int mt;
    pthread_mutex_t epoch_lock;
    int nlocks;                 /* locks held on single targets (or, in a lazy
                                 * lock_all, the targets it has locked so far) */
    int excl_local;             /* exclusive locks read the master, lock_all counts
                                 * there (lock_all.c: windows within a node); else
                                 * lock_all is lazy and the master is not used */
    int local_fast;             /* excl_local, no mt, no stats, one transport that
                                 * completes at issue: the inline paths of lock.c
                                 * and rmaib_flush */
    int lock_all_nocheck;       /* lock_all was taken with MPI_MODE_NOCHECK */
    int lock_all_lazy;          /* the LOCK epoch is a lazy lock_all (lock_all.c) */
    _Atomic uint64_t mcs_free;  /* bit i: MCS node i is ours to take (mcs.c) */
    int fence_nosucceed;        /* last fence said NOSUCCEED */
    uint64_t fence_epoch;
    int *start_ranks, nstart;   /* PSCW access group (start_cap entries) */
    int start_nocheck;          /* its start said MPI_MODE_NOCHECK: no post to consume */
    int *post_ranks, npost;     /* PSCW exposure group (post_cap entries) */
    int start_cap, post_cap;

    /* RMAIB_STATS: control-block atomics aimed at other ranks, and how many of them
     * the lock calls spent (seed 002's messages per lock acquisition). */
    int stats;
    uint64_t stat_remote_ops;
    uint64_t stat_lock_acquires, stat_lock_ops;

    char describe[32];
};

/* The size of each control block of w. */
static inline size_t rmaib_win_ctrl_size(const rmaib_win_t *w)
{
    return rmaib_ctrl_size(w->ctrl_pscw, w->notify_max, w->flavor == RMAIB_FLAVOR_DYNAMIC);
}

/* Relaxed: plain moves, which a single thread pays nothing for; only the lock calls
 * of mt windows change access while other threads issue (under epoch_lock). */
static inline int rmaib_access(const rmaib_win_t *w)
{
    return __atomic_load_n(&w->access, __ATOMIC_RELAXED);
}

static inline void rmaib_set_access(rmaib_win_t *w, int access)
{
    __atomic_store_n(&w->access, access, __ATOMIC_RELAXED);
}

/* The same for exposure: one thread may post and wait while another starts and
 * completes, and each epoch's start ends what a fence left of the other (pscw.c). */
static inline int rmaib_exposure(const rmaib_win_t *w)
{
    return __atomic_load_n(&w->exposure, __ATOMIC_RELAXED);
}

static inline void rmaib_set_exposure(rmaib_win_t *w, int exposure)
{
    __atomic_store_n(&w->exposure, exposure, __ATOMIC_RELAXED);
}

/* win.c: the key that tells this process's node (equal on ranks that share memory)
 * for a window of flavor, and nodes numbered by first appearance of their key among
 * p keys stride bytes apart (node[r]; *nnodes of them). */
uint64_t rmaib_node_key(int flavor);
int rmaib_number_nodes(int p, const char *keys, size_t stride, int32_t *node, int *nnodes);

/* peer.c: the entry of rank r, opened now if it was not (RMAIB_ERR_NO_MEM if it
 * cannot be); and the same for a rank the caller knows to be open or that may
 * not fail (it stops the process, saying so, when memory runs out). */
int rmaib_peer_open(rmaib_win_t *w, int r, rmaib_peer_t **out);
/* (cold: the latency paths of a dense window keep no frame for the call) */
rmaib_peer_t *rmaib_peer_sparse(const rmaib_win_t *w, int r) __attribute__((cold));
/* The table itself: every rank's entry (dense) or none yet; its entries so far, and
 * each of them in turn; at the window's free. */
int rmaib_peer_table_init(rmaib_win_t *w, int dense);
size_t rmaib_peer_count(const rmaib_win_t *w);
void rmaib_peer_foreach(rmaib_win_t *w, void (*fn)(rmaib_win_t *, rmaib_peer_ent_t *, void *),
                        void *arg);
void rmaib_peer_table_free(rmaib_win_t *w);

static inline rmaib_peer_t *rmaib_peer(const rmaib_win_t *w, int r)
{
    if (__builtin_expect(w->peers != NULL, 1))
        return &w->peers[r].p;
    return rmaib_peer_sparse(w, r);
}

/* The entry of rank r if it is open, else NULL (the latency paths: a first access
 * goes the general way, which opens it and says if it cannot). */
rmaib_peer_t *rmaib_peer_find_sparse(const rmaib_win_t *w, int r) __attribute__((cold));

static inline rmaib_peer_t *rmaib_peer_lookup(const rmaib_win_t *w, int r)
{
    if (__builtin_expect(w->peers != NULL, 1))
        return &w->peers[r].p;
    return rmaib_peer_find_sparse(w, r);
}

/* For control words, without opening the entry: a peer not open is not node-local
 * (those open at creation), so no block of it is mapped here and its words go by
 * the network.  Fence partners and MCS neighbours take no entry so. */
static inline char *rmaib_peer_ctrl_mapped(const rmaib_win_t *w, int r)
{
    const rmaib_peer_t *pe = rmaib_peer_lookup(w, r);
    return pe ? pe->ctrl_mapped : NULL;
}

static inline const rmaib_tp_ops_t *rmaib_peer_tp(const rmaib_win_t *w, int r)
{
    const rmaib_peer_t *pe = rmaib_peer_lookup(w, r);
    return pe ? pe->tp : w->tp_remote;
}

static inline rmaib_peer_ent_t *rmaib_peer_ent(const rmaib_win_t *w, int r)
{
    return (rmaib_peer_ent_t *) rmaib_peer(w, r);
}

/* What the directory says of rank r without opening it. */
static inline uint64_t rmaib_peer_dir_size(const rmaib_win_t *w, int r)
{
    return w->dir.sizes ? w->dir.sizes[r] : w->dir.size;
}

static inline int rmaib_peer_dir_disp_unit(const rmaib_win_t *w, int r)
{
    return w->dir.disp_units ? w->dir.disp_units[r] : w->dir.disp_unit;
}

static inline int rmaib_peer_node(const rmaib_win_t *w, int r)
{
    return w->dir.nodes ? w->dir.nodes[r] : r / w->dir.node_block;
}

static inline int rmaib_peer_notify_num(const rmaib_win_t *w, int r)
{
    return w->dir.notify_nums ? w->dir.notify_nums[r] : w->dir.notify_num;
}

/* A statistics counter that threads may bump at once: a lost count is harmless, a
 * locked add on every control-word atomic is not.  Without RMAIB_STATS, a branch. */
static inline void rmaib_stat_add(const rmaib_win_t *w, uint64_t *c, uint64_t n)
{
    if (__builtin_expect(w->stats, 0))
        __atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline uint64_t rmaib_load(const uint64_t *p)
{
    return atomic_load_explicit((_Atomic uint64_t *) p, memory_order_acquire);
}

/* A control-word atomic as a CPU atomic on mapped memory.  Inline so that the switch
 * folds away at call sites, which all name their op: a lock acquisition is then one
 * locked instruction, not an indirect call into the backend. */
static inline uint64_t rmaib_cpu_ctrl_atomic(char *word_addr, rmaib_aop_t op, uint64_t operand,
                                             uint64_t compare)
{
    _Atomic uint64_t *word = (_Atomic uint64_t *) word_addr;
    uint64_t old = 0;
    switch (op) {
    case RMAIB_AOP_READ:
        old = atomic_load(word);
        break;
    case RMAIB_AOP_WRITE:
        atomic_store(word, operand);
        break;
    case RMAIB_AOP_FADD:
        old = atomic_fetch_add(word, operand);
        break;
    case RMAIB_AOP_SWAP:
        old = atomic_exchange(word, operand);
        break;
    case RMAIB_AOP_CAS:
        old = compare;
        atomic_compare_exchange_strong(word, &old, operand);
        break;
    }
    return old;
}

/* rmaib_win_t.ctrl_cpu: control words we can map and may use CPU atomics on. */
enum { RMAIB_CTRL_CPU_NONE, RMAIB_CTRL_CPU_SELF, RMAIB_CTRL_CPU_ALL };

#endif
