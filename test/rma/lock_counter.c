/*
 * lock_counter: exclusive locks give mutual exclusion.  Every rank increments one
 * counter at one target K times, each time as lock(EXCLUSIVE); get; flush; +1; put;
 * unlock.  The counter must end at exactly nprocs*K, and the values the origins read
 * must be 0 .. nprocs*K-1, each seen once: a lost update or two holders at once shows
 * as a duplicate.  Run for both lock algorithms (info rmaib_lock = tas, mcs), with
 * the target being rank 0 and the last rank, on allocated memory and on user memory
 * (MPI_Win_create).  Env LOCK_COUNTER_K overrides K.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

static int K;

static void run(const char *alg, int target, int create)
{
    int64_t *base, mem[1];
    MPI_Win win;
    if (create) {
        win = win_create_zeroed(mem, sizeof mem, sizeof(int64_t), alg);
        base = mem;
    } else {
        win = win_allocate_zeroed(sizeof(int64_t), sizeof(int64_t), alg, &base);
    }

    int64_t *seen = malloc(sizeof(int64_t) * (size_t) K);
    for (int i = 0; i < K; i++) {
        int64_t v = -1;
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "MPI_Win_lock");
        EXPECT_OK(MPI_Get(&v, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, win), "MPI_Get");
        EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
        seen[i] = v;
        v++;
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock(target, win), "MPI_Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);

    int64_t want = (int64_t) tap_size * K;
    if (tap_rank == target)
        TAP_CHECK(load64(base) == want, "counter at the target is %lld, expected %lld",
                  (long long) load64(base), (long long) want);
    int64_t got = -1;
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    MPI_Get(&got, 1, MPI_INT64_T, target, 0, 1, MPI_INT64_T, win);
    MPI_Win_unlock(target, win);
    TAP_CHECK(got == want, "counter read back is %lld, expected %lld", (long long) got,
              (long long) want);

    /* Every value 0 .. want-1 read exactly once, over all origins. */
    int64_t *all = tap_rank == 0 ? malloc(sizeof(int64_t) * (size_t) want) : NULL;
    MPI_Gather(seen, K, MPI_INT64_T, all, K, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char *hit = calloc((size_t) want, 1);
        for (int64_t i = 0; i < want; i++) {
            int64_t v = all[i];
            if (v < 0 || v >= want)
                tap_fail("rank %lld read counter value %lld, outside 0..%lld",
                         (long long) (i / K), (long long) v, (long long) want - 1);
            else if (hit[v]++)
                tap_fail("counter value %lld was read by two critical sections "
                         "(second by rank %lld)", (long long) v, (long long) (i / K));
        }
        free(hit);
        free(all);
    }
    free(seen);
    MPI_Win_free(&win);
    tap_ok("%s lock, target rank %d, %s: %d ranks x %d increments = %lld", alg, target,
           create ? "MPI_Win_create memory" : "MPI_Win_allocate memory", tap_size, K,
           (long long) want);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    K = tap_env_int("LOCK_COUNTER_K", 100);
    for (int a = 0; a < NLOCK_ALGS; a++) {
        run(lock_algs[a], 0, 0);
        run(lock_algs[a], tap_size - 1, 0);
        run(lock_algs[a], tap_size - 1, 1);
    }
    return tap_done();
}
