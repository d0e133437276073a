/*
 * lock_all_basic: MPI_Win_lock_all epochs move data to every rank, and the flush
 * family means what it says.  In the unified memory model a target that meets the
 * origin in a barrier after the origin's flush, and calls MPI_Win_sync, sees the data
 * in its own memory while the epoch is still open.
 *
 *  - lock_all; put to every rank; flush_all; unlock_all;
 *  - after MPI_Win_flush(t) for each t (and after MPI_Win_flush_all), every target
 *    sees the data inside the epoch;
 *  - after MPI_Win_flush_local / flush_local_all the origin buffer may be reused: it
 *    is overwritten, and the targets still get the value it held at the put;
 *  - MPI_Win_sync the other way: a rank stores into its own window memory, syncs,
 *    and the others read the value with MPI_Get after a barrier;
 *  - MPI_MODE_NOCHECK on lock_all (everyone shared) and on lock (each target locked
 *    by one origin only);
 *  - 100 lock_all epochs back to back, a value per epoch checked at the neighbour.
 * Both lock algorithms.  Each rank's window: SLOTS words written by rank o at [o],
 * then OWN, a word only its owner stores to.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

static int64_t *base;
static MPI_Win win;
static int ncase;
static int OWN;         /* index of the owner-written word: after the nprocs slots */

static int64_t val(int origin, int target)
{
    return (int64_t) ncase * 10000 + origin * 100 + target + 1;
}

static void put_all(void)
{
    for (int t = 0; t < tap_size; t++) {
        int64_t v = val(tap_rank, t);
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
        /* MPI_Put may still read v after returning, and v is about to go out of scope:
         * complete it locally (the flush variants under test come after). */
        EXPECT_OK(MPI_Win_flush_local(t, win), "MPI_Win_flush_local");
    }
}

/* Every origin's slot in my memory holds its value of this case. */
static void check_mine(const char *when)
{
    for (int o = 0; o < tap_size; o++) {
        int64_t got = load64(base + o), want = val(o, tap_rank);
        TAP_CHECK(got == want, "%s: slot of origin %d holds %lld, expected %lld", when, o,
                  (long long) got, (long long) want);
    }
}

static void flush_visible(const char *alg, int all)
{
    ncase++;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    put_all();
    if (all)
        EXPECT_OK(MPI_Win_flush_all(win), "MPI_Win_flush_all");
    else
        for (int t = 0; t < tap_size; t++)
            EXPECT_OK(MPI_Win_flush(t, win), "MPI_Win_flush");
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_sync(win), "MPI_Win_sync");
    check_mine(all ? "after flush_all" : "after flush");
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    tap_ok("%s: after MPI_Win_%s and a barrier the target sees the data inside the epoch",
           alg, all ? "flush_all" : "flush(t) for every t");
}

static void flush_local_reuse(const char *alg, int all)
{
    ncase++;
    int64_t *buf = malloc(sizeof(int64_t) * (size_t) tap_size);
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (int t = 0; t < tap_size; t++) {
        buf[t] = val(tap_rank, t);
        EXPECT_OK(MPI_Put(&buf[t], 1, MPI_INT64_T, t, tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
        if (!all) {
            EXPECT_OK(MPI_Win_flush_local(t, win), "MPI_Win_flush_local");
            buf[t] = -7;
        }
    }
    if (all) {
        EXPECT_OK(MPI_Win_flush_local_all(win), "MPI_Win_flush_local_all");
        for (int t = 0; t < tap_size; t++)
            buf[t] = -7;
    }
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);
    check_mine(all ? "origin buffer overwritten after flush_local_all"
               : "origin buffer overwritten after flush_local");
    free(buf);
    tap_ok("%s: MPI_Win_%s completes puts locally: the origin buffer can be reused", alg,
           all ? "flush_local_all" : "flush_local");
}

static void run(const char *alg)
{
    ncase = 0;
    OWN = tap_size;
    win = win_allocate_zeroed((MPI_Aint) sizeof(int64_t) * (tap_size + 2), sizeof(int64_t), alg,
                         &base);

    ncase++;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    put_all();
    EXPECT_OK(MPI_Win_flush_all(win), "MPI_Win_flush_all");
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);
    check_mine("after unlock_all");
    tap_ok("%s: lock_all, put to all %d ranks, flush_all, unlock_all", alg, tap_size);

    flush_visible(alg, 0);
    flush_visible(alg, 1);
    flush_local_reuse(alg, 0);
    flush_local_reuse(alg, 1);

    /* MPI_Win_sync: the owner's store becomes visible to MPI_Get. */
    ncase++;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    store64(base + OWN, val(tap_rank, tap_rank) + 5000);
    EXPECT_OK(MPI_Win_sync(win), "MPI_Win_sync");
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t *got = malloc(sizeof(int64_t) * (size_t) tap_size);
    for (int t = 0; t < tap_size; t++)
        EXPECT_OK(MPI_Get(&got[t], 1, MPI_INT64_T, t, OWN, 1, MPI_INT64_T, win), "MPI_Get");
    EXPECT_OK(MPI_Win_flush_all(win), "MPI_Win_flush_all");
    for (int t = 0; t < tap_size; t++)
        TAP_CHECK(got[t] == val(t, t) + 5000, "rank %d's own store read back as %lld, "
                  "expected %lld", t, (long long) got[t], (long long) val(t, t) + 5000);
    free(got);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    tap_ok("%s: a local store, MPI_Win_sync and a barrier make it visible to MPI_Get", alg);

    /* NOCHECK: everybody shares, nobody conflicts. */
    ncase++;
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), "MPI_Win_lock_all(NOCHECK)");
    put_all();
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);
    check_mine("lock_all(MPI_MODE_NOCHECK)");
    tap_ok("%s: MPI_Win_lock_all with MPI_MODE_NOCHECK", alg);

    ncase++;
    int right = (tap_rank + 1) % tap_size, left = (tap_rank + tap_size - 1) % tap_size;
    int64_t v = val(tap_rank, right);
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, MPI_MODE_NOCHECK, win),
         "MPI_Win_lock(EXCLUSIVE, NOCHECK)");
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
    EXPECT_OK(MPI_Win_unlock(right, win), "MPI_Win_unlock");
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(load64(base + left) == val(left, tap_rank), "slot of left neighbour %d is "
              "%lld, expected %lld", left, (long long) load64(base + left),
              (long long) val(left, tap_rank));
    MPI_Barrier(MPI_COMM_WORLD);        /* checked before the next puts land */
    for (int t = 0; t < tap_size; t++) {
        v = val(tap_rank, t) + 1;
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOCHECK, win),
             "MPI_Win_lock(SHARED, NOCHECK)");
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < tap_size; o++)
        TAP_CHECK(load64(base + o) == val(o, tap_rank) + 1, "shared NOCHECK: slot of "
                  "origin %d is %lld", o, (long long) load64(base + o));
    tap_ok("%s: MPI_Win_lock with MPI_MODE_NOCHECK, exclusive and shared", alg);

    /* Epochs back to back: epoch e writes e into the right neighbour's slot e%2. */
    int epochs = 100;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int e = 1; e <= epochs; e++) {
        int64_t ev = e;
        EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
        EXPECT_OK(MPI_Put(&ev, 1, MPI_INT64_T, right, e % 2, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
        MPI_Barrier(MPI_COMM_WORLD);
        TAP_CHECK(load64(base + e % 2) == e, "epoch %d: slot holds %lld", e,
                  (long long) load64(base + e % 2));
    }
    tap_ok("%s: %d lock_all epochs back to back, each checked", alg, epochs);

    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    if (tap_size > 99) {
        tap_skip("lock_all_basic", "values assume at most 99 ranks");
        return tap_done();
    }
    for (int a = 0; a < NLOCK_ALGS; a++)
        run(lock_algs[a]);
    return tap_done();
}
