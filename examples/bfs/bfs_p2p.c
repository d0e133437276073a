/*
 * The point-to-point traversal: level-synchronous, the frontier's edges towards
 * other ranks sent as (vertex, parent) pairs with MPI_Alltoallv, and an
 * MPI_Allreduce per level to learn whether any rank found a vertex.
 */
#include <stdlib.h>
#include "bfs.h"

typedef struct p2p_bufs {
    int *scount, *rcount, *sdisp, *rdisp;
    int64_t *sbuf, *rbuf;
    size_t scap, rcap;
} p2p_bufs_t;

static int grow(int64_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    int64_t *b = realloc(*buf, need * sizeof *b);
    if (!b)
        return -1;
    *buf = b;
    *cap = need;
    return 0;
}

/* The pairs for other ranks, by owner; our own neighbours claimed at once. */
static int pack(const bfs_graph_t *g, p2p_bufs_t *b, const int64_t *front, int64_t nfront,
                int64_t *parent, int64_t *next, int64_t *nnext)
{
    int np = g->np;
    for (int q = 0; q <= np; q++)
        b->sdisp[q] = 0;
    for (int64_t i = 0; i < nfront; i++) {
        int64_t off;
        for (int q = 0; q < np; q++)
            if (q != g->me)
                b->sdisp[q + 1] += (int) (2 * bfs_slice(g, front[i], q, &off));
    }
    for (int q = 0; q < np; q++) {
        b->scount[q] = b->sdisp[q + 1];
        b->sdisp[q + 1] += b->sdisp[q];
    }
    if (grow(&b->sbuf, &b->scap, (size_t) b->sdisp[np] + 1))
        return -1;
    const int64_t *adj = g->win_base + g->inbox_words;
    for (int64_t i = 0; i < nfront; i++) {
        int64_t u = g->vbase + front[i];
        for (int q = 0; q < np; q++) {
            int64_t off, len = bfs_slice(g, front[i], q, &off);
            for (int64_t k = off; k < off + len; k++) {
                if (q != g->me) {
                    b->sbuf[b->sdisp[q]++] = adj[k];
                    b->sbuf[b->sdisp[q]++] = u;
                } else if (parent[adj[k] - g->vbase] < 0) {
                    parent[adj[k] - g->vbase] = u;
                    next[(*nnext)++] = adj[k] - g->vbase;
                }
            }
        }
    }
    for (int q = 0; q < np; q++)
        b->sdisp[q] -= b->scount[q];
    return 0;
}

static int exchange(const bfs_graph_t *g, p2p_bufs_t *b, int64_t *parent, int64_t *next,
                    int64_t *nnext)
{
    int np = g->np;
    MPI_Alltoall(b->scount, 1, MPI_INT, b->rcount, 1, MPI_INT, g->comm);
    b->rdisp[0] = 0;
    for (int q = 0; q < np; q++)
        b->rdisp[q + 1] = b->rdisp[q] + b->rcount[q];
    if (grow(&b->rbuf, &b->rcap, (size_t) b->rdisp[np] + 1))
        return -1;
    MPI_Alltoallv(b->sbuf, b->scount, b->sdisp, MPI_INT64_T, b->rbuf, b->rcount, b->rdisp,
                  MPI_INT64_T, g->comm);
    for (int64_t i = 0; i < b->rdisp[np]; i += 2) {
        int64_t wl = b->rbuf[i] - g->vbase;
        if (parent[wl] < 0) {
            parent[wl] = b->rbuf[i + 1];
            next[(*nnext)++] = wl;
        }
    }
    return 0;
}

int bfs_run_p2p(bfs_graph_t *g, int64_t root, int64_t *parent, int *levels)
{
    int np = g->np, rc = 0;
    p2p_bufs_t b = { 0 };
    b.scount = calloc((size_t) np, sizeof(int));
    b.rcount = calloc((size_t) np, sizeof(int));
    b.sdisp = calloc((size_t) np + 1, sizeof(int));
    b.rdisp = calloc((size_t) np + 1, sizeof(int));
    int64_t *front = malloc(sizeof(int64_t) * (size_t) (g->nlocal + 1));
    int64_t *next = malloc(sizeof(int64_t) * (size_t) (g->nlocal + 1));
    int64_t nfront = 0, found = 1;
    if (!b.scount || !b.rcount || !b.sdisp || !b.rdisp || !front || !next)
        rc = -1;
    if (rc == 0 && bfs_owner(g, root) == g->me) {
        parent[root - g->vbase] = root;
        front[nfront++] = root - g->vbase;
    }
    *levels = 0;
    while (found) {
        int64_t nnext = 0;
        int bad = rc == 0 ? pack(g, &b, front, nfront, parent, next, &nnext) : -1, anybad = 0;
        MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MIN, g->comm);
        if (anybad < 0 || exchange(g, &b, parent, next, &nnext) < 0) {
            rc = -1;
            break;
        }
        MPI_Allreduce(&nnext, &found, 1, MPI_INT64_T, MPI_SUM, g->comm);
        int64_t *t = front;
        front = next;
        next = t;
        nfront = nnext;
        ++*levels;
    }
    free(b.scount);
    free(b.rcount);
    free(b.sdisp);
    free(b.rdisp);
    free(b.sbuf);
    free(b.rbuf);
    free(front);
    free(next);
    return rc;
}
