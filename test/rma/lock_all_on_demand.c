/*
 * lock_all_on_demand: across nodes a lock_all epoch holds the targets it has
 * accessed, and only those (rmaib locks each at the epoch's first operation on it).
 *
 * Four roles, ranks 0-3 of at least 4:
 *  - A (0) opens lock_all, puts 1 into slot 0 of B (1) and flushes;
 *  - then, with A's epoch still open, W (2) takes an exclusive lock on rank 3, which A
 *    never touched, puts 7 into it and unlocks: this must not wait for A;
 *  - V (3) asks for an exclusive lock on B, which A holds: it must not get it before
 *    A's unlock_all, so it reads 2, the value A puts into B after W is done, and
 *    then puts 9 into B's slot 1.
 * A waits for W's epoch (a barrier of the ranks but V) before its second put and its
 * unlock_all, so a lock_all that held every target would keep W waiting for good:
 * the watchdog fails the run.  The shm pass is left out (testlist): within a node
 * lock_all counts on rank 0's word, and exclusive lockers wait for it.
 * Both lock algorithms; every value is checked where it lands.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

enum { A = 0, B = 1, W = 2, V = 3 };

static void run(const char *alg, MPI_Comm not_v)
{
    int64_t *base, one = 1, two = 2, seven = 7, nine = 9, seen = -1;
    MPI_Win win = win_allocate_zeroed(2 * sizeof(int64_t), sizeof(int64_t), alg, &base);

    if (tap_rank == A) {
        EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
        EXPECT_OK(MPI_Put(&one, 1, MPI_INT64_T, B, 0, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_flush(B, win), "MPI_Win_flush");
    }
    MPI_Barrier(MPI_COMM_WORLD);        /* A's epoch holds B from here on */
    if (tap_rank == W) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, V, 0, win), "MPI_Win_lock");
        EXPECT_OK(MPI_Put(&seven, 1, MPI_INT64_T, V, 0, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock(V, win), "MPI_Win_unlock");
    }
    if (tap_rank == V) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, B, 0, win), "MPI_Win_lock");
        EXPECT_OK(MPI_Get(&seen, 1, MPI_INT64_T, B, 0, 1, MPI_INT64_T, win), "MPI_Get");
        EXPECT_OK(MPI_Win_flush(B, win), "MPI_Win_flush");
        EXPECT_OK(MPI_Put(&nine, 1, MPI_INT64_T, B, 1, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock(B, win), "MPI_Win_unlock");
        TAP_CHECK(seen == 2, "V's exclusive epoch on B read %lld, not A's last put (2): it "
                  "began inside A's lock_all", (long long) seen);
    }
    if (not_v != MPI_COMM_NULL)
        MPI_Barrier(not_v);             /* W is done: A's epoch never held rank 3 */
    if (tap_rank == A) {
        EXPECT_OK(MPI_Put(&two, 1, MPI_INT64_T, B, 0, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(win, MPI_LOCK_SHARED);
    int64_t s0 = load64(&base[0]), s1 = load64(&base[1]);
    self_end(win);
    if (tap_rank == B)
        TAP_CHECK(s0 == 2 && s1 == 9, "B holds %lld and %lld, expected 2 (A) and 9 (V)",
                  (long long) s0, (long long) s1);
    else if (tap_rank == V)
        TAP_CHECK(s0 == 7, "rank 3 holds %lld, expected W's 7", (long long) s0);
    else
        TAP_CHECK(s0 == 0 && s1 == 0, "rank %d holds %lld and %lld, expected nothing",
                  tap_rank, (long long) s0, (long long) s1);
    tap_ok("%s: a writer locks a target lock_all has not touched while the epoch is open, "
           "and waits for one it has", alg);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    if (tap_size < 4) {
        tap_skip("lock_all on demand", "needs 4 ranks");
        return tap_done();
    }
    MPI_Comm not_v;
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank == V ? MPI_UNDEFINED : 0, tap_rank, &not_v);
    for (int a = 0; a < NLOCK_ALGS; a++)
        run(lock_algs[a], not_v);
    if (not_v != MPI_COMM_NULL)
        MPI_Comm_free(&not_v);
    return tap_done();
}
