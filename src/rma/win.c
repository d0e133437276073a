/*
 * Window lifetime: creation of the four flavors, free, dynamic attach/detach and
 * shared-memory queries.
 *
 * Creation is the exchange of what every rank brings (win_exchange.c), then the
 * transports' collective set-up.  Every failure is agreed on by all ranks before
 * anyone leaves, so a bad rank never leaves its peers waiting.
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

int rmaib_win_create(const rmaib_win_args_t *a, rmaib_win_t **out)
{
    unsigned long colls = rmaib_host_colls;
    int rc = rmaib_init();
    rmaib_win_t *w = win_new(a);

    *out = NULL;
    int made_dir;
    rc = rmaib_win_exchange(w, a, rc != RMAIB_OK ? rc : a->status, &made_dir);
    if (rc == RMAIB_OK) {
        if (w->setup_status == RMAIB_OK)
            rmaib_peer_foreach(w, set_tp, NULL);
        rc = rmaib_transport_win_init(w);
    }
    rmaib_win_exchange_end();
    if (rc != RMAIB_OK) {
        if (made_dir) {         /* (the creation failed on every rank) */
            rmaib_comm_dir_free(*a->comm_dir);
            *a->comm_dir = NULL;
        }
        goto fn_fail;
    }
    w->excl_local = w->lock_alg == RMAIB_LOCKALG_TAS && w->nnodes == 1
        && w->ctrl_cpu == RMAIB_CTRL_CPU_ALL;
    w->local_fast = w->excl_local && !w->mt && !w->stats && w->atp->complete_at_issue
        && w->peers && w->tp_local == w->atp;
    win_describe(w);
    w->create_calls = (unsigned) (rmaib_host_colls - colls);
    *out = w;

    return rc;
  fn_fail:
    win_delete(w);
    return rc;
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

unsigned rmaib_win_create_calls(const rmaib_win_t *w)
{
    return w->create_calls;
}

const char *rmaib_win_describe(const rmaib_win_t *w)
{
    return w->describe;
}
