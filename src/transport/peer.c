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
 * Lookups take no lock, so any thread may look a peer up while another opens one:
 * entries never move once published, and a table that grows is replaced whole and
 * kept until the window is freed (the old ones add up to less than the last).
 */
#include <stdio.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdatomic.h>
#include "rmaib_win.h"
#include "rmaib_host.h"

typedef struct peer_slots {
    struct peer_slots *older;   /* replaced tables, freed with the window */
    unsigned bits;
    rmaib_peer_ent_t *_Atomic e[];
} peer_slots_t;

struct rmaib_peer_tab {
    pthread_mutex_t lock;       /* opening */
    peer_slots_t *_Atomic cur;
    size_t count;
};

enum { TAB_MIN_BITS = 4 };

static size_t slot_of(unsigned bits, int r)
{
    return (size_t) (((uint64_t) (uint32_t) r * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

static peer_slots_t *slots_new(unsigned bits)
{
    peer_slots_t *t = calloc(1, sizeof *t + sizeof t->e[0] * ((size_t) 1 << bits));
    if (t)
        t->bits = bits;
    return t;
}

static rmaib_peer_ent_t *tab_find(const struct rmaib_peer_tab *tab, int r)
{
    peer_slots_t *t = atomic_load_explicit(&((struct rmaib_peer_tab *) tab)->cur,
                                           memory_order_acquire);
    size_t mask = ((size_t) 1 << t->bits) - 1;
    for (size_t i = slot_of(t->bits, r);; i = (i + 1) & mask) {
        rmaib_peer_ent_t *e = atomic_load_explicit(&t->e[i], memory_order_acquire);
        if (!e || e->rank == r)
            return e;
    }
}

static void slots_put(peer_slots_t *t, rmaib_peer_ent_t *e)
{
    size_t mask = ((size_t) 1 << t->bits) - 1, i = slot_of(t->bits, e->rank);
    while (atomic_load_explicit(&t->e[i], memory_order_relaxed))
        i = (i + 1) & mask;
    atomic_store_explicit(&t->e[i], e, memory_order_release);
}

/* Room for one more entry at a load of at most a half; a table that cannot grow
 * takes entries up to three quarters full. */
static int tab_reserve(struct rmaib_peer_tab *tab)
{
    peer_slots_t *t = atomic_load_explicit(&tab->cur, memory_order_relaxed);
    size_t cap = (size_t) 1 << t->bits;
    if (2 * (tab->count + 1) <= cap)
        return RMAIB_OK;
    peer_slots_t *n = slots_new(t->bits + 1);
    if (!n)
        return 4 * (tab->count + 1) <= 3 * cap ? RMAIB_OK : RMAIB_ERR_NO_MEM;
    for (size_t i = 0; i < cap; i++) {
        rmaib_peer_ent_t *e = atomic_load_explicit(&t->e[i], memory_order_relaxed);
        if (e)
            slots_put(n, e);
    }
    n->older = t;
    atomic_store_explicit(&tab->cur, n, memory_order_release);
    return RMAIB_OK;
}

/* An entry as the directory describes rank r; the backends fill their part. */
static void ent_fill(const rmaib_win_t *w, rmaib_peer_ent_t *e, int r)
{
    rmaib_peer_t *pe = &e->p;
    e->rank = r;
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
    rmaib_peer_ent_t *e = tab_find(tab, r);
    if (e) {
        *out = &e->p;
        return RMAIB_OK;
    }
    int rc = RMAIB_OK;
    pthread_mutex_lock(&tab->lock);
    e = tab_find(tab, r);
    if (!e) {
        rc = tab_reserve(tab);
        if (rc == RMAIB_OK && !(e = calloc(1, sizeof *e)))
            rc = RMAIB_ERR_NO_MEM;
        if (rc == RMAIB_OK) {
            ent_fill(w, e, r);
            if (e->p.tp && e->p.tp->peer_open)
                rc = e->p.tp->peer_open(w, r, &e->p);
        }
        if (rc == RMAIB_OK) {
            slots_put(atomic_load_explicit(&tab->cur, memory_order_relaxed), e);
            tab->count++;
        } else {
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
    rmaib_peer_ent_t *e = tab_find(w->ptab, r);
    return e ? &e->p : NULL;
}

rmaib_peer_t *rmaib_peer_sparse(const rmaib_win_t *w, int r)
{
    rmaib_peer_ent_t *e = tab_find(w->ptab, r);
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
    return w->peers ? (size_t) w->nranks : w->ptab->count;
}

void rmaib_peer_foreach(rmaib_win_t *w, void (*fn)(rmaib_win_t *, rmaib_peer_ent_t *, void *),
                        void *arg)
{
    if (w->peers) {
        for (int r = 0; r < w->nranks; r++)
            fn(w, &w->peers[r], arg);
        return;
    }
    peer_slots_t *t = atomic_load_explicit(&w->ptab->cur, memory_order_acquire);
    for (size_t i = 0; i < (size_t) 1 << t->bits; i++) {
        rmaib_peer_ent_t *e = atomic_load_explicit(&t->e[i], memory_order_acquire);
        if (e)
            fn(w, e, arg);
    }
}

int rmaib_peer_table_init(rmaib_win_t *w, int dense)
{
    if (dense) {
        w->peers = calloc((size_t) w->nranks, sizeof *w->peers);
        if (!w->peers)
            return RMAIB_ERR_NO_MEM;
        for (int r = 0; r < w->nranks; r++)
            ent_fill(w, &w->peers[r], r);
        return RMAIB_OK;
    }
    struct rmaib_peer_tab *tab = calloc(1, sizeof *tab);
    peer_slots_t *t = tab ? slots_new(TAB_MIN_BITS) : NULL;
    if (!t) {
        free(tab);
        return RMAIB_ERR_NO_MEM;
    }
    pthread_mutex_init(&tab->lock, NULL);
    atomic_init(&tab->cur, t);
    w->ptab = tab;
    return RMAIB_OK;
}

static void ent_free(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    (void) w;
    (void) arg;
    free(e);
}

void rmaib_peer_table_free(rmaib_win_t *w)
{
    free(w->peers);
    w->peers = NULL;
    struct rmaib_peer_tab *tab = w->ptab;
    if (!tab)
        return;
    rmaib_peer_foreach(w, ent_free, NULL);
    for (peer_slots_t *t = atomic_load(&tab->cur), *o; t; t = o) {
        o = t->older;
        free(t);
    }
    pthread_mutex_destroy(&tab->lock);
    free(tab);
    w->ptab = NULL;
}
