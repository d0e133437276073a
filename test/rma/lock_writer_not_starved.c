/*
 * lock_writer_not_starved: a writer asking for an exclusive lock while a continuous
 * stream of readers takes and drops shared locks on the same target gets it within a
 * bounded time.  Every rank but the last is a reader looping lock(SHARED); add itself
 * to READERS; read STOP; hold 100 us; leave; the last rank waits 50 ms for the stream
 * to build up, then asks for the exclusive lock.  Once it holds it (its first
 * operation has completed: MPI_Win_lock may return before the lock is held) it checks
 * that no reader is inside and sets STOP, which ends the stream.
 *
 * The bound is 10 s: a liveness check, not a timing threshold.  The readers give up
 * by themselves after 15 s so that a starved writer fails the check instead of
 * hanging the run.  Both lock algorithms; target rank 0.
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { STOP = 0, READERS = 1 };

static const double bound = 10.0, reader_deadline = 15.0;

static void run(const char *alg)
{
    const int t = 0, w = tap_size - 1;
    const int64_t one = 1, minus_one = -1, dummy = 0;
    int64_t *base;
    MPI_Win win = win_allocate_zeroed(2 * sizeof(int64_t), sizeof(int64_t), alg, &base);

    double waited = 0;
    int acquisitions = 0, gave_up = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_s();
    if (tap_rank != w) {
        for (;;) {
            int64_t stop = -1, old = -1;
            MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, READERS, MPI_SUM, win);
            MPI_Fetch_and_op(&dummy, &stop, MPI_INT64_T, t, STOP, MPI_NO_OP, win);
            MPI_Win_flush(t, win);
            poll_pause();
            MPI_Accumulate(&minus_one, 1, MPI_INT64_T, t, READERS, 1, MPI_INT64_T, MPI_SUM,
                           win);
            MPI_Win_unlock(t, win);
            TAP_CHECK(old >= 0, "reader count was %lld", (long long) old);
            acquisitions++;
            if (stop)
                break;
            if (now_s() - start > reader_deadline) {
                gave_up = 1;
                break;
            }
        }
    } else {
        usleep(50000);
        int64_t r = -1, stop = 1;
        double t0 = now_s();
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock(EXCLUSIVE)");
        MPI_Fetch_and_op(&dummy, &r, MPI_INT64_T, t, READERS, MPI_NO_OP, win);
        MPI_Win_flush(t, win);
        waited = now_s() - t0;
        TAP_CHECK(r == 0, "writer holds the exclusive lock with %lld readers inside",
                  (long long) r);
        MPI_Fetch_and_op(&stop, &r, MPI_INT64_T, t, STOP, MPI_REPLACE, win);
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock(EXCLUSIVE)");
        TAP_CHECK(waited < bound, "writer waited %.1f s for the exclusive lock (bound %.0f s)",
                  waited, bound);
    }
    TAP_CHECK(!gave_up, "reader gave up after %.0f s: the writer never stopped the stream",
              reader_deadline);

    int total = 0;
    double wmax = 0, wmin = 0;
    MPI_Allreduce(&acquisitions, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    minmax_over_ranks(waited, &wmin, &wmax);
    TAP_DIAG("%s: writer waited %.3f s; readers took %d shared locks in all", alg, wmax, total);
    tap_ok("%s lock: writer gets the exclusive lock past a stream of %d readers", alg,
           tap_size - 1);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int a = 0; a < NLOCK_ALGS; a++)
        run(lock_algs[a]);
    return tap_done();
}
