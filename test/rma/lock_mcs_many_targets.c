/*
 * lock_mcs_many_targets: a process holds exclusive locks on every target at once,
 * more of them than its MCS queue nodes (RMAIB_TEST_MCS_NODES makes the pool small),
 * so some locks queue and some are taken by test-and-set beside the queue.  Every
 * rank locks all targets in rank order (no cycle), adds one to each target's counter
 * with get; flush; put, and unlocks them all; K rounds.  Each counter must end at
 * exactly nprocs*K, and each origin's reads of one counter must grow: two holders at
 * once show as a lost update.  Env LOCK_MANY_K overrides K.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

static void run(const char *alg, int create)
{
    int64_t *base, mem[1];
    MPI_Win win;
    int K = tap_env_int("LOCK_MANY_K", 30);
    if (create) {
        win = win_create_zeroed(mem, sizeof mem, sizeof(int64_t), alg);
        base = mem;
    } else {
        win = win_allocate_zeroed(sizeof(int64_t), sizeof(int64_t), alg, &base);
    }
    int64_t *last = calloc((size_t) tap_size, sizeof *last);
    for (int t = 0; t < tap_size; t++)
        last[t] = -1;
    for (int k = 0; k < K; k++) {
        for (int t = 0; t < tap_size; t++)
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock");
        for (int t = 0; t < tap_size; t++) {
            int64_t v = -1;
            EXPECT_OK(MPI_Get(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), "MPI_Get");
            EXPECT_OK(MPI_Win_flush(t, win), "MPI_Win_flush");
            TAP_CHECK(v > last[t] && v < (int64_t) tap_size * K, "round %d: target %d's "
                      "counter read %lld after %lld", k, t, (long long) v, (long long) last[t]);
            last[t] = v;
            v++;
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, win), "MPI_Put");
        }
        for (int t = tap_size - 1; t >= 0; t--)
            EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t want = (int64_t) tap_size * K;
    TAP_CHECK(load64(base) == want, "this rank's counter is %lld, expected %lld",
              (long long) load64(base), (long long) want);
    free(last);
    MPI_Win_free(&win);
    tap_ok("%s locks on all %d targets at once, %s, %d rounds: every counter %lld", alg,
           tap_size, create ? "MPI_Win_create memory" : "MPI_Win_allocate memory", K,
           (long long) want);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int a = 0; a < NLOCK_ALGS; a++) {
        run(lock_algs[a], 0);
        run(lock_algs[a], 1);
    }
    return tap_done();
}
