/*
 * target_computes_without_mpi: passive-target epochs complete without the target's
 * help.  Rank 0 computes for 1 s in a loop that makes no MPI call (it watches
 * clock_gettime, not MPI_Wtime).  Meanwhile every other rank runs exclusive and shared
 * lock epochs on it: put, flush, get (checked), accumulate, unlock.  Each origin notes
 * when its last unlock returned, the target notes when it stopped computing; after a
 * barrier every origin's time must be earlier (one host, one monotonic clock), and the
 * data must be in the target's memory.  Fence and post/start/complete/wait need the
 * target by definition and are not tried.
 *
 * An MPI whose locks are active messages served by the target's MPI calls (Debian's
 * MPICH ch4:ucx, for one) finishes the epochs only once the target is back in MPI and
 * fails the timing check; rmaib must pass it.
 * Runs: MPI_Win_allocate memory with both lock algorithms, MPI_Win_create memory;
 * then a stream: each origin puts BULK_BLOCKS blocks of 64 KiB into its own part of
 * the window, a flush after every BULK_PER_FLUSH, while the target computes, and the
 * target checks every byte.  A progress thread serves that stream from sockets that
 * stay readable between its wake-ups, where an unread-data guard must not stall it.
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { COUNT = 0, SLOTS = 1 };     /* COUNT: accumulated by all; SLOTS + o: origin o's */

static const double compute_secs = 1.0;

static void run(const char *alg, int create)
{
    const int t = 0, rounds = 5;
    int64_t *base, *mem = NULL;
    MPI_Aint bytes = (MPI_Aint) sizeof(int64_t) * (SLOTS + tap_size);
    MPI_Win win;
    if (create) {
        mem = calloc((size_t) bytes, 1);
        win = win_create_zeroed(mem, bytes, sizeof(int64_t), alg);
        base = mem;
    } else {
        win = win_allocate_zeroed(bytes, sizeof(int64_t), alg, &base);
    }

    double done = 0, stop = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == t) {
        stop = compute_without_mpi(compute_secs);
    } else {
        const int64_t one = 1;
        for (int j = 1; j <= rounds; j++) {
            int64_t v = tap_rank * 1000 + j, got = -1, got2 = -1;
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock(EXCLUSIVE)");
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, SLOTS + tap_rank, 1, MPI_INT64_T, win),
                 "MPI_Put");
            EXPECT_OK(MPI_Win_flush(t, win), "MPI_Win_flush");
            EXPECT_OK(MPI_Get(&got, 1, MPI_INT64_T, t, SLOTS + tap_rank, 1, MPI_INT64_T, win),
                 "MPI_Get");
            EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
            TAP_CHECK(got == v, "round %d: exclusive get read %lld, expected %lld", j,
                      (long long) got, (long long) v);

            EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock(SHARED)");
            EXPECT_OK(MPI_Get(&got2, 1, MPI_INT64_T, t, SLOTS + tap_rank, 1, MPI_INT64_T, win),
                 "MPI_Get");
            EXPECT_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, COUNT, 1, MPI_INT64_T, MPI_SUM, win),
                 "MPI_Accumulate");
            EXPECT_OK(MPI_Win_flush(t, win), "MPI_Win_flush");
            EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
            TAP_CHECK(got2 == v, "round %d: shared get read %lld, expected %lld", j,
                      (long long) got2, (long long) v);
        }
        done = now_s();
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Bcast(&stop, 1, MPI_DOUBLE, t, MPI_COMM_WORLD);
    if (tap_rank != t)
        TAP_CHECK(done < stop, "origin finished its lock epochs %.3f s after the target "
                  "stopped computing", done - stop);
    double first = tap_rank == t ? 1e300 : done, last = tap_rank == t ? -1e300 : done;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &last, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (tap_rank == t) {
        TAP_CHECK(load64(base + COUNT) == (int64_t) rounds * (tap_size - 1),
                  "accumulated COUNT is %lld, expected %d", (long long) load64(base + COUNT),
                  rounds * (tap_size - 1));
        for (int o = 1; o < tap_size; o++)
            TAP_CHECK(load64(base + SLOTS + o) == o * 1000 + rounds, "slot of origin %d "
                      "is %lld", o, (long long) load64(base + SLOTS + o));
    }
    TAP_DIAG("%s, %s: origins finished %+.3f .. %+.3f s from the target's stop (< 0: before)",
           alg, create ? "MPI_Win_create" : "MPI_Win_allocate", first - stop, last - stop);
    MPI_Win_free(&win);
    free(mem);
    tap_ok("%s lock, %s memory: %d origins finish lock/put/get/acc/unlock epochs while "
           "the target computes", alg, create ? "MPI_Win_create" : "MPI_Win_allocate",
           tap_size - 1);
}

enum { BULK_BLOCK = 64 * 1024, BULK_BLOCKS = 16, BULK_PER_FLUSH = 4 };

static unsigned char bulk_byte(int origin, size_t i)
{
    return (unsigned char) (origin * 37 + i * 7 + i / 251);
}

static void run_bulk(void)
{
    const int t = 0;
    const size_t part = (size_t) BULK_BLOCK * BULK_BLOCKS;
    unsigned char *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) (part * (size_t) tap_size), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    memset(base, 0, part * (size_t) tap_size);
    unsigned char *src = malloc(part);
    for (size_t i = 0; i < part; i++)
        src[i] = bulk_byte(tap_rank, i);

    double done = 0, stop = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == t) {
        stop = compute_without_mpi(compute_secs);
    } else {
        MPI_Aint disp = (MPI_Aint) (part * (size_t) tap_rank);
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock(SHARED)");
        for (int b = 0; b < BULK_BLOCKS; b++) {
            EXPECT_OK(MPI_Put(src + (size_t) b * BULK_BLOCK, BULK_BLOCK, MPI_BYTE, t,
                         disp + (MPI_Aint) b * BULK_BLOCK, BULK_BLOCK, MPI_BYTE, win), "MPI_Put");
            if (b % BULK_PER_FLUSH == BULK_PER_FLUSH - 1)
                EXPECT_OK(MPI_Win_flush(t, win), "MPI_Win_flush");
        }
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
        done = now_s();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(&stop, 1, MPI_DOUBLE, t, MPI_COMM_WORLD);
    if (tap_rank != t)
        TAP_CHECK(done < stop, "origin finished its %d KiB of puts %.3f s after the target "
                  "stopped computing", (int) (part / 1024), done - stop);
    if (tap_rank == t) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win);  /* the window's memory, synchronised */
        for (int o = 1; o < tap_size; o++) {
            const unsigned char *m = base + part * (size_t) o;
            size_t bad = 0, first = part;
            for (size_t i = 0; i < part; i++)
                if (m[i] != bulk_byte(o, i) && bad++ == 0)
                    first = i;
            TAP_CHECK(bad == 0, "origin %d: %zu of %zu bytes wrong, the first at %zu (%u, "
                      "expected %u)", o, bad, part, first, first < part ? m[first] : 0,
                      first < part ? bulk_byte(o, first) : 0);
        }
        MPI_Win_unlock(t, win);
    }
    MPI_Win_free(&win);
    free(src);
    tap_ok("%d origins stream %d KiB each in 64 KiB puts while the target computes",
           tap_size - 1, (int) (part / 1024));
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    run("tas", 0);
    run("mcs", 0);
    run("tas", 1);
    run_bulk();
    return tap_done();
}
