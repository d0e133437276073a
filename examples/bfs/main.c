/*
 * rmaib-bfs: Graph500-style BFS on notified reads, against the same traversal on
 * plain gets and a point-to-point one, on the same graph in the same run.
 *
 *   mpiexec -n 4 rmaib-bfs [-s SCALE] [-e EDGEFACTOR] [-r ROOTS] [-v notify,get,p2p]
 *                          [-k INFLIGHT] [-S SEED] [-n]
 *
 * Each sampled root is searched by every variant in turn; every search is validated
 * (-n: not), and a failed validation ends the run with status 1.  Printed: a line per
 * search (time, levels, edges m, TEPS = m / time), then per variant the harmonic mean
 * of the TEPS and the mean time, and the notify variant's ratio to each other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bfs.h"

typedef struct opts {
    int scale, edgefactor, roots, inflight, validate;
    int use[BFS_NVARIANTS];
    uint64_t seed;
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t) { 14, 16, 4, 64, 1, { 1, 1, 1 }, 2 };
    int c;
    while ((c = getopt(argc, argv, "s:e:r:v:k:S:nh")) != -1) {
        switch (c) {
        case 's': o->scale = atoi(optarg); break;
        case 'e': o->edgefactor = atoi(optarg); break;
        case 'r': o->roots = atoi(optarg); break;
        case 'k': o->inflight = atoi(optarg); break;
        case 'S': o->seed = strtoull(optarg, NULL, 0); break;
        case 'n': o->validate = 0; break;
        case 'v':
            for (int v = 0; v < BFS_NVARIANTS; v++)
                o->use[v] = strstr(optarg, bfs_variant_name[v]) != NULL;
            break;
        default:
            return -1;
        }
    }
    if (o->scale < 1 || o->scale > 30 || o->edgefactor < 1 || o->roots < 1 || o->inflight < 1
        || o->inflight > BFS_INFLIGHT_MAX)
        return -1;
    return 0;
}

static void summary(const opts_t *o, const double teps_inv[], const double tsum[], int nprocs)
{
    double hm[BFS_NVARIANTS] = { 0 };
    printf("# scale %d edgefactor %d ranks %d roots %d inflight %d\n", o->scale, o->edgefactor,
           nprocs, o->roots, o->inflight);
    printf("# variant  harmonic-mean-TEPS  mean-time-s\n");
    for (int v = 0; v < BFS_NVARIANTS; v++)
        if (o->use[v]) {
            hm[v] = o->roots / teps_inv[v];
            printf("summary %-7s %.4e %.6f\n", bfs_variant_name[v], hm[v], tsum[v] / o->roots);
        }
    for (int v = 1; v < BFS_NVARIANTS; v++)
        if (o->use[BFS_NOTIFY] && o->use[v])
            printf("ratio notify/%s %.3f\n", bfs_variant_name[v], hm[BFS_NOTIFY] / hm[v]);
}

int main(int argc, char **argv)
{
    opts_t o;
    int me, np, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (parse(argc, argv, &o) < 0) {
        if (me == 0)
            fprintf(stderr, "usage: rmaib-bfs [-s SCALE] [-e EDGEFACTOR] [-r ROOTS] "
                    "[-v notify,get,p2p] [-k INFLIGHT(1-%d)] [-S SEED] [-n]\n", BFS_INFLIGHT_MAX);
        MPI_Finalize();
        return 2;
    }
    bfs_graph_t g;
    double t0 = MPI_Wtime();
    if (bfs_graph_build(&g, o.scale, o.edgefactor, o.seed, MPI_COMM_WORLD) != 0) {
        if (me == 0)
            fprintf(stderr, "rmaib-bfs: could not build the graph\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (me == 0)
        printf("# graph built in %.3f s\n", MPI_Wtime() - t0);
    int64_t *parent = malloc(sizeof(int64_t) * (size_t) (g.nlocal + 1));
    double teps_inv[BFS_NVARIANTS] = { 0 }, tsum[BFS_NVARIANTS] = { 0 };
    for (int k = 0; k < o.roots && !bad; k++) {
        int64_t root = bfs_pick_root(&g, k);
        for (int v = 0; v < BFS_NVARIANTS && !bad; v++) {
            if (!o.use[v])
                continue;
            bfs_result_t r;
            char why[256] = "not validated";
            bad = bfs_run(&g, (enum bfs_variant) v, root, o.inflight, parent, &r) != 0;
            if (!bad && o.validate) {
                bad = bfs_validate(&g, root, parent, why, sizeof why) != 0;
                if (!bad)
                    snprintf(why, sizeof why, "valid");
            }
            double teps = r.seconds > 0 ? (double) r.edges / r.seconds : 0;
            teps_inv[v] += teps > 0 ? 1 / teps : 0;
            tsum[v] += r.seconds;
            if (me == 0)
                printf("root %lld %-7s time %.6f s levels %d edges %lld TEPS %.4e %s\n",
                       (long long) root, bfs_variant_name[v], r.seconds, r.levels,
                       (long long) r.edges, teps, bad ? why : why);
        }
    }
    if (me == 0 && !bad)
        summary(&o, teps_inv, tsum, np);
    free(parent);
    bfs_graph_free(&g);
    MPI_Finalize();
    return bad;
}
