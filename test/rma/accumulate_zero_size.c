/*
 * Accumulates of nothing, whatever their datatypes (MPICH's test/mpi/rma/badrma):
 * MPI_Accumulate, MPI_Get_accumulate (with MPI_SUM and MPI_NO_OP) and
 * MPI_Raccumulate with count 0 of different basic types on the two sides (MPI_INT
 * against MPI_DOUBLE), and with a non-zero count of a zero-size type
 * (contiguous(0)) against count 0 of another, to every rank, under fence and under
 * lock_all.  All succeed and not one byte changes: the window and the result buffer
 * keep their sentinels.  An accumulate of nothing is still checked for its target:
 * to a rank outside the window it fails with MPI_ERR_RANK, outside an epoch with
 * MPI_ERR_RMA_SYNC.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"
#include "errcheck.h"

#define N 16

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int np = tap_size;
    int *base, res[N], src[N];
    MPI_Win win;
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    for (int i = 0; i < N; i++)
        src[i] = i + 1;

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    fill_int(base, N, SENT_INT);
    self_end(win);
    fill_int(res, N, SENT_INT);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int mode = 0; mode < 2; mode++) {
        int bad = 0;
        if (mode == 0)
            MPI_Win_lock_all(0, win);
        else
            MPI_Win_fence(0, win);
        for (int t = 0; t < np; t++) {
            MPI_Request r = MPI_REQUEST_NULL;
            bad += MPI_Accumulate(src, 0, MPI_INT, t, 0, 0, MPI_DOUBLE, MPI_SUM, win) != MPI_SUCCESS;
            bad += MPI_Accumulate(src, 3, empty, t, 1, 0, MPI_INT, MPI_SUM, win) != MPI_SUCCESS;
            bad += MPI_Accumulate(src, 0, MPI_DOUBLE, t, N, 2, empty, MPI_REPLACE, win)
                != MPI_SUCCESS;
            bad += MPI_Accumulate(NULL, 2, empty, t, 0, 1, empty, MPI_MAX, win) != MPI_SUCCESS;
            bad += MPI_Get_accumulate(src, 0, MPI_INT, res, 0, MPI_DOUBLE, t, 0, 0, MPI_INT,
                                      MPI_SUM, win) != MPI_SUCCESS;
            bad += MPI_Get_accumulate(src, 1, empty, res, 0, MPI_INT, t, 2, 2, empty,
                                      MPI_SUM, win) != MPI_SUCCESS;
            bad += MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 2, empty, t, 0, 0, MPI_DOUBLE,
                                      MPI_NO_OP, win) != MPI_SUCCESS;
            if (mode == 0) {
                bad += MPI_Raccumulate(src, 0, MPI_INT, t, 0, 0, MPI_DOUBLE, MPI_SUM, win, &r)
                    != MPI_SUCCESS;
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            }
        }
        EXPECT_CLASS(MPI_Accumulate(src, 0, MPI_INT, np, 0, 0, MPI_DOUBLE, MPI_SUM, win),
                     MPI_ERR_RANK, "accumulate of nothing to rank np");
        if (mode == 0) {
            MPI_Win_flush_all(win);
            MPI_Win_unlock_all(win);
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_Win_fence(0, win);
        }
        TAP_CHECK(bad == 0, "%d calls failed", bad);
        long i = find_not_int(res, N, SENT_INT);
        TAP_CHECK(i < 0, "a get_accumulate of nothing wrote int %ld of its result", i);
        if (mode == 0)
            self_begin(win, MPI_LOCK_SHARED);
        i = find_not_int(base, N, SENT_INT);
        TAP_CHECK(i < 0, "an accumulate of nothing wrote int %ld of the window: %#x", i,
                  i < 0 ? 0u : (unsigned) base[i]);
        if (mode == 0)
            self_end(win);
        tap_ok("%s: accumulates of nothing with mismatched or zero-size types succeed "
               "and change nothing", mode == 0 ? "lock_all" : "fence");
    }

    /* The fence epoch above ended with a plain fence: close it, then no epoch. */
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    EXPECT_CLASS(MPI_Accumulate(src, 0, MPI_INT, 0, 0, 0, MPI_DOUBLE, MPI_SUM, win),
                 MPI_ERR_RMA_SYNC, "accumulate of nothing outside an epoch");
    tap_ok("an accumulate of nothing is still checked for its epoch");

    MPI_Win_free(&win);
    MPI_Type_free(&empty);
    return tap_done();
}
