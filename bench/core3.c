/*
 * core3: the three figures of rmaib's foundation issue, in one run of 2 ranks
 * on one MPI_Win_allocate window (rank 0 origin, rank 1 target):
 *
 *   put+flush   one MPI_Win_lock_all, then MPI_Put(8 bytes) + MPI_Win_flush repeated
 *   get+flush   the same with MPI_Get
 *   lock/unlock MPI_Win_lock(EXCLUSIVE) + MPI_Win_unlock repeated, no operation
 *
 * Latency = loop time / iterations, OMB's method (10000 iterations + 100 warm-up).
 * maint/bench-compare --only core3 runs it under every MPI and keeps the median.
 */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>

enum { CORE_PUT, CORE_GET, CORE_LOCK, CORE_COUNT };

static const char *const core_names[CORE_COUNT] = { "put_flush", "get_flush", "lock_unlock" };
static const char *const core_labels[CORE_COUNT] = {
    "put+flush, 8 B (lock_all)", "get+flush, 8 B (lock_all)", "lock(EXCLUSIVE)+unlock"
};

static double run(int which, const osu_opts_t *o, MPI_Win win, MPI_Aint disp, char *buf, int rank)
{
    int skip = o->skip, n = o->iters, capped = o->time_cap > 0, i;
    double t_first = 0, t0 = 0, t1 = 0;

    if (rank == 0) {
        switch (which) {
        case CORE_PUT:
            OSU_CHECK(MPI_Win_lock_all(0, win));
            OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Put(buf, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, win));
                           OSU_CHECK(MPI_Win_flush(1, win));)
            t1 = MPI_Wtime();
            OSU_CHECK(MPI_Win_unlock_all(win));
            break;
        case CORE_GET:
            OSU_CHECK(MPI_Win_lock_all(0, win));
            OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Get(buf, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, win));
                           OSU_CHECK(MPI_Win_flush(1, win));)
            t1 = MPI_Wtime();
            OSU_CHECK(MPI_Win_unlock_all(win));
            break;
        default:
            OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
                           OSU_CHECK(MPI_Win_unlock(1, win));)
            t1 = MPI_Wtime();
            break;
        }
    }
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    return rank == 0 ? (t1 - t0) * 1e6 / n : 0;
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_win_t w;
    char buf[8] = { 0 };
    int rank, rc;

    rc = osu_start_pair(&argc, &argv, "core3", NULL, &o, NULL, NULL, NULL, NULL, &rank);
    if (rc >= 0)
        return rc;

    osu_win_create(&w, 4096, o.win, &o, MPI_COMM_WORLD, 1 - rank);
    if (rank == 0) {
        if (o.csv)
            osu_csv_header(&o);
        else
            printf("# rmaib core figures: 8-byte operations, %s window, 2 ranks, %d iterations\n"
                   "%-32s%14s\n", o.win == OSU_WIN_ALLOCATE ? "MPI_Win_allocate"
                                  : osu_flavor_name(o.win), o.iters, "# Figure", "Latency (us)");
    }
    for (int k = 0; k < CORE_COUNT; k++) {
        double us = run(k, &o, w.win, w.disp0, buf, rank);
        if (rank == 0) {
            if (o.csv)
                osu_row(&o, "core3", core_names[k], o.win, k == CORE_LOCK ? 0 : 8, "latency", us,
                        "us");
            else
                printf("%-32s%14.3f\n", core_labels[k], us);
            fflush(stdout);
        }
    }
    osu_win_free(&w);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
