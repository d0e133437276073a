/*
 * acc_long_runs: accumulates of many elements (48 KiB, several times what one
 * request to a target carries) stay element-wise atomic against each other and
 * against one-element atomics on the same elements, and fetch exactly what was
 * there.  Over the network backend rmaib sends such a call to the target as runs:
 * the operands are put into the origin's stage in the target's mailbox and the
 * target applies a run of up to 16 KiB with CPU atomics (always over net, from
 * 4 KiB over tcp;ofi_rxm, where rxm's own atomics do the short ones).
 *
 * 1. Alone: rank 0 does MPI_Get_accumulate(MPI_SUM) of N int64 on rank 1's known
 *    values; every fetched value and every target element is checked.
 * 2. Together: in each of ROUNDS lock_all epochs every rank adds its operands to
 *    all N int64 and all N doubles of one target with MPI_Accumulate, fetches a
 *    sum over the doubles with MPI_Get_accumulate, and adds 1 to a few elements
 *    of the int64 array with MPI_Fetch_and_op in between.  The final arrays are
 *    known exactly (small integers, exact in double); every fetched double is
 *    checked to lie between the element's start and end values and to be a whole
 *    number.
 * Both on an allocated and on a created window (the locked path in rmaib, for
 * comparison of the same program).
 */
#include <math.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

enum { N = 6144, ROUNDS = 3, FOPS = 8 };

static int64_t i_operand(int rank, int round, int i)
{
    return (int64_t) (rank + 1) * 3 + round + i % 5;
}

static double d_operand(int rank, int i)
{
    return (double) ((rank + 2) * (1 + i % 3));
}

/* The element of the int64 array the k-th fetch-and-op of a round touches. */
static int fop_index(int rank, int round, int k)
{
    return (rank * 977 + round * 131 + k * 769) % N;
}

static void alone(int kind)
{
    kind_win_t w = win_open(kind, (MPI_Aint) N * 8, 8, 0);
    int64_t *mine = w.base;
    self_begin(w.win, MPI_LOCK_EXCLUSIVE);
    for (int i = 0; i < N; i++)
        mine[i] = (int64_t) tap_rank * 100000 + i;
    self_end(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0) {
        int64_t *in = malloc(N * 8), *got = malloc(N * 8);
        for (int i = 0; i < N; i++) {
            in[i] = 7 + i % 11;
            got[i] = -1;
        }
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win), "MPI_Win_lock");
        EXPECT_OK(MPI_Get_accumulate(in, N, MPI_INT64_T, got, N, MPI_INT64_T, 1, 0, N, MPI_INT64_T,
                                MPI_SUM, w.win), "MPI_Get_accumulate");
        EXPECT_OK(MPI_Win_unlock(1, w.win), "MPI_Win_unlock");
        for (int i = 0; i < N; i++)
            TAP_CHECK(got[i] == 100000 + i, "fetched element %d is %lld, want %lld", i,
                      (long long) got[i], (long long) (100000 + i));
        free(in);
        free(got);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 1) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < N; i++)
            TAP_CHECK(mine[i] == 100000 + i + 7 + i % 11, "target element %d is %lld", i,
                      (long long) mine[i]);
        self_end(w.win);
    }
    tap_ok("%s: one MPI_Get_accumulate of %d int64 fetches and adds every element",
           win_kind_name[kind], N);
    win_close(&w);
}

static void together(int kind)
{
    const int target = tap_size - 1;
    kind_win_t w = win_open(kind, (MPI_Aint) N * 16, 1, 0);
    int64_t *ia = w.base;
    double *da = (double *) ((char *) w.base + N * 8);
    int64_t *iin = malloc(N * 8);
    double *din = malloc(N * 8), *dgot = malloc(N * 8);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < N; i++) {
            iin[i] = i_operand(tap_rank, round, i);
            din[i] = d_operand(tap_rank, i);
        }
        EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
        EXPECT_OK(MPI_Accumulate(iin, N, MPI_INT64_T, target, 0, N, MPI_INT64_T, MPI_SUM, w.win),
             "MPI_Accumulate int64");
        for (int k = 0; k < FOPS; k++) {
            int64_t one = 1, old = -1;
            EXPECT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target,
                                  (MPI_Aint) fop_index(tap_rank, round, k) * 8, MPI_SUM, w.win),
                 "MPI_Fetch_and_op");
            TAP_CHECK(old >= 0, "fetch-and-op fetched %lld", (long long) old);
        }
        EXPECT_OK(MPI_Get_accumulate(din, N, MPI_DOUBLE, dgot, N, MPI_DOUBLE, target, N * 8, N,
                                MPI_DOUBLE, MPI_SUM, w.win), "MPI_Get_accumulate double");
        EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
        /* Between nothing yet and every rank's every round, and whole. */
        for (int i = 0; i < N; i++) {
            double hi = 0;
            for (int r = 0; r < tap_size; r++)
                hi += ROUNDS * d_operand(r, i);
            TAP_CHECK(dgot[i] >= 0 && dgot[i] <= hi && dgot[i] == floor(dgot[i]),
                      "round %d fetched double %d = %g, outside 0..%g or not whole", round, i,
                      dgot[i], hi);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == target) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < N; i++) {
            int64_t want = 0;
            double dwant = 0;
            for (int r = 0; r < tap_size; r++) {
                dwant += ROUNDS * d_operand(r, i);
                for (int round = 0; round < ROUNDS; round++) {
                    want += i_operand(r, round, i);
                    for (int k = 0; k < FOPS; k++)
                        want += fop_index(r, round, k) == i;
                }
            }
            TAP_CHECK(ia[i] == want, "int64 element %d is %lld, want %lld", i, (long long) ia[i],
                      (long long) want);
            TAP_CHECK(da[i] == dwant, "double element %d is %g, want %g", i, da[i], dwant);
        }
        self_end(w.win);
    }
    tap_ok("%s: %d ranks x %d rounds of %d-element accumulates with fetch-and-ops between "
           "lose no update", win_kind_name[kind], tap_size, ROUNDS, N);
    free(iin);
    free(din);
    free(dgot);
    win_close(&w);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int kind = WIN_ALLOCATE; kind <= WIN_CREATE; kind++) {
        alone(kind);
        together(kind);
    }
    return tap_done();
}
