/*
 * rmaib-bfs's traversals and its validator (examples/bfs): on Kronecker graphs of
 * SCALE 10 and 12 (or the list in BFS_SCALES, e.g. "14,16"), every variant (notified reads, plain gets, point-to-point) finds
 * a parent array that passes the Graph500 rules and matches a sequential BFS, the
 * same Graph500 m for each; and the validator refuses a parent array with one word
 * corrupted three ways (a reached vertex unreached, a vertex its own parent, a
 * vertex two levels down hung from the root).
 */
#include <stdlib.h>
#include "tap.h"
#include "bfs.h"

static int me, np;

/* The smallest vertex on any rank whose parent is neither -1, itself, nor root. */
static int64_t deep_vertex(const bfs_graph_t *g, const int64_t *parent, int64_t root)
{
    int64_t mine = INT64_MAX, all = INT64_MAX;
    for (int64_t u = 0; u < g->nlocal && mine == INT64_MAX; u++)
        if (parent[u] >= 0 && parent[u] != root && g->vbase + u != root)
            mine = g->vbase + u;
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

static void corruptions(const bfs_graph_t *g, int64_t *parent, int64_t root, int scale)
{
    int64_t v = deep_vertex(g, parent, root);
    TAP_CHECK(v != INT64_MAX, "no vertex two levels below the root");
    if (v == INT64_MAX)
        return;
    const int64_t bad[3] = { -1, v, root };
    const char *what[3] = { "unreached", "its own parent", "hung from the root" };
    for (int k = 0; k < 3; k++) {
        int64_t keep = 0, *w = bfs_owner(g, v) == me ? &parent[v - g->vbase] : NULL;
        if (w) {
            keep = *w;
            *w = bad[k];
        }
        char why[256];
        int rc = bfs_validate(g, root, parent, why, sizeof why);
        TAP_CHECK(rc != 0, "SCALE %d: vertex %lld %s passed validation", scale, (long long) v,
                  what[k]);
        if (me == 0 && rc != 0)
            printf("# corrupted (%s): %s\n", what[k], why);
        if (w)
            *w = keep;
    }
}

static void run_scale(int scale)
{
    bfs_graph_t g;
    int rc = bfs_graph_build(&g, scale, 16, 2, MPI_COMM_WORLD);
    TAP_CHECK(rc == 0, "SCALE %d: graph build failed", scale);
    if (rc != 0) {
        tap_ok("SCALE %d: graph", scale);
        return;
    }
    int64_t *parent = malloc(sizeof(int64_t) * (size_t) (g.nlocal + 1));
    for (int k = 0; k < 2; k++) {
        int64_t root = bfs_pick_root(&g, k), m0 = -1;
        for (int v = 0; v < BFS_NVARIANTS; v++) {
            bfs_result_t r;
            char why[256] = "";
            rc = bfs_run(&g, (enum bfs_variant) v, root, 8 + 24 * k, parent, &r);
            TAP_CHECK(rc == 0, "%s: traversal failed", bfs_variant_name[v]);
            rc = bfs_validate(&g, root, parent, why, sizeof why);
            TAP_CHECK(rc == 0, "%s from %lld: %s", bfs_variant_name[v], (long long) root, why);
            TAP_CHECK(m0 < 0 || r.edges == m0, "%s: m %lld, notify's %lld", bfs_variant_name[v],
                      (long long) r.edges, (long long) m0);
            TAP_CHECK(r.edges > 0, "%s: empty component", bfs_variant_name[v]);
            m0 = r.edges;
            tap_ok("SCALE %d root %lld: %s BFS valid (%d levels, m %lld)", scale,
                   (long long) root, bfs_variant_name[v], r.levels, (long long) r.edges);
        }
        if (k == 0) {
            corruptions(&g, parent, root, scale);
            tap_ok("SCALE %d: the validator refuses three corrupted parent words", scale);
        }
    }
    free(parent);
    bfs_graph_free(&g);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    const char *list = getenv("BFS_SCALES");
    char *end;
    for (const char *p = list ? list : "10,12"; *p; p = *end ? end + 1 : end) {
        long scale = strtol(p, &end, 10);
        TAP_CHECK(end != p && scale >= 1 && scale <= 30, "BFS_SCALES=%s: bad list", list);
        if (end == p || scale < 1 || scale > 30) {
            tap_ok("BFS_SCALES");
            break;
        }
        run_scale((int) scale);
    }
    return tap_done();
}
