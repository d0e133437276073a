/*
 * The Kronecker graph (Graph500: A = 0.57, B = 0.19, C = 0.19) and its distributed
 * CSR.  Edge e is a function of (seed, e) alone, so any number of ranks, and the
 * validator on one rank, build the same graph.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpix_rmaib.h"
#include "bfs.h"

#define GOLDEN 0x9E3779B97F4A7C15ull

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* A bijection of [0, 2^scale) that scatters the generator's hubs over the ranks. */
static uint64_t scramble(uint64_t x, int scale)
{
    uint64_t mask = scale >= 64 ? ~0ull : (1ull << scale) - 1;
    for (int i = 0; i < 2; i++) {
        x = (x * (GOLDEN | 1)) & mask;
        x ^= x >> (scale / 2 + 1);
    }
    return x;
}

void bfs_edge(int scale, uint64_t seed, int64_t e, int64_t *u, int64_t *v)
{
    const double a = 0.57, b = 0.19, c = 0.19;
    uint64_t s = mix64(seed ^ ((uint64_t) e * GOLDEN)), x = 0, y = 0;
    for (int l = 0; l < scale; l++) {
        s = mix64(s + GOLDEN);
        double r = (double) (s >> 11) * 0x1.0p-53;
        int i = r >= a + b, j = (r >= a && r < a + b) || r >= a + b + c;
        x = x << 1 | (uint64_t) i;
        y = y << 1 | (uint64_t) j;
    }
    *u = (int64_t) scramble(x, scale);
    *v = (int64_t) scramble(y, scale);
}

int64_t bfs_owner(const bfs_graph_t *g, int64_t v)
{
    return v / g->chunk;
}

int64_t bfs_degree(const bfs_graph_t *g, int64_t u)
{
    int64_t d = 0, off;
    for (int q = 0; q < g->np; q++)
        d += bfs_slice(g, u, q, &off);
    return d;
}

int bfs_cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

/* This rank's share of the input edges, both directions of each, sent to the owners
 * of their sources: (u, v) pairs with u ours, in *pairs (*n of them). */
static int exchange_edges(const bfs_graph_t *g, MPI_Comm comm, int64_t **pairs, int64_t *n)
{
    int np = g->np;
    int64_t e0 = g->nedges * g->me / np, e1 = g->nedges * (g->me + 1) / np;
    int *scount = calloc((size_t) np, sizeof(int)), *rcount = calloc((size_t) np, sizeof(int));
    int *sdisp = calloc((size_t) np + 1, sizeof(int)), *rdisp = calloc((size_t) np + 1, sizeof(int));
    int64_t *sbuf = malloc(sizeof(int64_t) * 4 * (size_t) (e1 - e0 + 1));
    if (!scount || !rcount || !sdisp || !rdisp || !sbuf)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t e = e0; e < e1; e++) {
            int64_t u, v;
            bfs_edge(g->scale, g->seed, e, &u, &v);
            if (u == v)
                continue;       /* a self-loop never changes a BFS */
            for (int d = 0; d < 2; d++) {
                int64_t src = d ? v : u, dst = d ? u : v;
                int q = (int) bfs_owner(g, src);
                if (pass == 0) {
                    scount[q] += 2;
                } else {
                    sbuf[sdisp[q]++] = src;
                    sbuf[sdisp[q]++] = dst;
                }
            }
        }
        for (int q = 0; pass == 0 && q < np; q++)
            sdisp[q + 1] = sdisp[q] + scount[q];
    }
    for (int q = 0; q < np; q++)
        sdisp[q] -= scount[q];
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    for (int q = 0; q < np; q++)
        rdisp[q + 1] = rdisp[q] + rcount[q];
    *n = rdisp[np] / 2;
    *pairs = malloc(sizeof(int64_t) * (size_t) (rdisp[np] + 1));
    if (*pairs)
        MPI_Alltoallv(sbuf, scount, sdisp, MPI_INT64_T, *pairs, rcount, rdisp, MPI_INT64_T, comm);
    free(sbuf);
    free(scount);
    free(rcount);
    free(sdisp);
    free(rdisp);
    return *pairs ? 0 : -1;
}

/* Rows from the pairs, each sorted (so cut by owner), then regrouped by owner into
 * adj; rowq gets where each slice starts. */
static int build_rows(bfs_graph_t *g, const int64_t *pairs, int64_t n, int64_t *adj)
{
    int np = g->np;
    int64_t *start = calloc((size_t) g->nlocal + 1, sizeof(int64_t));
    int64_t *rows = malloc(sizeof(int64_t) * (size_t) (n + 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t) (g->nlocal + 1));
    if (!start || !rows || !fill) {
        free(start);
        free(rows);
        free(fill);
        return -1;
    }
    for (int64_t i = 0; i < n; i++)
        start[pairs[2 * i] - g->vbase + 1]++;
    for (int64_t u = 0; u < g->nlocal; u++) {
        start[u + 1] += start[u];
        fill[u] = start[u];
    }
    for (int64_t i = 0; i < n; i++)
        rows[fill[pairs[2 * i] - g->vbase]++] = pairs[2 * i + 1];
    int64_t pos = 0;
    for (int64_t u = 0; u < g->nlocal; u++)
        qsort(rows + start[u], (size_t) (start[u + 1] - start[u]), sizeof *rows, bfs_cmp64);
    for (int q = 0; q < np; q++) {
        for (int64_t u = 0; u < g->nlocal; u++) {
            g->rowq[u * (np + 1) + q] = pos;
            for (int64_t k = start[u]; k < start[u + 1]; k++)
                if (bfs_owner(g, rows[k]) == q)
                    adj[pos++] = rows[k];
        }
        g->rowq[g->nlocal * (np + 1) + q] = pos;
    }
    free(start);
    free(rows);
    free(fill);
    return 0;
}

/* The window: every rank's inbox (2 parities x np senders x one slot each: a header
 * [descriptors, sender's frontier degree] and up to chunk descriptors (vertex,
 * offset, length)) at displacement 0, then its adjacency; displacement unit 8. */
static int make_window(bfs_graph_t *g, const int64_t *adj, MPI_Comm comm)
{
    MPI_Info info;
    char v[32];
    snprintf(v, sizeof v, "%d", g->np + BFS_INFLIGHT_MAX);
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_RMAIB_INFO_MAX_NOTIFY, v);
    g->slot_words = 2 + 3 * g->chunk;
    g->inbox_words = 2 * (int64_t) g->np * g->slot_words;
    MPI_Aint bytes = (MPI_Aint) (sizeof(int64_t) * (size_t) (g->inbox_words + g->nadj));
    int rc = MPI_Win_allocate(bytes, sizeof(int64_t), info, comm, &g->win_base, &g->win);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS)
        return -1;
    memcpy(g->win_base + g->inbox_words, adj, sizeof(int64_t) * (size_t) g->nadj);
    return 0;
}

int bfs_graph_build(bfs_graph_t *g, int scale, int edgefactor, uint64_t seed, MPI_Comm comm)
{
    memset(g, 0, sizeof *g);
    g->comm = comm;
    MPI_Comm_rank(comm, &g->me);
    MPI_Comm_size(comm, &g->np);
    g->scale = scale;
    g->edgefactor = edgefactor;
    g->seed = seed;
    g->nglobal = (int64_t) 1 << scale;
    g->nedges = g->nglobal * edgefactor;
    g->chunk = (g->nglobal + g->np - 1) / g->np;
    g->vbase = g->chunk * g->me < g->nglobal ? g->chunk * g->me : g->nglobal;
    g->nlocal = (g->vbase + g->chunk < g->nglobal ? g->vbase + g->chunk : g->nglobal) - g->vbase;
    int64_t *pairs = NULL, n = 0, *adj = NULL;
    /* The edge exchange counts words in int, 4 per input edge, and a rank may
     * receive most of them: SCALE 24 at edge factor 16 is the most it takes. */
    if (4 * g->nedges > INT_MAX)
        return -1;
    int rc = exchange_edges(g, comm, &pairs, &n);
    g->nadj = n;
    g->rowq = malloc(sizeof(int64_t) * (size_t) ((g->nlocal + 1) * (g->np + 1)));
    adj = malloc(sizeof(int64_t) * (size_t) (n + 1));
    if (rc == 0 && g->rowq && adj)
        rc = build_rows(g, pairs, n, adj);
    else
        rc = -1;
    free(pairs);
    int ok = rc == 0, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    rc = all ? make_window(g, adj, comm) : -1;
    free(adj);
    return rc;
}

void bfs_graph_free(bfs_graph_t *g)
{
    if (g->win_base)
        MPI_Win_free(&g->win);
    free(g->rowq);
    memset(g, 0, sizeof *g);
}

/* The k-th sampled root: a vertex with at least one edge, the same on every rank. */
int64_t bfs_pick_root(const bfs_graph_t *g, int k)
{
    for (uint64_t t = 0;; t++) {
        int64_t cand = (int64_t) (mix64(g->seed + GOLDEN * (uint64_t) (k + 1) + t)
                                  & (uint64_t) (g->nglobal - 1));
        int64_t deg = 0, any = 0;
        if (bfs_owner(g, cand) == g->me)
            deg = bfs_degree(g, cand - g->vbase);
        MPI_Allreduce(&deg, &any, 1, MPI_INT64_T, MPI_SUM, g->comm);
        if (any > 0)
            return cand;
    }
}
