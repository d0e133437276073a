/*
 * progress_thread_idle: the progress thread (RMAIB_ASYNC_PROGRESS=1) serves the
 * target side without burning a core.  Run over ofi (the testlist's ofi pass).
 *  1. With a window up (so the endpoint and its thread are), every rank sleeps
 *     1.5 s outside MPI; the process's CPU time over the sleep (all threads,
 *     getrusage) must stay under 0.2 s.
 *  2. Rank 0 sleeps 1.5 s again while every other rank puts to it 20 times with a
 *     flush each (served by rank 0's thread alone): the origins finish before rank 0
 *     wakes, the data is there afterwards, and rank 0's CPU time stays under 0.3 s.
 */
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>
#include "tap.h"
#include "wait.h"

static double cpu_secs(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double) u.ru_utime.tv_sec + (double) u.ru_stime.tv_sec
        + 1e-6 * (double) (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

static void nap(double secs)
{
    struct timespec t = { (time_t) secs, (long) ((secs - (double) (time_t) secs) * 1e9) };
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int64_t *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) sizeof(int64_t) * (size_t) tap_size, sizeof(int64_t),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < tap_size; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    double c0 = cpu_secs();
    nap(1.5);
    double idle = cpu_secs() - c0;
    TAP_CHECK(idle < 0.2, "%.3f s of CPU time during a 1.5 s sleep", idle);
    tap_ok("idle process with the endpoint up: under 0.2 s CPU in 1.5 s");

    double woke = 0, finished = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0) {
        c0 = cpu_secs();
        nap(1.5);
        woke = now_s();
        double busy = cpu_secs() - c0;
        TAP_CHECK(busy < 0.3, "target used %.3f s of CPU time serving 20 puts per origin", busy);
    } else {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int64_t k = 1; k <= 20; k++) {
            MPI_Put(&k, 1, MPI_INT64_T, 0, tap_rank, 1, MPI_INT64_T, win);
            MPI_Win_flush(0, win);
        }
        MPI_Win_unlock(0, win);
        finished = now_s();
    }
    double last = 0;
    MPI_Allreduce(&finished, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Bcast(&woke, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        TAP_CHECK(tap_size < 2 || last < woke, "the origins finished %.3f s after the target woke",
                  last - woke);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int r = 1; r < tap_size; r++)
            TAP_CHECK(base[r] == 20, "slot %d holds %lld, want 20", r, (long long) base[r]);
        MPI_Win_unlock(0, win);
    }
    tap_ok("a sleeping target is served by its thread: puts done before it wakes, data there");
    MPI_Win_free(&win);
    return tap_done();
}
