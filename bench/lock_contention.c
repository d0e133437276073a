/*
 * lock_contention: N origins compete for one exclusive lock on rank 0's window.
 *
 * Run with P ranks: rank 0 is the target, ranks 1..P-1 the origins. For each
 * N in 1, 2, 4, ... P-1 (or only -n N), origins 1..N loop
 *     MPI_Win_lock(EXCLUSIVE, 0) [op] MPI_Win_unlock(0)
 * while the others wait in a barrier. Reported per N:
 *     latency     mean over the N origins of (their loop time / their acquisitions), us
 *     latency_max the slowest origin's figure, us
 *     throughput  all acquisitions / the longest loop time, acquisitions per second
 * -l tas|mcs sets the info key rmaib_lock (rmaib's lock algorithm; other MPIs ignore it).
 * -o incr makes each holder read, increment and write back a counter at the
 * target (get + flush + put), and checks afterwards that no increment was lost:
 * a test of mutual exclusion as much as a benchmark.
 */
#include "osu_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int only_n;      /* -n: 0 = sweep */
    int incr;        /* -o incr */
} lc_args_t;

static int parse_extra(int opt, const char *arg, void *data)
{
    lc_args_t *a = data;

    switch (opt) {
    case 'n':
        a->only_n = atoi(arg);
        return a->only_n < 1;
    case 'o':
        if (!strcmp(arg, "incr"))
            a->incr = 1;
        else if (!strcmp(arg, "none"))
            a->incr = 0;
        else
            return -1;
        return 0;
    default:
        return -1;
    }
}

int main(int argc, char **argv)
{
    lc_args_t a = { 0, 0 };
    osu_opts_t o;
    osu_win_t w;
    int rank, nprocs, rc, failed = 0;
    int64_t expected = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = osu_parse(argc, argv, NULL, &o, "n:o:", parse_extra, &a,
                   "  -n N       only N origins (default: 1, 2, 4, ... P-1)\n"
                   "  -o OP      none (default) | incr: read-increment-write a counter under\n"
                   "             the lock and check no increment was lost\n");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
    }
    if (nprocs < 2 || (a.only_n && a.only_n > nprocs - 1)) {
        if (rank == 0)
            fprintf(stderr, "lock_contention needs at least N+1 ranks (target + N origins)\n");
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    if (o.iters == 10000)   /* OMB's latency default is more than a contended lock needs */
        o.iters = 2000;

    osu_win_create(&w, 4096, o.win, &o, MPI_COMM_WORLD, 0);
    if (rank == 0) {
        memset(w.base, 0, 8);
        if (o.csv)
            osu_csv_header(&o);
        else
            printf("# Exclusive lock contention on one target, %s window, lock=%s, op=%s,"
                   " %d iterations per origin\n%-10s%16s%16s%22s\n",
                   osu_flavor_name(o.win), o.lock_alg ? o.lock_alg : "default",
                   a.incr ? "incr" : "none", o.iters, "# Origins", "Latency (us)",
                   "Max lat (us)", "Throughput (acq/s)");
        fflush(stdout);
    }
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    for (int N = a.only_n ? a.only_n : 1;; N = 2 * N < nprocs - 1 ? 2 * N : nprocs - 1) {
        int skip = o.skip, n = o.iters, capped = o.time_cap > 0, i;
        double t_first = 0, t0 = 0, t1 = 0, mine[2] = { 0, 0 }, *all = NULL;
        int active = rank >= 1 && rank <= N;

        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (active) {
            MPI_Win win = w.win;
            MPI_Aint disp = w.disp0;
            int64_t v = 0;
            OSU_TIMED_LOOP(&o, 0, 1,
                OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
                if (a.incr) {
                    OSU_CHECK(MPI_Get(&v, 1, MPI_INT64_T, 0, disp, 1, MPI_INT64_T, win));
                    OSU_CHECK(MPI_Win_flush(0, win));
                    v++;
                    OSU_CHECK(MPI_Put(&v, 1, MPI_INT64_T, 0, disp, 1, MPI_INT64_T, win));
                }
                OSU_CHECK(MPI_Win_unlock(0, win));)
            t1 = MPI_Wtime();
            mine[0] = t1 - t0;
            mine[1] = n;
            expected += skip + n;   /* counted only on this rank; summed below */
        }
        osu_barrier(MPI_COMM_WORLD, rank > N);
        if (rank == 0)
            all = malloc(sizeof *all * 2 * (size_t) nprocs);
        OSU_CHECK(MPI_Gather(mine, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            double sum_lat = 0, max_lat = 0, max_t = 0, acq = 0;
            for (int r = 1; r <= N; r++) {
                double lat = all[2 * r] * 1e6 / all[2 * r + 1];
                sum_lat += lat;
                if (lat > max_lat)
                    max_lat = lat;
                if (all[2 * r] > max_t)
                    max_t = all[2 * r];
                acq += all[2 * r + 1];
            }
            if (o.csv) {
                const char *v = o.lock_alg ? o.lock_alg : "default";
                osu_row(&o, "lock_contention", v, o.win, (size_t) N, "latency", sum_lat / N, "us");
                osu_row(&o, "lock_contention", v, o.win, (size_t) N, "latency_max", max_lat, "us");
                osu_row(&o, "lock_contention", v, o.win, (size_t) N, "throughput", acq / max_t,
                        "acq/s");
            } else {
                printf("%-10d%16.3f%16.3f%22.0f\n", N, sum_lat / N, max_lat, acq / max_t);
            }
            fflush(stdout);
            free(all);
        }
        if (a.only_n || N == nprocs - 1)
            break;
    }

    if (a.incr) {
        int64_t total = 0, got = 0;
        OSU_CHECK(MPI_Reduce(&expected, &total, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
            OSU_CHECK(MPI_Get(&got, 1, MPI_INT64_T, 0, w.disp0, 1, MPI_INT64_T, w.win));
            OSU_CHECK(MPI_Win_unlock(0, w.win));
            failed = got != total;
            printf("# mutual exclusion check: %s (counter %lld, expected %lld)\n",
                   failed ? "FAILED" : "ok", (long long) got, (long long) total);
            fflush(stdout);
        }
        OSU_CHECK(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    }
    osu_win_free(&w);
    MPI_Finalize();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
