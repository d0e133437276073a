/*
 * Transfers of nothing: count 0 (with MPI_INT, with a vector type, with a NULL
 * buffer), and count 5 of a zero-size datatype (contiguous(0)), by MPI_Put, MPI_Get,
 * MPI_Rput and MPI_Rget, at displacements 0, in the middle and at the very end of
 * the window, to every rank, under lock_all and under fence.  All succeed, requests
 * complete, and not one byte changes: every window and every get buffer keeps its
 * sentinel.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define N 64

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int np = tap_size;
    int *base, got[N];
    MPI_Win win;
    MPI_Datatype vec, empty;
    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);

    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    fill_int(base, N, SENT_INT);
    self_end(win);
    fill_int(got, N, SENT_INT);
    int src[N];
    for (int i = 0; i < N; i++)
        src[i] = i + 1;
    MPI_Barrier(MPI_COMM_WORLD);

    for (int mode = 0; mode < 2; mode++) {
        int bad = 0;
        if (mode == 0)
            MPI_Win_lock_all(0, win);
        else
            MPI_Win_fence(0, win);
        for (int t = 0; t < np; t++) {
            const MPI_Aint disps[] = { 0, N / 2, N };
            for (int d = 0; d < 3; d++) {
                MPI_Aint disp = disps[d];
                MPI_Request r[2];
                bad += MPI_Put(src, 0, MPI_INT, t, disp, 0, MPI_INT, win) != MPI_SUCCESS;
                bad += MPI_Put(NULL, 0, MPI_INT, t, disp, 0, MPI_INT, win) != MPI_SUCCESS;
                bad += MPI_Put(src, 0, vec, t, disp, 0, vec, win) != MPI_SUCCESS;
                bad += MPI_Put(src, 5, empty, t, disp, 5, empty, win) != MPI_SUCCESS;
                bad += MPI_Get(got, 0, MPI_INT, t, disp, 0, MPI_INT, win) != MPI_SUCCESS;
                bad += MPI_Get(got, 0, vec, t, disp, 0, MPI_INT, win) != MPI_SUCCESS;
                bad += MPI_Get(got, 5, empty, t, disp, 5, empty, win) != MPI_SUCCESS;
                if (mode == 0) {
                    bad += MPI_Rput(src, 0, MPI_INT, t, disp, 0, MPI_INT, win, &r[0]) != MPI_SUCCESS;
                    bad += MPI_Rget(got, 0, MPI_INT, t, disp, 0, MPI_INT, win, &r[1]) != MPI_SUCCESS;
                    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
                    MPI_Wait(&r[1], MPI_STATUS_IGNORE);
                }
            }
        }
        if (mode == 0) {
            MPI_Win_flush_all(win);
            MPI_Win_unlock_all(win);
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            MPI_Win_fence(0, win);
        }
        TAP_CHECK(bad == 0, "%d calls failed", bad);
        long i = find_not_int(got, N, SENT_INT);
        TAP_CHECK(i < 0, "a get of nothing wrote int %ld of its buffer", i);
        if (mode == 0)
            self_begin(win, MPI_LOCK_SHARED);
        i = find_not_int(base, N, SENT_INT);
        TAP_CHECK(i < 0, "a put of nothing wrote int %ld of the window: %#x", i,
                  i < 0 ? 0u : (unsigned) base[i]);
        if (mode == 0)
            self_end(win);
        tap_ok("%s: count-0 and zero-size transfers succeed and change nothing",
               mode == 0 ? "lock_all" : "fence");
    }
    MPI_Win_free(&win);
    MPI_Type_free(&vec);
    MPI_Type_free(&empty);
    return tap_done();
}
