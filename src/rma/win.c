/*
 * Window lifetime: creation of the four flavors, free, dynamic attach/detach and
 * shared-memory queries.
 *
 * Creation is one allgather of what every rank brings (node, pid, size, disp_unit,
 * base), then the transports' collective set-up.  Every failure is agreed on by all
 * ranks before anyone leaves, so a bad rank never leaves its peers waiting.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rma_impl.h"
#include "base/config.h"
#include "rmaib_host.h"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
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
    return fnv1a(UINT64_C(0xcbf29ce484222325), host, strlen(host));
}

static uint64_t node_key(int flavor)
{
    struct stat st;
    uint64_t h = host_key();
    if (stat("/proc/self/ns/net", &st) == 0)
        h = fnv1a(h, &st.st_ino, sizeof st.st_ino);
    if (rmaib_config.node_size > 0 && flavor != RMAIB_FLAVOR_SHARED) {
        int sim = rmaib_host_world_rank() / rmaib_config.node_size;
        h = fnv1a(h, &sim, sizeof sim);
    }
    return h;
}

/* Frees the window, its peer table and directory, once the transports let go of it
 * (NULL is fine). */
static void win_delete(rmaib_win_t *w)
{
    if (!w)
        return;
    rmaib_peer_table_free(w);
    free(w->dir.sizes);
    free(w->dir.disp_units);
    free(w->dir.notify_nums);
    free(w->dir.nodes);
    free(w->local_ranks);
    free((void *) w->notify_local);
    free(w->start_ranks);
    free(w->post_ranks);
    pthread_mutex_destroy(&w->epoch_lock);
    free(w);
}

/* The window as the arguments describe it; NULL if memory ran out. */
static rmaib_win_t *win_new(const rmaib_win_args_t *a)
{
    rmaib_win_t *w = calloc(1, sizeof *w);

    if (!w)
        return NULL;
    w->flavor = a->flavor;
    w->rank = a->rank;
    w->nranks = a->nranks;
    w->hcomm = a->hcomm;
    w->base = a->flavor == RMAIB_FLAVOR_CREATE ? a->base : NULL;
    w->size = a->flavor == RMAIB_FLAVOR_DYNAMIC ? 0 : a->size;
    w->disp_unit = a->flavor == RMAIB_FLAVOR_DYNAMIC ? 1 : a->disp_unit;
    w->lock_alg = a->lock_alg;
    w->noncontig = a->noncontig;
    w->cma_peers = a->cma_peers;
    w->stats = rmaib_config.stats;
    /* Decided once: a program that cannot have two threads in one window pays for no
     * lock in its lock calls (rmaib_lock). */
    w->mt = rmaib_host_thread_multiple();
    rmaib_mcs_pool_init(w);
    pthread_mutex_init(&w->epoch_lock, NULL);
    w->map_user = a->map_user && rmaib_config.map_user_memory;
    return w;
}

/* The directory's per-rank arrays, made before the exchange so that a rank short of
 * memory says so in it; those the exchange shows to be needless go again. */
static int dir_alloc(rmaib_win_t *w)
{
    size_t p = (size_t) w->nranks;
    w->dir.sizes = malloc(p * sizeof *w->dir.sizes);
    w->dir.disp_units = malloc(p * sizeof *w->dir.disp_units);
    w->dir.nodes = malloc(p * sizeof *w->dir.nodes);
    return w->dir.sizes && w->dir.disp_units && w->dir.nodes ? RMAIB_OK : RMAIB_ERR_NO_MEM;
}

/* Nodes numbered in order of first appearance of their key (keys[r * stride]
 * bytes apart), through a hash from key to node: O(P).  RMAIB_ERR_NO_MEM without
 * room for the hash. */
int rmaib_number_nodes(int p, const char *keys, size_t stride, int32_t *node, int *nnodes)
{
    unsigned bits = 1;
    while (((size_t) 1 << bits) < 2 * (size_t) p)
        bits++;
    size_t mask = ((size_t) 1 << bits) - 1;
    struct { uint64_t key; int32_t node; } *h = calloc(mask + 1, sizeof *h);
    if (!h)
        return RMAIB_ERR_NO_MEM;
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
    free(h);
    return RMAIB_OK;
}

static int number_nodes(rmaib_win_t *w, const rmaib_win_hello_t *all, int32_t *node)
{
    return rmaib_number_nodes(w->nranks, (const char *) &all[0].node_key, sizeof *all, node,
                              &w->nnodes);
}

uint64_t rmaib_node_key(int flavor)
{
    return node_key(flavor);
}

/* The directory from the exchange, keeping per rank only what differs between
 * ranks: a symmetric window (equal sizes and displacement units) with nodes of
 * consecutive ranks keeps nothing per rank; and the node-local ranks. */
static int win_set_dir(rmaib_win_t *w, const rmaib_win_hello_t *all)
{
    rmaib_peer_dir_t *d = &w->dir;
    int p = w->nranks, same_size = 1, same_disp = 1, block = 0, blocks = 1;
    int rc = number_nodes(w, all, d->nodes);
    if (rc != RMAIB_OK)
        return rc;
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
 * in at its set-up, from what they told; made before the transports' choice, which
 * agrees on its failure, and told their transports after it (set_tp). */
static int win_set_peers(rmaib_win_t *w, const rmaib_win_hello_t *all)
{
    int rc = rmaib_peer_table_init(w, w->nnodes == 1 && !rmaib_transport_forces_net());
    for (int i = 0; rc == RMAIB_OK && i < w->nlocal; i++) {
        int r = w->local_ranks[i];
        rmaib_peer_t *pe;
        rc = rmaib_peer_open(w, r, &pe);
        if (rc == RMAIB_OK) {
            pe->base = all[r].base;
            pe->pid = all[r].pid;
        }
    }
    return rc;
}

static void set_tp(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    (void) arg;
    e->p.tp = e->p.node == w->mynode ? w->tp_local : w->tp_remote;
}

static void win_describe(rmaib_win_t *w)
{
    if (w->ntps > 1)
        snprintf(w->describe, sizeof w->describe, "%s+%s", w->tps[0]->name, w->tps[1]->name);
    else
        snprintf(w->describe, sizeof w->describe, "%s", w->atp->name);
}

/* The post queue's slots in use: all of them, unless a test asks for fewer
 * (RMAIB_TEST_POSTQ_SLOTS, so that a few ranks can fill it). */
static int postq_slots(void)
{
    int n = rmaib_env_int("RMAIB_TEST_POSTQ_SLOTS", RMAIB_POSTQ_SLOTS);
    return n < 1 ? 1 : n > RMAIB_POSTQ_SLOTS ? RMAIB_POSTQ_SLOTS : n;
}

int rmaib_win_create(const rmaib_win_args_t *a, rmaib_win_t **out)
{
    int rc = rmaib_init();
    int p = a->nranks;
    rmaib_win_hello_t mine = { 0 }, small[RMAIB_SMALL_GROUP], *all = small;
    rmaib_win_t *w = win_new(a);

    *out = NULL;
    mine.status = rc != RMAIB_OK ? rc : a->status;
    if (!w || dir_alloc(w) != RMAIB_OK)
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
        mine.max_notify = a->max_notify < 0 ? RMAIB_NOTIFY_DEFAULT_MAX
            : a->max_notify > RMAIB_NOTIFY_LIMIT ? RMAIB_NOTIFY_LIMIT : a->max_notify;
        mine.lock_alg = a->lock_alg;
        mine.pscw_dense = rmaib_config.pscw_dense;
        mine.postq_slots = postq_slots();
    }
    /* A rank that failed above still joins the exchange, carrying its error; in a
     * large group, where it may have no buffer for it, all agree first. */
    rc = p > RMAIB_SMALL_GROUP ? rmaib_host_agree(a->hcomm, p, mine.status) : RMAIB_OK;
    if (rc == RMAIB_OK)
        rc = rmaib_host_allgather(a->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].status != RMAIB_OK)
            rc = all[r].status;
    if (rc != RMAIB_OK)
        goto fn_fail;

    int on_host = 0, pscw_dense = mine.pscw_dense;
    w->postq_slots = mine.postq_slots;
    for (int r = 0; r < p; r++) {
        if (all[r].pscw_dense < pscw_dense)
            pscw_dense = all[r].pscw_dense;
        if (all[r].postq_slots < w->postq_slots)
            w->postq_slots = all[r].postq_slots;
        if (all[r].max_notify > w->notify_max)
            w->notify_max = all[r].max_notify;
        if (all[r].lock_alg == RMAIB_LOCKALG_MCS)
            w->lock_alg = RMAIB_LOCKALG_MCS;
        on_host += all[r].host_key == mine.host_key;
    }
    rmaib_note_host_ranks(on_host);
    w->pscw_mode = a->no_sync_words ? RMAIB_PSCW_NONE
        : p > pscw_dense ? RMAIB_PSCW_QUEUE : RMAIB_PSCW_WORDS;
    w->ctrl_pscw = rmaib_ctrl_pscw_bytes(w->pscw_mode, p);

    /* What fails from here on fails on one rank alone: the transports' choice agrees
     * on it, with whether the network started, before anyone goes on. */
    int st = win_set_dir(w, all);
    if (st == RMAIB_OK)
        st = win_set_peers(w, all);
    rc = rmaib_transport_choose(w, st);
    if (rc == RMAIB_OK) {
        rmaib_peer_foreach(w, set_tp, NULL);
        rc = rmaib_transport_win_init(w);
    }
    if (rc != RMAIB_OK)
        goto fn_fail;
    w->excl_local = w->lock_alg == RMAIB_LOCKALG_TAS && w->nnodes == 1
        && w->ctrl_cpu == RMAIB_CTRL_CPU_ALL;
    w->local_fast = w->excl_local && !w->mt && !w->stats && w->atp->complete_at_issue
        && w->peers && w->tp_local == w->atp;
    win_describe(w);
    *out = w;

  fn_exit:
    if (all != small)
        free(all);
    return rc;
  fn_fail:
    win_delete(w);
    goto fn_exit;
}

int rmaib_win_free(rmaib_win_t *w)
{
    if (w->nlocks || w->lock_all_lazy || w->access == RMAIB_ACCESS_LOCK_ALL
        || w->access == RMAIB_ACCESS_START || w->exposure == RMAIB_EXPOSURE_POST)
        return RMAIB_ERR_RMA_SYNC;
    if (rmaib_config.stats && w->stat_lock_acquires)
        rmaib_host_say("rmaib: stats lock=%s acquisitions=%llu lock-remote-atomics=%llu "
                       "per-acquisition=%.2f remote-atomics-total=%llu",
                       w->lock_alg == RMAIB_LOCKALG_MCS ? "mcs" : "tas",
                       (unsigned long long) w->stat_lock_acquires,
                       (unsigned long long) w->stat_lock_ops,
                       (double) w->stat_lock_ops / (double) w->stat_lock_acquires,
                       (unsigned long long) w->stat_remote_ops);
    /* Peers may still be reading or unlocking words in our control block until they
     * too have reached MPI_Win_free; our own last releases may still be in flight
     * (ofi posts them), so they land before the barrier. */
    int rc = rmaib_quiesce(w);
    rc = rmaib_first_error(rc, rmaib_host_barrier(w->hcomm));
    rmaib_transport_win_fini(w);
    /* A Win_create window's pages go back to private memory in fini (shm.c), a copy:
     * a peer out of its free first could write them through another window over
     * the same memory meanwhile, into pages about to be replaced. */
    if (w->flavor == RMAIB_FLAVOR_CREATE)
        rc = rmaib_first_error(rc, rmaib_host_barrier(w->hcomm));
    win_delete(w);
    return rc;
}

/* The attach table is written only by its owner and read remotely; a generation
 * count, odd while the table changes, lets a reader detect a torn copy. */
static rmaib_ctrl_attach_t *attach_table(rmaib_win_t *w)
{
    return (rmaib_ctrl_attach_t *) ((char *) w->my_ctrl
                                    + rmaib_ctrl_attach_off(w->ctrl_pscw, w->notify_max));
}

static void attach_bump(rmaib_ctrl_attach_t *t)
{
    atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
}

int rmaib_win_attach(rmaib_win_t *w, void *base, size_t size)
{
    uint64_t b = (uint64_t) (uintptr_t) base;
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC)
        return RMAIB_ERR_RMA_FLAVOR;
    if (size == 0)
        return RMAIB_OK;
    if (!base)
        return RMAIB_ERR_RMA_ATTACH;
    rmaib_ctrl_attach_t *t = attach_table(w);
    for (uint64_t i = 0; i < t->n; i++)
        if (b < t->r[i].base + t->r[i].size && t->r[i].base < b + size)
            return RMAIB_ERR_RMA_ATTACH;
    if (t->n == RMAIB_MAX_ATTACH)
        return RMAIB_ERR_RMA_ATTACH;
    /* The backends expose the region (register it with the network) before any
     * origin can find it in the table. */
    int rc = rmaib_transport_attach(w, base, size);
    if (rc != RMAIB_OK)
        return rc;
    attach_bump(t);
    t->r[t->n].base = b;
    t->r[t->n].size = size;
    t->n++;
    attach_bump(t);
    return RMAIB_OK;
}

int rmaib_win_detach(rmaib_win_t *w, const void *base)
{
    uint64_t b = (uint64_t) (uintptr_t) base;
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC)
        return RMAIB_ERR_RMA_FLAVOR;
    rmaib_ctrl_attach_t *t = attach_table(w);
    for (uint64_t i = 0; i < t->n; i++)
        if (t->r[i].base == b) {
            attach_bump(t);
            t->r[i] = t->r[t->n - 1];
            t->n--;
            attach_bump(t);
            rmaib_transport_detach(w, base);
            return RMAIB_OK;
        }
    return RMAIB_ERR_RMA_ATTACH;
}

/* Is [lo, hi) inside the regions the target has attached?  Reads the target's table
 * through the atomics transport's bulk read, retrying a torn copy. */
int rmaib_dynamic_range_ok(rmaib_win_t *w, int target, uint64_t lo, uint64_t hi)
{
    size_t at = rmaib_ctrl_attach_off(w->ctrl_pscw, w->notify_max);
    rmaib_dyn_seen_t *seen = w->mt ? NULL : &rmaib_peer_ent(w, target)->dyn;
    if (seen && lo >= seen->lo && hi <= seen->hi && lo < seen->hi) {
        uint64_t gen;           /* one word where the table is not read again */
        int rc = w->atp->ctrl_read(w, target, at, &gen, sizeof gen);
        if (rc != RMAIB_OK || gen == seen->gen)
            return rc;
    }
    rmaib_ctrl_attach_t t;
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t gen2;
        int rc = w->atp->ctrl_read(w, target, at, &t, 2 * sizeof(uint64_t));
        if (rc == RMAIB_OK && t.n > RMAIB_MAX_ATTACH)
            rc = RMAIB_ERR_INTERN;
        if (rc == RMAIB_OK && t.n)
            rc = w->atp->ctrl_read(w, target, at + offsetof(rmaib_ctrl_attach_t, r), t.r,
                                   t.n * sizeof t.r[0]);
        if (rc == RMAIB_OK)
            rc = w->atp->ctrl_read(w, target, at, &gen2, sizeof gen2);
        if (rc != RMAIB_OK)
            return rc;
        if (!(t.gen & 1) && gen2 == t.gen)
            break;
        rmaib_backoff(&bo);
    }
    for (uint64_t i = 0; i < t.n; i++)
        if (lo >= t.r[i].base && hi <= t.r[i].base + t.r[i].size) {
            if (seen)
                *seen = (rmaib_dyn_seen_t) { t.gen, t.r[i].base, t.r[i].base + t.r[i].size };
            return RMAIB_OK;
        }
    if (lo >= hi)
        return RMAIB_ERR_RMA_RANGE;
    /* Regions attached back to back cover a range together (MPICH's
     * win_dynamic_rma_flush_get): walk from lo through the region holding it to that
     * region's end.  Regions never overlap, so each step takes another one. */
    for (uint64_t step = 0; step < t.n && lo < hi; step++) {
        uint64_t i;
        for (i = 0; i < t.n; i++)
            if (lo >= t.r[i].base && lo < t.r[i].base + t.r[i].size)
                break;
        if (i == t.n)
            return RMAIB_ERR_RMA_RANGE;
        lo = t.r[i].base + t.r[i].size;
    }
    return lo >= hi ? RMAIB_OK : RMAIB_ERR_RMA_RANGE;
}

int rmaib_win_shared_query(rmaib_win_t *w, int rank, size_t *size, int *disp_unit, void **base)
{
    if (w->flavor != RMAIB_FLAVOR_SHARED && w->flavor != RMAIB_FLAVOR_ALLOCATE)
        return RMAIB_ERR_RMA_FLAVOR;
    if (rank < -1 || rank >= w->nranks)
        return RMAIB_ERR_RANK;
    if (rank == -1) {           /* MPI_PROC_NULL: the lowest rank with memory */
        for (int r = 0; r < w->nranks; r++)
            if (rmaib_peer_dir_size(w, r) > 0) {
                rank = r;
                break;
            }
        if (rank == -1) {
            *size = 0;
            *disp_unit = 0;
            *base = NULL;
            return RMAIB_OK;
        }
    }
    /* A rank that exposes nothing, or whose memory is out of reach, has no base
     * (MPICH answers NULL too; its address in the segment would be a neighbour's). */
    if (rmaib_peer_node(w, rank) != w->mynode || rmaib_peer_dir_size(w, rank) == 0) {
        *size = 0;
        *disp_unit = rmaib_peer_dir_disp_unit(w, rank);
        *base = NULL;
        return RMAIB_OK;
    }
    const rmaib_peer_t *pe = rmaib_peer(w, rank);       /* (local: open since creation) */
    *size = pe->size;
    *disp_unit = pe->disp_unit;
    *base = (void *) (uintptr_t) pe->base;
    return RMAIB_OK;
}

void *rmaib_win_base(const rmaib_win_t *w)
{
    return w->base;
}

size_t rmaib_win_size(const rmaib_win_t *w)
{
    return w->size;
}

int rmaib_win_disp_unit(const rmaib_win_t *w)
{
    return w->disp_unit;
}

int rmaib_win_flavor(const rmaib_win_t *w)
{
    return w->flavor;
}

int rmaib_win_pscw_queue(const rmaib_win_t *w)
{
    return w->pscw_mode == RMAIB_PSCW_QUEUE;
}

int rmaib_win_lock_alg(const rmaib_win_t *w)
{
    return w->lock_alg;
}

const char *rmaib_win_describe(const rmaib_win_t *w)
{
    return w->describe;
}
