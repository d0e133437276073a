/*
 * acc_fop_concurrent: one-element fetching atomics stay atomic with multi-element
 * accumulates on the same elements, from every rank at once (MPI-3.1 §11.7.1:
 * accumulate-family calls are element-wise atomic with each other).  rmaib may take
 * different paths for the two: over ofi on tcp;ofi_rxm, MPI_Fetch_and_op and
 * MPI_Compare_and_swap on one element are applied by the target from its mailbox,
 * an accumulate of two elements by the provider's atomic protocol; within a node both
 * are CPU atomics.
 *
 * Every rank, K times, in one lock_all epoch on target T (rank 0, then the last):
 *  - MPI_Fetch_and_op(SUM, 1) on element 0;
 *  - MPI_Compare_and_swap loop adding 1 to element 2 (retrying on a miss);
 *  - MPI_Accumulate(SUM, {H, 1}) on elements 0..1 and again on elements 2..3,
 *    H = 2^32.
 * So each element 0 and 2 counts fops (low 32 bits) and accumulates (high bits).  The
 * low halves the fops and successful CASes returned must be 0 .. P*K-1, each once
 * (a lost or doubled update shows as a duplicate); each rank's own returns must rise;
 * the elements must end at P*K*(H+1), P*K, P*K*(H+1), P*K.  On MPI_INT64_T and on
 * MPI_UINT64_T, on an allocated and a created window.  Env ACC_FOP_CONCURRENT_K
 * overrides K.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

#define H ((int64_t) 1 << 32)

static int K;

static void check_once(const int64_t *all, int64_t n, const char *what)
{
    char *hit = calloc((size_t) n, 1);
    int bad = 0;
    for (int64_t i = 0; i < n && !bad; i++) {
        int64_t v = all[i] & (H - 1);
        if (v >= n) {
            tap_fail("%s returned count %lld, outside 0..%lld", what, (long long) v,
                     (long long) n - 1);
            bad = 1;
        } else if (hit[v]++) {
            tap_fail("%s returned count %lld twice (second at rank %lld)", what,
                     (long long) v, (long long) (i / K));
            bad = 1;
        }
    }
    free(hit);
}

static void run(int kind, MPI_Datatype dt, const char *dtname, int target)
{
    kind_win_t w = win_open(kind, 4 * sizeof(int64_t), sizeof(int64_t), 0);
    int64_t *fop_seen = malloc(sizeof(int64_t) * (size_t) K);
    int64_t *cas_seen = malloc(sizeof(int64_t) * (size_t) K);
    const int64_t one = 1, pair[2] = { H, 1 };
    int bad = 0;

    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    for (int i = 0; i < K; i++) {
        int64_t old = -1;
        EXPECT_OK(MPI_Fetch_and_op(&one, &old, dt, target, 0, MPI_SUM, w.win), "MPI_Fetch_and_op");
        EXPECT_OK(MPI_Win_flush(target, w.win), "MPI_Win_flush");
        fop_seen[i] = old;
        EXPECT_OK(MPI_Accumulate(pair, 2, dt, target, 0, 2, dt, MPI_SUM, w.win), "MPI_Accumulate");

        int64_t cur = 0, got = -1;
        EXPECT_OK(MPI_Fetch_and_op(NULL, &cur, dt, target, 2, MPI_NO_OP, w.win), "MPI_Fetch_and_op");
        EXPECT_OK(MPI_Win_flush(target, w.win), "MPI_Win_flush");
        for (;;) {
            int64_t next = cur + 1;
            int rc = MPI_Compare_and_swap(&next, &cur, &got, dt, target, 2, w.win);
            EXPECT_OK(rc, "MPI_Compare_and_swap");
            EXPECT_OK(MPI_Win_flush(target, w.win), "MPI_Win_flush");
            if (rc != MPI_SUCCESS || got == cur)
                break;
            cur = got;
        }
        cas_seen[i] = got;
        EXPECT_OK(MPI_Accumulate(pair, 2, dt, target, 2, 2, dt, MPI_SUM, w.win), "MPI_Accumulate");
        if (i > 0 && (fop_seen[i] <= fop_seen[i - 1] || cas_seen[i] <= cas_seen[i - 1]) && !bad) {
            tap_fail("rank %d, round %d: returns did not rise (fop %lld after %lld, "
                     "cas %lld after %lld)", tap_rank, i, (long long) fop_seen[i],
                     (long long) fop_seen[i - 1], (long long) cas_seen[i],
                     (long long) cas_seen[i - 1]);
            bad = 1;
        }
    }
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);

    int64_t n = (int64_t) tap_size * K, got[4] = { -1, -1, -1, -1 };
    int64_t want[4] = { n * (H + 1), n, n * (H + 1), n };
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win), "MPI_Win_lock");
    EXPECT_OK(MPI_Get(got, 4, dt, target, 0, 4, dt, w.win), "MPI_Get");
    EXPECT_OK(MPI_Win_unlock(target, w.win), "MPI_Win_unlock");
    for (int e = 0; e < 4; e++)
        TAP_CHECK(got[e] == want[e], "element %d ends at %lld, expected %lld", e,
                  (long long) got[e], (long long) want[e]);

    int64_t *all = tap_rank == 0 ? malloc(sizeof(int64_t) * (size_t) n) : NULL;
    MPI_Gather(fop_seen, K, MPI_INT64_T, all, K, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0)
        check_once(all, n, "MPI_Fetch_and_op");
    MPI_Gather(cas_seen, K, MPI_INT64_T, all, K, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0)
        check_once(all, n, "MPI_Compare_and_swap");
    free(all);
    free(fop_seen);
    free(cas_seen);
    win_close(&w);
    tap_ok("%s, %s, target %d: %d ranks x %d fops, CASes and 2-element accumulates",
               win_kind_name[kind], dtname, target, tap_size, K);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    K = tap_env_int("ACC_FOP_CONCURRENT_K", 200);
    for (int kind = 0; kind < 2; kind++) {
        run(kind, MPI_INT64_T, "MPI_INT64_T", 0);
        run(kind, MPI_UINT64_T, "MPI_UINT64_T", tap_size - 1);
    }
    return tap_done();
}
