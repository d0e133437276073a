/*
 * The peer table (src/transport/peer.c) on its own, at up to a million ranks: a
 * window whose entries open at first access keeps only those, each filled from the
 * directory; lookups find exactly the opened ones; threads opening at once make one
 * entry per rank; a dense table holds every rank.  Memory is counted through
 * mallinfo2, so the per-peer cost is asserted as bytes, never as time.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib_win.h"
#include "unit_tap.h"
#include "heap.h"

static int opened;      /* peer_open calls, by the fake remote backend */

static int count_open(rmaib_win_t *w, int rank, struct rmaib_peer *peer)
{
    (void) w;
    __atomic_add_fetch(&opened, 1, __ATOMIC_RELAXED);
    peer->tpp = (void *) (uintptr_t) (rank + 1);
    return RMAIB_OK;
}

static const rmaib_tp_ops_t local_tp = { .name = "local", .reach = RMAIB_TP_NODE };
static const rmaib_tp_ops_t remote_tp = { .name = "remote", .reach = RMAIB_TP_NET,
                                          .peer_open = count_open };

/* A window of p ranks, this one rank 0, in nodes of `block` consecutive ranks. */
static void win_init(rmaib_win_t *w, int p, int block, uint64_t size)
{
    memset(w, 0, sizeof *w);
    w->nranks = p;
    w->dir.size = size;
    w->dir.disp_unit = 8;
    w->dir.node_block = block;
    w->mynode = 0;
    w->nnodes = (p + block - 1) / block;
    w->tp_local = &local_tp;
    w->tp_remote = &remote_tp;
}

static void count_ent(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    (void) w;
    (void) e;
    ++*(size_t *) arg;
}

typedef struct opener {
    rmaib_win_t *w;
    int first, n, stride;
    int bad;
} opener_t;

static void *open_some(void *arg)
{
    opener_t *o = arg;
    for (int i = 0; i < o->n; i++) {
        int r = (o->first + i * o->stride) % o->w->nranks;
        rmaib_peer_t *pe;
        if (rmaib_peer_open(o->w, r, &pe) != RMAIB_OK || rmaib_peer(o->w, r) != pe
            || pe->tpp != (void *) (uintptr_t) (r + 1))
            o->bad++;
    }
    return NULL;
}

static void sparse_at(int p)
{
    rmaib_win_t w;
    enum { TOUCH = 1000 };
    win_init(&w, p, 64, 4096);
    opened = 0;
    size_t before = heap_used();
    tap(rmaib_peer_table_init(&w, 0) == RMAIB_OK && w.peers == NULL,
        "P=%d: a sparse table is made", p);
    size_t empty = heap_used() - before;
    tap(empty <= 1024, "P=%d: an empty table costs %zu bytes, whatever P", p, empty);

    /* Neighbours and ranks spread over the group: each opens once. */
    int bad = 0;
    for (int i = 0; i < TOUCH; i++) {
        int r = (int) (((uint64_t) i * 7919u * 104729u + 1) % (uint64_t) p);
        rmaib_peer_t *pe;
        if (rmaib_peer_open(&w, r, &pe) != RMAIB_OK)
            bad++;
        else if (pe->size != 4096 || pe->disp_unit != 8 || pe->node != r / 64
                 || pe->tp != (r / 64 == 0 ? &local_tp : &remote_tp))
            bad++;
    }
    size_t n = rmaib_peer_count(&w);
    tap(!bad && n <= TOUCH && n > TOUCH / 2, "P=%d: %zu distinct peers opened from the "
        "directory, each with its size, displacement unit, node and transport", p, n);
    size_t kept = heap_used() - before;
    tap(kept <= n * 256 + 1024, "P=%d: %zu bytes kept for %zu peers touched (%zu per peer, "
        "at most 256)", p, kept, n, kept / n);
    size_t seen = 0;
    rmaib_peer_foreach(&w, count_ent, &seen);
    tap(seen == n, "P=%d: foreach visits the %zu opened entries and no other", p, n);
    int stray = 0;
    for (int r = 1; r < p && r < 200000; r += 3)
        if (rmaib_peer_lookup(&w, r)) {
            rmaib_peer_t *pe = rmaib_peer(&w, r);
            stray += pe != rmaib_peer_lookup(&w, r);
        }
    tap(stray == 0 && rmaib_peer_count(&w) == n, "P=%d: lookups open nothing", p);
    rmaib_peer_table_free(&w);
    size_t left = heap_used() - before;
    tap(left == 0, "P=%d: freeing the table gives back every byte (%zu left)", p, left);
}

static void threads_open_once(void)
{
    enum { P = 1 << 20, THREADS = 8, EACH = 4000 };
    rmaib_win_t w;
    win_init(&w, P, 1, 64);
    w.mynode = -1;              /* every rank remote: each open reaches the backend */
    opened = 0;
    rmaib_peer_table_init(&w, 0);
    pthread_t t[THREADS];
    opener_t o[THREADS];
    for (int i = 0; i < THREADS; i++) {     /* overlapping ranges: every rank 4 times */
        o[i] = (opener_t) { &w, (i % 2) * 7, EACH, 13, 0 };
        pthread_create(&t[i], NULL, open_some, &o[i]);
    }
    int bad = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        bad += o[i].bad;
    }
    size_t n = rmaib_peer_count(&w);
    tap(!bad && n == 2 * EACH && opened == 2 * EACH, "%d threads opening overlapping ranks "
        "at once: one entry and one backend open per rank (%zu entries, %d opens)", THREADS,
        n, opened);
    rmaib_peer_table_free(&w);
}

static void dense(void)
{
    rmaib_win_t w;
    win_init(&w, 64, 64, 100);
    tap(rmaib_peer_table_init(&w, 1) == RMAIB_OK && w.peers != NULL
        && rmaib_peer_count(&w) == 64, "a dense table holds every rank's entry");
    int bad = 0;
    for (int r = 0; r < 64; r++)
        bad += rmaib_peer(&w, r) != &w.peers[r].p || rmaib_peer(&w, r)->size != 100
            || rmaib_peer(&w, r)->tp != &local_tp;
    tap(!bad, "... each filled from the directory, where the latency paths index it");
    rmaib_peer_table_free(&w);
}

int main(int argc, char **argv)
{
    static char outbuf[1 << 14];        /* stdio's own buffer would count as kept */
    (void) argc;
    heap_without_tcache(argv);
    setvbuf(stdout, outbuf, _IOLBF, sizeof outbuf);
    /* A first table made and freed unmeasured: glibc's arena keeps a few hundred
     * bytes from its first allocations of these sizes (valgrind sees no leak). */
    rmaib_win_t warm;
    win_init(&warm, 1000, 64, 1);
    rmaib_peer_t *pe;
    rmaib_peer_table_init(&warm, 0);
    for (int r = 0; r < 1000; r++)
        rmaib_peer_open(&warm, r, &pe);
    rmaib_peer_table_free(&warm);
    printf("# heap counted with glibc's tcache off (%zu bytes in use at the start)\n",
           heap_used());
    static const int ps[] = { 1000, 10000, 100000, 1000000 };
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        sparse_at(ps[i]);
    threads_open_once();
    dense();
    printf("1..%d\n", tap_n);
    return tap_bad != 0;
}
