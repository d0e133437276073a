/*
 * Windows on MPI_COMM_SELF, all four flavors, created by every rank at the same
 * time.  Each is a private one-rank window: puts and gets to rank 0 of it reach this
 * process's memory and no other's (all ranks' windows have the same communicator
 * context, so an implementation that names shared state after it would mix them up),
 * under lock, lock_all and fence; its group has one member.
 */
#include "tap.h"
#include "pattern.h"

#define N 64

static const char *flavor_name[] = { "create", "allocate", "allocate_shared", "dynamic" };

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank;

    for (int f = 0; f < 4; f++) {
        MPI_Win win;
        int *base = NULL, *mem = malloc(N * sizeof(int));
        MPI_Aint disp0 = 0;
        if (f == 0) {
            base = mem;
            MPI_Win_create(base, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win);
        } else if (f == 1) {
            MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
        } else if (f == 2) {
            MPI_Win_allocate_shared(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF,
                                    &base, &win);
        } else {
            base = mem;
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_SELF, &win);
            MPI_Win_attach(win, base, N * sizeof(int));
            MPI_Get_address(base, &disp0);
        }
        /* dynamic windows have disp_unit 1: displacements are byte addresses */
        MPI_Aint du = f == 3 ? (MPI_Aint) sizeof(int) : 1;

        MPI_Group g;
        int gsize;
        MPI_Win_get_group(win, &g);
        MPI_Group_size(g, &gsize);
        MPI_Group_free(&g);
        TAP_CHECK(gsize == 1, "%s: group size %d", flavor_name[f], gsize);

        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        fill_int(base, N, SENT_INT);
        MPI_Win_unlock(0, win);
        MPI_Barrier(MPI_COMM_WORLD);        /* every rank's window is initialised */

        int src[N], got[N];
        for (int i = 0; i < N; i++)
            src[i] = pat(me, me, f, i);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        int rc = MPI_Put(src, 16, MPI_INT, 0, disp0 + 4 * du, 16, MPI_INT, win);
        MPI_Win_unlock(0, win);
        MPI_Win_lock_all(0, win);
        rc |= MPI_Put(src + 16, 16, MPI_INT, 0, disp0 + 20 * du, 16, MPI_INT, win);
        MPI_Win_unlock_all(win);
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        rc |= MPI_Put(src + 32, 16, MPI_INT, 0, disp0 + 36 * du, 16, MPI_INT, win);
        MPI_Win_fence(0, win);
        fill_int(got, N, 0);
        rc |= MPI_Get(got, N, MPI_INT, 0, disp0, N, MPI_INT, win);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        TAP_CHECK(rc == MPI_SUCCESS, "%s: an RMA call failed", flavor_name[f]);
        MPI_Barrier(MPI_COMM_WORLD);        /* every rank has written its own window */

        for (int i = 0; i < N; i++) {
            int want = i >= 4 && i < 52 ? pat(me, me, f, i - 4) : SENT_INT;
            TAP_CHECK(base[i] == want, "%s: int %d is %#x, want %#x", flavor_name[f], i,
                      (unsigned) base[i], (unsigned) want);
            TAP_CHECK(got[i] == want, "%s: get of int %d is %#x, want %#x", flavor_name[f], i,
                      (unsigned) got[i], (unsigned) want);
        }
        if (f == 3)
            MPI_Win_detach(win, base);
        MPI_Win_free(&win);
        free(mem);
        tap_ok("%s on MPI_COMM_SELF: lock, lock_all and fence reach only this rank's memory",
               flavor_name[f]);
    }
    return tap_done();
}
