/*
 * Validation by the Graph500 rules, on rank 0 with the whole graph regenerated from
 * the seed (so it trusts nothing the traversal built):
 *  1. the root is its own parent; every parent is a vertex or -1;
 *  2. the parents form a tree: following them from any reached vertex ends at the
 *     root (no cycle, no unreached vertex on the way), which gives every level;
 *  3. every tree edge (v, parent v) is an edge of the graph;
 *  4. across every input edge, both ends are reached or neither, and their levels
 *     differ by at most one;
 *  5. the levels are those of a sequential BFS from the root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bfs.h"

typedef struct seq_graph {
    int64_t n, *start, *adj;
} seq_graph_t;

static int seq_build(const bfs_graph_t *g, seq_graph_t *s)
{
    s->n = g->nglobal;
    s->start = calloc((size_t) s->n + 1, sizeof(int64_t));
    s->adj = malloc(sizeof(int64_t) * (size_t) (2 * g->nedges + 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t) s->n);
    if (!s->start || !s->adj || !fill) {
        free(fill);
        return -1;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t e = 0; e < g->nedges; e++) {
            int64_t u, v;
            bfs_edge(g->scale, g->seed, e, &u, &v);
            if (u == v)
                continue;
            if (pass == 0) {
                s->start[u + 1]++;
                s->start[v + 1]++;
            } else {
                s->adj[fill[u]++] = v;
                s->adj[fill[v]++] = u;
            }
        }
        for (int64_t x = 0; pass == 0 && x < s->n; x++) {
            s->start[x + 1] += s->start[x];
            fill[x] = s->start[x];
        }
    }
    for (int64_t x = 0; x < s->n; x++)
        qsort(s->adj + s->start[x], (size_t) (s->start[x + 1] - s->start[x]), sizeof(int64_t),
              bfs_cmp64);
    free(fill);
    return 0;
}

static int has_edge(const seq_graph_t *s, int64_t u, int64_t v)
{
    return bsearch(&v, s->adj + s->start[u], (size_t) (s->start[u + 1] - s->start[u]),
                   sizeof(int64_t), bfs_cmp64) != NULL;
}

/* Rules 1-3: levels from the parent chains into level (-1: not reached). */
static int tree_levels(const seq_graph_t *s, int64_t root, const int64_t *parent,
                       int64_t *level, char *why, size_t n)
{
    for (int64_t v = 0; v < s->n; v++) {
        level[v] = -2;
        if (parent[v] < -1 || parent[v] >= s->n)
            return snprintf(why, n, "parent of %lld is %lld, no vertex", (long long) v,
                            (long long) parent[v]), -1;
    }
    if (parent[root] != root)
        return snprintf(why, n, "root %lld has parent %lld", (long long) root,
                        (long long) parent[root]), -1;
    level[root] = 0;
    for (int64_t v = 0; v < s->n; v++) {
        int64_t x = v, steps = 0;
        while (level[x] == -2 && parent[x] >= 0 && steps <= s->n) {
            x = parent[x];
            steps++;
        }
        if (x != v && (level[x] == -1 || (level[x] == -2 && parent[x] < 0)))
            return snprintf(why, n, "the parents of %lld lead to %lld, not reached",
                            (long long) v, (long long) x), -1;
        if (steps > s->n)
            return snprintf(why, n, "the parents of %lld form a cycle", (long long) v), -1;
        int64_t base = level[x] == -2 ? -1 : level[x];  /* v itself unreached: -1 */
        /* Second walk: write the levels down the chain. */
        int64_t depth = steps, y = v;
        while (y != x) {
            level[y] = base < 0 ? -1 : base + depth--;
            if (base >= 0 && !has_edge(s, y, parent[y]))
                return snprintf(why, n, "tree edge (%lld, %lld) is not in the graph",
                                (long long) y, (long long) parent[y]), -1;
            y = parent[y];
        }
        if (level[v] == -2)
            level[v] = -1;
    }
    return 0;
}

/* Rules 4 and 5. */
static int edge_rules(const seq_graph_t *s, int64_t root, const int64_t *level, char *why,
                      size_t n)
{
    for (int64_t u = 0; u < s->n; u++)
        for (int64_t k = s->start[u]; k < s->start[u + 1]; k++) {
            int64_t v = s->adj[k], lu = level[u], lv = level[v];
            if ((lu < 0) != (lv < 0))
                return snprintf(why, n, "edge (%lld, %lld): one end reached, the other not",
                                (long long) u, (long long) v), -1;
            if (lu >= 0 && (lu - lv > 1 || lv - lu > 1))
                return snprintf(why, n, "edge (%lld, %lld): levels %lld and %lld", (long long) u,
                                (long long) v, (long long) lu, (long long) lv), -1;
        }
    int64_t *dist = malloc(sizeof(int64_t) * (size_t) s->n), *q = malloc(sizeof(int64_t) * (size_t) s->n);
    int rc = dist && q ? 0 : (snprintf(why, n, "out of memory"), -1);
    for (int64_t v = 0; rc == 0 && v < s->n; v++)
        dist[v] = -1;
    int64_t head = 0, tail = 0;
    if (rc == 0) {
        dist[root] = 0;
        q[tail++] = root;
    }
    while (head < tail) {
        int64_t u = q[head++];
        for (int64_t k = s->start[u]; k < s->start[u + 1]; k++)
            if (dist[s->adj[k]] < 0) {
                dist[s->adj[k]] = dist[u] + 1;
                q[tail++] = s->adj[k];
            }
    }
    for (int64_t v = 0; rc == 0 && v < s->n; v++)
        if (dist[v] != level[v])
            rc = (snprintf(why, n, "vertex %lld: level %lld, sequential BFS says %lld",
                           (long long) v, (long long) level[v], (long long) dist[v]), -1);
    free(dist);
    free(q);
    return rc;
}

static int check_on_root(const bfs_graph_t *g, int64_t root, const int64_t *all, char *why,
                         size_t n)
{
    seq_graph_t s = { 0, NULL, NULL };
    int64_t *level = malloc(sizeof(int64_t) * (size_t) g->nglobal);
    int rc = level && seq_build(g, &s) == 0 ? 0 : (snprintf(why, n, "out of memory"), -1);
    if (rc == 0)
        rc = tree_levels(&s, root, all, level, why, n);
    if (rc == 0)
        rc = edge_rules(&s, root, level, why, n);
    free(level);
    free(s.start);
    free(s.adj);
    return rc;
}

int bfs_validate(const bfs_graph_t *g, int64_t root, const int64_t *parent, char *why,
                 size_t whylen)
{
    int np = g->np, *counts = NULL, *displs = NULL, rc = 0;
    int64_t *all = NULL;
    char msg[256] = "";
    if (g->me == 0) {
        counts = malloc(sizeof(int) * (size_t) np);
        displs = malloc(sizeof(int) * (size_t) np);
        all = malloc(sizeof(int64_t) * (size_t) g->nglobal);
        for (int r = 0; counts && displs && r < np; r++) {
            int64_t b = g->chunk * r < g->nglobal ? g->chunk * r : g->nglobal;
            int64_t e = b + g->chunk < g->nglobal ? b + g->chunk : g->nglobal;
            displs[r] = (int) b;
            counts[r] = (int) (e - b);
        }
    }
    int ok = g->me != 0 || (counts && displs && all), allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_LAND, g->comm);
    if (!allok) {
        snprintf(msg, sizeof msg, "out of memory");
        rc = -1;
    } else {
        MPI_Gatherv(parent, (int) g->nlocal, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0,
                    g->comm);
        if (g->me == 0)
            rc = check_on_root(g, root, all, msg, sizeof msg);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, g->comm);
    MPI_Bcast(msg, sizeof msg, MPI_CHAR, 0, g->comm);
    snprintf(why, whylen, "%s", msg);
    free(counts);
    free(displs);
    free(all);
    return rc;
}
