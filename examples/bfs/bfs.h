/*
 * rmaib-bfs: a Graph500-style breadth-first search over a Kronecker graph whose
 * distributed CSR lives in an MPI window (graph.c), traversed three ways (bfs.c,
 * bfs_p2p.c), validated by the Graph500 rules against a sequential BFS (validate.c).
 *
 * Vertices are dealt out in blocks of g->chunk; each rank holds the adjacency of its
 * own vertices grouped by the owner of the neighbour: for each rank q, the slices of
 * all its rows that point to q, one after the other in row order (bfs_slice), so
 * that a receiver's slices of a dense frontier are near each other and few reads
 * fetch them.  A level of the RMA traversals: each rank tells every other
 * rank which slices of its frontier's rows point there (a descriptor list in the
 * receiver's inbox), and the receiver pulls those slices and claims the vertices.
 */
#ifndef RMAIB_BFS_H
#define RMAIB_BFS_H

#include <stdint.h>
#include <mpi.h>

enum bfs_variant { BFS_NOTIFY, BFS_GET, BFS_P2P, BFS_NVARIANTS };
extern const char *const bfs_variant_name[BFS_NVARIANTS];

#define BFS_INFLIGHT_MAX 256    /* read slots (notification counters) at most */
#define BFS_SLICE_MAX 4096      /* longest read, in vertices; longer slices are cut */
#define BFS_GAP 256             /* slices at most this far apart share a read */

typedef struct bfs_graph {
    int scale, edgefactor, me, np;
    uint64_t seed;
    int64_t nglobal, nedges;    /* 2^scale vertices, edgefactor * 2^scale input edges */
    int64_t chunk;              /* vertices per rank: rank r owns [r * chunk, ...) */
    int64_t vbase, nlocal;
    int64_t *rowq;              /* see bfs_slice; row nlocal: the ends of the groups */
    int64_t nadj;               /* adjacency entries held here */
    int64_t *win_base;          /* window: inbox (inbox_words), then the adjacency */
    int64_t inbox_words, slot_words;
    MPI_Win win;
    MPI_Comm comm;
} bfs_graph_t;

/* Per traversal: what bfs_run measured. */
typedef struct bfs_result {
    double seconds;             /* slowest rank */
    int64_t edges;              /* input edges in the root's component (Graph500 m) */
    int levels;
} bfs_result_t;

/* graph.c */
void bfs_edge(int scale, uint64_t seed, int64_t e, int64_t *u, int64_t *v);
int bfs_graph_build(bfs_graph_t *g, int scale, int edgefactor, uint64_t seed, MPI_Comm comm);
void bfs_graph_free(bfs_graph_t *g);
int64_t bfs_owner(const bfs_graph_t *g, int64_t v);
int64_t bfs_degree(const bfs_graph_t *g, int64_t ulocal);

/* The neighbours of local vertex u on rank q: adjacency entries [*off, *off + len). */
static inline int64_t bfs_slice(const bfs_graph_t *g, int64_t u, int q, int64_t *off)
{
    *off = g->rowq[u * (g->np + 1) + q];
    return g->rowq[(u + 1) * (g->np + 1) + q] - *off;
}
int64_t bfs_pick_root(const bfs_graph_t *g, int k);
int bfs_cmp64(const void *a, const void *b);     /* qsort of int64_t */

/* bfs.c: a traversal from root into parent (g->nlocal words; -1: not reached).
 * inflight: reads in flight at once (1 .. BFS_INFLIGHT_MAX). */
int bfs_run(bfs_graph_t *g, enum bfs_variant v, int64_t root, int inflight, int64_t *parent,
            bfs_result_t *res);
/* bfs_p2p.c: the point-to-point variant (MPI_Alltoallv per level). */
int bfs_run_p2p(bfs_graph_t *g, int64_t root, int64_t *parent, int *levels);

/* validate.c: collective; 0 if the parent array passes the Graph500 rules and agrees
 * with a sequential BFS (on rank 0, which regenerates the graph), else -1 with the
 * reason in why on every rank. */
int bfs_validate(const bfs_graph_t *g, int64_t root, const int64_t *parent, char *why,
                 size_t whylen);

#endif
