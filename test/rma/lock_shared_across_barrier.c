/*
 * lock_shared_across_barrier: lock epochs that do not conflict are held at the same
 * time, so processes holding them can meet in MPI_Barrier before unlocking without
 * deadlock.  Each process puts to its own slot before the barrier and to a second slot
 * after it, then unlocks; the target checks both slots of every origin afterwards.
 *
 *  - all ranks take a shared lock on one target (rank 0, then the last rank);
 *  - only ranks 0 and 1 take it, the others just meet them in the barrier;
 *  - every rank takes a shared lock on every target (nprocs epochs open at once);
 *  - MPI_Win_lock_all;
 *  - exclusive locks on distinct targets (rank r locks r+1), which do not conflict.
 * Both lock algorithms.  Values carry the case number, so a stale slot is caught.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

static int64_t *base;
static MPI_Win win;
static int ncase;

static int64_t val(int c, int origin, int after)
{
    return (int64_t) c * 1000 + origin * 2 + after + 1;
}

static void put_slot(int t, int after)
{
    int64_t v = val(ncase, tap_rank, after);
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, tap_rank * 2 + after, 1, MPI_INT64_T, win), "MPI_Put");
}

/* Collective, after the epochs closed: target t (each rank may name itself) finds
 * both slots of every origin in `who`. */
static void check_target(int t, int (*who)(int origin))
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank != t)
        return;
    for (int o = 0; o < tap_size; o++) {
        if (!who(o))
            continue;
        for (int after = 0; after < 2; after++) {
            int64_t got = load64(base + o * 2 + after), want = val(ncase, o, after);
            TAP_CHECK(got == want, "target %d: slot of origin %d (%s the barrier) is %lld, "
                      "expected %lld", t, o, after ? "after" : "before", (long long) got,
                      (long long) want);
        }
    }
}

static int everyone(int o)
{
    (void) o;
    return 1;
}

static int first_two(int o)
{
    return o < 2;
}

static int left_neighbour(int o)
{
    return (o + 1) % tap_size == tap_rank;
}

static void one_target(const char *alg, int t, int (*who)(int), const char *what)
{
    ncase++;
    int in = who(tap_rank);
    if (in) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock(SHARED)");
        put_slot(t, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (in) {
        put_slot(t, 1);
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
    }
    check_target(t, who);
    tap_ok("%s: %s take a shared lock on rank %d and meet in a barrier", alg, what, t);
}

static void run(const char *alg)
{
    win = win_allocate_zeroed((MPI_Aint) sizeof(int64_t) * 2 * (MPI_Aint) tap_size,
                         sizeof(int64_t), alg, &base);

    one_target(alg, 0, everyone, "all ranks");
    one_target(alg, tap_size - 1, everyone, "all ranks");
    one_target(alg, tap_size - 1, first_two, "ranks 0 and 1");

    /* A shared lock on every target at once. */
    ncase++;
    for (int t = 0; t < tap_size; t++) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock(SHARED)");
        put_slot(t, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = tap_size - 1; t >= 0; t--) {
        put_slot(t, 1);
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
    }
    check_target(tap_rank, everyone);     /* every rank checks its own memory */
    tap_ok("%s: every rank holds shared locks on all %d targets across a barrier", alg,
           tap_size);

    /* lock_all. */
    ncase++;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (int t = 0; t < tap_size; t++)
        put_slot(t, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int t = 0; t < tap_size; t++)
        put_slot(t, 1);
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    check_target(tap_rank, everyone);
    tap_ok("%s: every rank holds lock_all across a barrier", alg);

    /* Exclusive locks that do not conflict: rank r on rank r+1. */
    ncase++;
    int right = (tap_rank + 1) % tap_size;
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win), "MPI_Win_lock(EXCLUSIVE)");
    put_slot(right, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    put_slot(right, 1);
    EXPECT_OK(MPI_Win_unlock(right, win), "MPI_Win_unlock");
    check_target(tap_rank, left_neighbour);
    tap_ok("%s: exclusive locks on distinct targets held across a barrier", alg);

    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int a = 0; a < NLOCK_ALGS; a++)
        run(lock_algs[a]);
    return tap_done();
}
