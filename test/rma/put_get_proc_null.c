/*
 * MPI_PROC_NULL as the target: MPI_Put, MPI_Get, MPI_Rput and MPI_Rget to
 * MPI_PROC_NULL succeed and do nothing, under lock_all, fence and inside a lock on
 * a real target; their requests complete (MPI_Wait, MPI_Test) and become
 * MPI_REQUEST_NULL; get buffers keep their sentinel, no window on any rank changes.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"
#include "wait.h"

#define N 32

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    int *base, src[N], got[N];
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    fill_int(base, N, SENT_INT);
    self_end(win);
    for (int i = 0; i < N; i++)
        src[i] = pat(me, 0, 0, i);
    fill_int(got, N, SENT_INT);
    MPI_Barrier(MPI_COMM_WORLD);

    static const char *mode_name[] = { "lock_all", "fence", "lock on a real target" };
    for (int mode = 0; mode < 3; mode++) {
        int rc = MPI_SUCCESS, right = (me + 1) % np, flag = 0;
        MPI_Request r[2] = { MPI_REQUEST_NULL, MPI_REQUEST_NULL };
        if (mode == 0)
            MPI_Win_lock_all(0, win);
        else if (mode == 1)
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        else
            MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
        rc |= MPI_Put(src, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win);
        rc |= MPI_Get(got, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win);
        if (mode != 1) {
            rc |= MPI_Rput(src, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &r[0]);
            rc |= MPI_Rget(got, N, MPI_INT, MPI_PROC_NULL, 0, N, MPI_INT, win, &r[1]);
            rc |= MPI_Wait(&r[0], MPI_STATUS_IGNORE);
            for (int spins = 0; !flag && spins < 100000; spins++) {
                rc |= MPI_Test(&r[1], &flag, MPI_STATUS_IGNORE);
                if (!flag)
                    poll_pause();
            }
            TAP_CHECK(flag, "%s: Rget to MPI_PROC_NULL never completed", mode_name[mode]);
            TAP_CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
                      "%s: a completed request is not MPI_REQUEST_NULL", mode_name[mode]);
        }
        if (mode == 0) {
            rc |= MPI_Win_flush_all(win);
            MPI_Win_unlock_all(win);
        } else if (mode == 1) {
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        } else {
            rc |= MPI_Win_flush(right, win);
            MPI_Win_unlock(right, win);
        }
        TAP_CHECK(rc == MPI_SUCCESS, "%s: an operation on MPI_PROC_NULL failed", mode_name[mode]);
        long i = find_not_int(got, N, SENT_INT);
        TAP_CHECK(i < 0, "%s: a get from MPI_PROC_NULL wrote int %ld", mode_name[mode], i);
        MPI_Barrier(MPI_COMM_WORLD);
        if (mode != 1)
            self_begin(win, MPI_LOCK_SHARED);
        i = find_not_int(base, N, SENT_INT);
        TAP_CHECK(i < 0, "%s: window int %ld changed", mode_name[mode], i);
        if (mode != 1)
            self_end(win);
        tap_ok("%s: Put/Get/Rput/Rget to MPI_PROC_NULL succeed and do nothing", mode_name[mode]);
    }
    MPI_Win_free(&win);
    return tap_done();
}
