/*
 * The peer table: what the core keeps of each peer of a window.
 *
 * A window within one node, on the node backend, keeps every rank's entry in one
 * array (the ranks of a node are the ones a process reaches with loads and stores,
 * and the latency paths index it directly).  Any other window keeps only the
 * entries opened so far, in an open-addressing hash by rank: the node-local ranks'
 * at creation, every other peer's at the first access to it, filled from the
 * window's directory (the sizes, displacement units and nodes creation learnt, in
 * as few bytes as they take: nothing per rank for a symmetric window).  So a process
 * pays for the peers it touches (Open MPI osc/rdma's peer hash, MPICH ch4's
 * per-target hash).
 *
 * Lookups take no lock (rank_map.h), so any thread may look a peer up while another
 * opens one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdatomic.h>
#include "rmaib_win.h"
#include "rank_map.h"
#include "rmaib_host.h"

struct rmaib_peer_tab {
    pthread_mutex_t lock;       /* opening */
    rmaib_rank_map_t map;
};

/* Zeroed memory on a cache line.  posix_memalign, not aligned_alloc, which wants
 * a size that is a multiple of the alignment (C11; the sanitizers enforce it), and
 * rounding a 144-byte entry up to 192 would cost every touched peer 48 B. */
static void *cache_zalloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, RMAIB_CACHELINE, bytes) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

/* An entry as the directory describes rank r; the backends fill their part. */
static void ent_fill(const rmaib_win_t *w, rmaib_peer_ent_t *e, int r)
{
    rmaib_peer_t *pe = &e->p;
    e->rank = r;
    e->mcs_node = -1;
    pe->size = rmaib_peer_dir_size(w, r);
    pe->disp_unit = rmaib_peer_dir_disp_unit(w, r);
    pe->node = rmaib_peer_node(w, r);
    pe->tp = pe->node == w->mynode ? w->tp_local : w->tp_remote;
}

int rmaib_peer_open(rmaib_win_t *w, int r, rmaib_peer_t **out)
{
    if (w->peers) {
        *out = &w->peers[r].p;
        return RMAIB_OK;
    }
    struct rmaib_peer_tab *tab = w->ptab;
    rmaib_peer_ent_t *e = rmaib_rank_map_find(&tab->map, r);
    if (e) {
        *out = &e->p;
        return RMAIB_OK;
    }
    int rc = RMAIB_OK;
    pthread_mutex_lock(&tab->lock);
    e = rmaib_rank_map_find(&tab->map, r);
    if (!e) {
        if (!(e = cache_zalloc(sizeof *e)))
            rc = RMAIB_ERR_NO_MEM;
        if (rc == RMAIB_OK) {
            ent_fill(w, e, r);
            if (e->p.tp && e->p.tp->peer_open)
                rc = e->p.tp->peer_open(w, r, &e->p);
        }
        if (rc == RMAIB_OK)
            rc = rmaib_rank_map_insert(&tab->map, r, e);
        if (rc != RMAIB_OK) {
            free(e);
            e = NULL;
        }
    }
    pthread_mutex_unlock(&tab->lock);
    *out = e ? &e->p : NULL;
    return rc;
}

rmaib_peer_t *rmaib_peer_find_sparse(const rmaib_win_t *w, int r)
{
    rmaib_peer_ent_t *e = rmaib_rank_map_find(&w->ptab->map, r);
    return e ? &e->p : NULL;
}

rmaib_peer_t *rmaib_peer_sparse(const rmaib_win_t *w, int r)
{
    rmaib_peer_ent_t *e = rmaib_rank_map_find(&w->ptab->map, r);
    if (__builtin_expect(e != NULL, 1))
        return &e->p;
    rmaib_peer_t *pe;
    if (rmaib_peer_open((rmaib_win_t *) w, r, &pe) != RMAIB_OK) {
        rmaib_host_say("rmaib: out of memory for the state of peer %d of a window", r);
        abort();
    }
    return pe;
}

size_t rmaib_peer_count(const rmaib_win_t *w)
{
    return w->peers ? (size_t) w->nranks : w->ptab->map.count;
}

typedef struct each {
    rmaib_win_t *w;
    void (*fn)(rmaib_win_t *, rmaib_peer_ent_t *, void *);
    void *arg;
} each_t;

static void each_ent(void *p, void *arg)
{
    each_t *e = arg;
    e->fn(e->w, p, e->arg);
}

void rmaib_peer_foreach(rmaib_win_t *w, void (*fn)(rmaib_win_t *, rmaib_peer_ent_t *, void *),
                        void *arg)
{
    if (w->peers) {
        for (int r = 0; r < w->nranks; r++)
            fn(w, &w->peers[r], arg);
        return;
    }
    each_t e = { w, fn, arg };
    rmaib_rank_map_foreach(&w->ptab->map, each_ent, &e);
}

int rmaib_peer_table_init(rmaib_win_t *w, int dense)
{
    if (dense) {        /* (each entry's hot part on one cache line) */
        size_t bytes = (size_t) w->nranks * sizeof *w->peers;
        w->peers = cache_zalloc(bytes);
        if (!w->peers)
            return RMAIB_ERR_NO_MEM;
        for (int r = 0; r < w->nranks; r++)
            ent_fill(w, &w->peers[r], r);
        return RMAIB_OK;
    }
    struct rmaib_peer_tab *tab = calloc(1, sizeof *tab);
    if (!tab)
        return RMAIB_ERR_NO_MEM;
    pthread_mutex_init(&tab->lock, NULL);
    w->ptab = tab;
    return RMAIB_OK;
}

static void ent_free(void *p, void *arg)
{
    (void) arg;
    free(p);
}

void rmaib_peer_table_free(rmaib_win_t *w)
{
    free(w->peers);
    w->peers = NULL;
    struct rmaib_peer_tab *tab = w->ptab;
    if (!tab)
        return;
    rmaib_rank_map_foreach(&tab->map, ent_free, NULL);
    rmaib_rank_map_free(&tab->map);
    pthread_mutex_destroy(&tab->lock);
    free(tab);
    w->ptab = NULL;
}
