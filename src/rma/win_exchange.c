/*
 * Creation's exchange: what each rank brings to a new window, and what the group
 * makes of it (its nodes, the directory of sizes, the node-local peers and the
 * group-wide choices), up to the transports' choice.
 *
 * A communicator's first window gathers every rank's record (rmaib_win_hello_t).
 * Where the host keeps a directory for the communicator (args comm_dir), the nodes
 * and the local ranks' pids that showed go into it, and a later allocated, shared
 * or dynamic window reduces instead: one allreduce carries each rank's status
 * (with its local set-up and the network's start), its size and displacement unit
 * as min and max, and the group-wide choices.  Only a window whose sizes differ
 * gathers them then.  Every failure is agreed on by all ranks before anyone
 * leaves, so a bad rank never leaves its peers waiting, and the directory is made
 * or kept alike on every rank.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rma_impl.h"
#include "base/config.h"
#include "base/hash.h"
#include "rmaib_host.h"

struct rmaib_comm_dir {
    int nnodes, node_block, nlocal, on_host;
    int boards;                 /* every rank has a board */
    int32_t *nodes;             /* each rank's node; NULL: node_block ranks a node */
    int *local_ranks;
    int32_t *local_pids, *local_boards;
    void *net;                  /* the network backend's (rmaib_transport_dir_free) */
};

/* The window's number (w->serial): every rank offers the next of its own count and
 * the window takes the largest, so that it is above each rank's count, which then
 * moves past it.  A rank offers none (0), and the window then has none, while
 * another creation of the process is under way, whose number could come out the
 * same, or once its count reaches RMAIB_SERIAL_MAX.  A creation is under way until
 * its transports are set up (rmaib_win_exchange_end): the node backend's board
 * holds one window's segment at a time. */
static _Atomic uint64_t win_count = 1;
static _Atomic int creating;

static uint64_t serial_offer(void)
{
    int alone = atomic_fetch_add(&creating, 1) == 0;
    uint64_t s = atomic_fetch_add(&win_count, 1);
    return alone && s < RMAIB_SERIAL_MAX ? s : 0;
}

static void serial_take(rmaib_win_t *w, uint64_t serial)
{
    uint64_t c = atomic_load(&win_count);
    while (c <= serial && !atomic_compare_exchange_weak(&win_count, &c, serial + 1))
        ;
    if (w)
        w->serial = serial;
}

void rmaib_win_exchange_end(void)
{
    atomic_fetch_sub(&creating, 1);     /* (after the count has moved) */
}

/* Ranks share memory when they run on one host in one network namespace (two
 * namespaces on one host stand for two nodes in the multi-host test);
 * RMAIB_NODE_SIZE=k cuts the world into simulated nodes of k ranks, except for
 * MPI_Win_allocate_shared windows: MPI requires their ranks to share memory, and on
 * one host they do, so a test suite run with simulated nodes still creates them. */
static uint64_t host_key(void)
{
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    return rmaib_fnv1a(RMAIB_FNV1A_INIT, host, strlen(host));
}

static uint64_t node_key(int flavor)
{
    struct stat st;
    uint64_t h = host_key();
    if (stat("/proc/self/ns/net", &st) == 0)
        h = rmaib_fnv1a(h, &st.st_ino, sizeof st.st_ino);
    if (rmaib_config.node_size > 0 && flavor != RMAIB_FLAVOR_SHARED) {
        int sim = rmaib_host_world_rank() / rmaib_config.node_size;
        h = rmaib_fnv1a(h, &sim, sizeof sim);
    }
    return h;
}

/* Nodes numbered in order of first appearance of their key (keys[r * stride]
 * bytes apart), through a hash from key to node: O(P).  The hash is made apart
 * (node_hash_new: NULL without memory), so that creation makes it before its
 * exchange and nothing after the exchange can fail to number the nodes. */
typedef struct { uint64_t key; int32_t node; } node_slot_t;

static unsigned node_hash_bits(int p)
{
    unsigned bits = 1;
    while (((size_t) 1 << bits) < 2 * (size_t) p)
        bits++;
    return bits;
}

static node_slot_t *node_hash_new(int p)
{
    return calloc((size_t) 1 << node_hash_bits(p), sizeof(node_slot_t));
}

static void number_nodes_in(node_slot_t *h, int p, const char *keys, size_t stride,
                            int32_t *node, int *nnodes)
{
    unsigned bits = node_hash_bits(p);
    size_t mask = ((size_t) 1 << bits) - 1;
    *nnodes = 0;
    for (int r = 0; r < p; r++) {
        uint64_t k;
        memcpy(&k, keys + (size_t) r * stride, sizeof k);
        size_t i = (size_t) ((k * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
        while (h[i].node && h[i].key != k)      /* (node + 1 in the hash: 0 is empty) */
            i = (i + 1) & mask;
        if (!h[i].node) {
            h[i].key = k;
            h[i].node = ++*nnodes;
        }
        node[r] = h[i].node - 1;
    }
}

int rmaib_number_nodes(int p, const char *keys, size_t stride, int32_t *node, int *nnodes)
{
    node_slot_t *h = node_hash_new(p);
    if (!h)
        return RMAIB_ERR_NO_MEM;
    number_nodes_in(h, p, keys, stride, node, nnodes);
    free(h);
    return RMAIB_OK;
}

/* The directory's per-rank arrays and the nodes' hash, made before the exchange so
 * that a rank short of memory says so in it; those the exchange shows to be
 * needless go again. */
static int dir_alloc(rmaib_win_t *w, node_slot_t **hash)
{
    size_t p = (size_t) w->nranks;
    w->dir.sizes = malloc(p * sizeof *w->dir.sizes);
    w->dir.disp_units = malloc(p * sizeof *w->dir.disp_units);
    w->dir.nodes = malloc(p * sizeof *w->dir.nodes);
    *hash = node_hash_new(w->nranks);
    return w->dir.sizes && w->dir.disp_units && w->dir.nodes && *hash ? RMAIB_OK
        : RMAIB_ERR_NO_MEM;
}

uint64_t rmaib_node_key(int flavor)
{
    return node_key(flavor);
}

/* The directory from the exchange, keeping per rank only what differs between
 * ranks: a symmetric window (equal sizes and displacement units) with nodes of
 * consecutive ranks keeps nothing per rank; and the node-local ranks. */
static int win_set_dir(rmaib_win_t *w, const rmaib_win_hello_t *all, node_slot_t *hash)
{
    rmaib_peer_dir_t *d = &w->dir;
    int p = w->nranks, same_size = 1, same_disp = 1, block = 0, blocks = 1;
    number_nodes_in(hash, p, (const char *) &all[0].node_key, sizeof *all, d->nodes,
                    &w->nnodes);
    w->mynode = d->nodes[w->rank];
    for (int r = 0; r < p; r++) {
        d->sizes[r] = all[r].size;
        d->disp_units[r] = all[r].disp_unit;
        same_size &= all[r].size == all[0].size;
        same_disp &= all[r].disp_unit == all[0].disp_unit;
        w->nlocal += d->nodes[r] == w->mynode;
    }
    while (block < p && d->nodes[block] == 0)
        block++;
    for (int r = 0; r < p; r++)
        blocks &= d->nodes[r] == r / block;
    if (!(w->local_ranks = malloc(sizeof(int) * (size_t) w->nlocal)))
        return RMAIB_ERR_NO_MEM;
    for (int r = 0, i = 0; r < p; r++)
        if (d->nodes[r] == w->mynode)
            w->local_ranks[i++] = r;
    d->size = all[0].size;
    d->disp_unit = all[0].disp_unit;
    d->node_block = block;
    if (same_size) {
        free(d->sizes);
        d->sizes = NULL;
    }
    if (same_disp) {
        free(d->disp_units);
        d->disp_units = NULL;
    }
    if (blocks) {
        free(d->nodes);
        d->nodes = NULL;
    }
    return RMAIB_OK;
}

/* The peer table, with the node-local ranks' entries, which the node backend fills
 * in at its set-up; made before the transports' choice, whose failure is agreed on
 * with the rest, and told their transports after it (set_tp). */
static int open_peers(rmaib_win_t *w)
{
    int rc = rmaib_peer_table_init(w, w->nnodes == 1 && !rmaib_transport_forces_net());
    rmaib_peer_t *pe;
    for (int i = 0; rc == RMAIB_OK && i < w->nlocal; i++)
        rc = rmaib_peer_open(w, w->local_ranks[i], &pe);
    return rc;
}

/* ... with what the local ranks told. */
static int win_set_peers(rmaib_win_t *w, const rmaib_win_hello_t *all)
{
    int rc = open_peers(w);
    for (int i = 0; rc == RMAIB_OK && i < w->nlocal; i++) {
        int r = w->local_ranks[i];
        rmaib_peer(w, r)->base = all[r].base;
        rmaib_peer(w, r)->pid = all[r].pid;
        rmaib_peer(w, r)->board_fd = all[r].board_fd;
    }
    return rc;
}

/* The post queue's slots in use: all of them, unless a test asks for fewer
 * (RMAIB_TEST_POSTQ_SLOTS, so that a few ranks can fill it). */
static int postq_slots(void)
{
    int n = rmaib_env_int("RMAIB_TEST_POSTQ_SLOTS", RMAIB_POSTQ_SLOTS);
    return n < 1 ? 1 : n > RMAIB_POSTQ_SLOTS ? RMAIB_POSTQ_SLOTS : n;
}

/* The group-wide choices: notification counters (the most asked for), the lock
 * protocol (mcs if any rank asks), PSCW's words or queue and its slots (the
 * smallest RMAIB_PSCW_DENSE and RMAIB_TEST_POSTQ_SLOTS). */
static void set_choices(rmaib_win_t *w, const rmaib_win_args_t *a, int notify_max,
                        int lock_alg, int pscw_dense, int postq_slots)
{
    w->notify_max = notify_max;
    w->lock_alg = lock_alg;
    w->postq_slots = postq_slots;
    w->pscw_mode = a->no_sync_words ? RMAIB_PSCW_NONE
        : w->nranks > pscw_dense ? RMAIB_PSCW_QUEUE : RMAIB_PSCW_WORDS;
    w->ctrl_pscw = rmaib_ctrl_pscw_bytes(w->pscw_mode, w->nranks);
}

static int my_max_notify(const rmaib_win_args_t *a)
{
    return a->max_notify < 0 ? RMAIB_NOTIFY_DEFAULT_MAX
        : a->max_notify > RMAIB_NOTIFY_LIMIT ? RMAIB_NOTIFY_LIMIT : a->max_notify;
}

/* Windows whose node keys are the communicator's (RMAIB_NODE_SIZE leaves shared
 * windows on the host's real nodes) and that need no peer's base (Win_create's
 * memory is the user's): these may use and make the directory. */
static int dir_fits(const rmaib_win_args_t *a)
{
    return a->comm_dir && a->flavor != RMAIB_FLAVOR_CREATE
        && (a->flavor != RMAIB_FLAVOR_SHARED || rmaib_config.node_size <= 0);
}

void rmaib_comm_dir_free(rmaib_comm_dir_t *cd)
{
    if (!cd)
        return;
    free(cd->nodes);
    free(cd->local_ranks);
    free(cd->local_pids);
    free(cd->local_boards);
    rmaib_transport_dir_free(cd->net);
    free(cd);
}

/* The directory from a full exchange w has just taken in. */
static int comm_dir_make(const rmaib_win_t *w, const rmaib_win_hello_t *all, int on_host,
                         rmaib_comm_dir_t **out)
{
    rmaib_comm_dir_t *cd = calloc(1, sizeof *cd);
    size_t p = (size_t) w->nranks, l = (size_t) w->nlocal;
    if (!cd)
        return RMAIB_ERR_NO_MEM;
    cd->nnodes = w->nnodes;
    cd->node_block = w->dir.node_block;
    cd->nlocal = w->nlocal;
    cd->on_host = on_host;
    cd->boards = w->boards;
    cd->local_ranks = malloc(l * sizeof *cd->local_ranks);
    cd->local_pids = malloc(l * sizeof *cd->local_pids);
    cd->local_boards = malloc(l * sizeof *cd->local_boards);
    if (w->dir.nodes && (cd->nodes = malloc(p * sizeof *cd->nodes)))
        memcpy(cd->nodes, w->dir.nodes, p * sizeof *cd->nodes);
    if (!cd->local_ranks || !cd->local_pids || !cd->local_boards
        || (w->dir.nodes && !cd->nodes)) {
        rmaib_comm_dir_free(cd);
        return RMAIB_ERR_NO_MEM;
    }
    for (size_t i = 0; i < l; i++) {
        cd->local_ranks[i] = w->local_ranks[i];
        cd->local_pids[i] = all[w->local_ranks[i]].pid;
        cd->local_boards[i] = all[w->local_ranks[i]].board_fd;
    }
    *out = cd;
    return RMAIB_OK;
}

/* A communicator's first window (or a Win_create one): every rank's record. */
static int exchange_full(rmaib_win_t *w, const rmaib_win_args_t *a, int status,
                         uint64_t offer, uint64_t *serial, int *made_dir)
{
    int p = a->nranks;
    rmaib_win_hello_t mine = { 0 }, small[RMAIB_SMALL_GROUP], *all = small;

    mine.status = status;
    node_slot_t *hash = NULL;
    if (mine.status == RMAIB_OK && dir_alloc(w, &hash) != RMAIB_OK)
        mine.status = RMAIB_ERR_NO_MEM;
    if (p > RMAIB_SMALL_GROUP && !(all = malloc(sizeof *all * (size_t) p)))
        mine.status = RMAIB_ERR_NO_MEM;
    if (mine.status == RMAIB_OK) {
        mine.node_key = node_key(a->flavor);
        mine.host_key = host_key();
        mine.size = w->size;
        mine.base = (uint64_t) (uintptr_t) w->base;
        mine.pid = (int32_t) getpid();
        mine.disp_unit = w->disp_unit;
        mine.max_notify = my_max_notify(a);
        mine.lock_alg = a->lock_alg;
        mine.pscw_dense = rmaib_config.pscw_dense;
        mine.postq_slots = postq_slots();
        mine.serial = offer;
        mine.board_fd = rmaib_shm_board_fd();
    }
    /* A rank that failed above still joins the exchange, carrying its error; in a
     * large group, where it may have no buffer for it, all agree first. */
    int rc = p > RMAIB_SMALL_GROUP ? rmaib_host_agree(a->hcomm, p, mine.status) : RMAIB_OK;
    if (rc == RMAIB_OK)
        rc = rmaib_host_allgather(a->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].status != RMAIB_OK)
            rc = all[r].status;
    if (rc != RMAIB_OK)
        goto fn_exit;

    int on_host = 0, notify_max = 0, lock_alg = a->lock_alg;
    int pscw_dense = mine.pscw_dense, slots = mine.postq_slots, no_serial = 0;
    w->boards = 1;
    for (int r = 0; r < p; r++) {
        no_serial |= all[r].serial == 0;
        w->boards &= all[r].board_fd >= 0;
        if (all[r].serial > *serial)
            *serial = all[r].serial;
        if (all[r].pscw_dense < pscw_dense)
            pscw_dense = all[r].pscw_dense;
        if (all[r].postq_slots < slots)
            slots = all[r].postq_slots;
        if (all[r].max_notify > notify_max)
            notify_max = all[r].max_notify;
        if (all[r].lock_alg == RMAIB_LOCKALG_MCS)
            lock_alg = RMAIB_LOCKALG_MCS;
        on_host += all[r].host_key == mine.host_key;
    }
    if (no_serial)
        *serial = 0;
    rmaib_note_host_ranks(on_host);
    set_choices(w, a, notify_max, lock_alg, pscw_dense, slots);

    /* What fails from here on fails on one rank alone: the node backend's first
     * agreement carries it (setup_status), with whether the network started.  A
     * directory made here goes again if the creation fails, on every rank alike. */
    int st = win_set_dir(w, all, hash);
    if (st == RMAIB_OK)
        st = win_set_peers(w, all);
    if (st == RMAIB_OK && dir_fits(a) && !*a->comm_dir
        && (st = comm_dir_make(w, all, on_host, a->comm_dir)) == RMAIB_OK)
        *made_dir = 1;
    if (st == RMAIB_OK)
        st = rmaib_transport_prepare(w);
    if (st == RMAIB_OK)
        rmaib_transport_assign(w);
    w->setup_status = st;

  fn_exit:
    free(hash);
    if (all != small)
        free(all);
    return rc;
}

/* The nodes, local ranks and their peer entries, from the directory; the entries'
 * sizes come after the reduction (refresh_sizes). */
static int dir_take(rmaib_win_t *w, const rmaib_comm_dir_t *cd)
{
    size_t p = (size_t) w->nranks;
    w->nnodes = cd->nnodes;
    w->nlocal = cd->nlocal;
    w->boards = cd->boards;
    w->dir.node_block = cd->node_block;
    w->mynode = cd->nodes ? cd->nodes[w->rank] : w->rank / cd->node_block;
    if (cd->nodes && !(w->dir.nodes = malloc(p * sizeof *w->dir.nodes)))
        return RMAIB_ERR_NO_MEM;
    if (cd->nodes)
        memcpy(w->dir.nodes, cd->nodes, p * sizeof *w->dir.nodes);
    if (!(w->local_ranks = malloc(sizeof(int) * (size_t) w->nlocal)))
        return RMAIB_ERR_NO_MEM;
    memcpy(w->local_ranks, cd->local_ranks, sizeof(int) * (size_t) w->nlocal);
    int rc = open_peers(w);
    for (int i = 0; rc == RMAIB_OK && i < w->nlocal; i++) {    /* (allocated: no base yet) */
        rmaib_peer(w, w->local_ranks[i])->pid = cd->local_pids[i];
        rmaib_peer(w, w->local_ranks[i])->board_fd = cd->local_boards[i];
    }
    return rc;
}

/* Sizes and displacement units that differ between ranks: gathered after all. */
static int gather_sizes(rmaib_win_t *w, const rmaib_win_args_t *a)
{
    size_t p = (size_t) w->nranks;
    struct { uint64_t size; int64_t disp_unit; } mine = { w->size, w->disp_unit }, *all;
    all = malloc(p * sizeof *all);
    w->dir.sizes = malloc(p * sizeof *w->dir.sizes);
    w->dir.disp_units = malloc(p * sizeof *w->dir.disp_units);
    int ok = all && w->dir.sizes && w->dir.disp_units;
    int rc = rmaib_host_agree(a->hcomm, w->nranks, ok ? RMAIB_OK : RMAIB_ERR_NO_MEM);
    if (rc == RMAIB_OK)
        rc = rmaib_host_allgather(a->hcomm, &mine, all, sizeof mine);
    for (size_t r = 0; rc == RMAIB_OK && r < p; r++) {
        w->dir.sizes[r] = all[r].size;
        w->dir.disp_units[r] = (int32_t) all[r].disp_unit;
    }
    free(all);
    return rc;
}

/* The entries opened before the sizes were known (dir_take) take them now. */
static void refresh_sizes(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    (void) arg;
    e->p.size = rmaib_peer_dir_size(w, e->rank);
    e->p.disp_unit = rmaib_peer_dir_disp_unit(w, e->rank);
}

enum { R_STATUS, R_SIZE_MAX, R_SIZE_MIN, R_DISP_MAX, R_DISP_MIN, R_NOTIFY, R_LOCK_ALG,
       R_PSCW_DENSE, R_POSTQ_SLOTS, R_SERIAL, R_NO_SERIAL, NR };

/* A later window on a communicator with a directory: one reduction, whose minima
 * are the maxima of complements. */
static int exchange_reduced(rmaib_win_t *w, const rmaib_win_args_t *a, int status,
                            uint64_t offer, uint64_t *serial)
{
    const rmaib_comm_dir_t *cd = *a->comm_dir;
    uint64_t v[NR] = { 0 };
    int st = status;
    if (st == RMAIB_OK)
        st = dir_take(w, cd);
    if (st == RMAIB_OK)
        st = rmaib_transport_prepare(w);
    v[R_STATUS] = (uint64_t) (int64_t) st;
    if (st == RMAIB_OK) {
        v[R_SIZE_MAX] = w->size;
        v[R_SIZE_MIN] = ~(uint64_t) w->size;
        v[R_DISP_MAX] = (uint64_t) w->disp_unit;
        v[R_DISP_MIN] = ~(uint64_t) w->disp_unit;
        v[R_NOTIFY] = (uint64_t) my_max_notify(a);
        v[R_LOCK_ALG] = (uint64_t) a->lock_alg;
        v[R_PSCW_DENSE] = ~(uint64_t) rmaib_config.pscw_dense;
        v[R_POSTQ_SLOTS] = ~(uint64_t) postq_slots();
        v[R_SERIAL] = offer;
        v[R_NO_SERIAL] = offer == 0;
    }
    int rc = rmaib_host_allreduce_max(a->hcomm, v, NR);
    if (rc == RMAIB_OK)
        rc = (int) v[R_STATUS];
    if (rc != RMAIB_OK)
        return rc;
    *serial = v[R_NO_SERIAL] ? 0 : v[R_SERIAL];
    rmaib_note_host_ranks(cd->on_host);
    set_choices(w, a, (int) v[R_NOTIFY], (int) v[R_LOCK_ALG], (int) ~v[R_PSCW_DENSE],
                (int) ~v[R_POSTQ_SLOTS]);
    w->dir.size = v[R_SIZE_MAX];
    w->dir.disp_unit = (int) v[R_DISP_MAX];
    if (v[R_SIZE_MAX] != ~v[R_SIZE_MIN] || v[R_DISP_MAX] != ~v[R_DISP_MIN])
        rc = gather_sizes(w, a);
    if (rc == RMAIB_OK) {
        rmaib_peer_foreach(w, refresh_sizes, NULL);
        rmaib_transport_assign(w);
    }
    return rc;
}

int rmaib_win_exchange(rmaib_win_t *w, const rmaib_win_args_t *a, int status, int *made_dir)
{
    *made_dir = 0;
    if (!w && status == RMAIB_OK)
        status = RMAIB_ERR_NO_MEM;
    uint64_t offer = serial_offer(), serial = 0;
    int rc = dir_fits(a) && *a->comm_dir ? exchange_reduced(w, a, status, offer, &serial)
        : exchange_full(w, a, status, offer, &serial, made_dir);
    serial_take(w, rc == RMAIB_OK ? serial : 0);
    if (rc == RMAIB_OK && a->comm_dir && *a->comm_dir)
        w->net_dir = &(*a->comm_dir)->net;
    return rc;
}
