/*
 * The origin as its own target: MPI_Put and MPI_Get to one's own rank under
 * lock(self), lock_all and fence, on a created and on an allocated window, with a
 * contiguous and a vector target type, and with the origin buffer itself inside the
 * window (another part of it).  Every rank does it at once; each checks its own
 * whole window: the values where they were put, the sentinel elsewhere.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define N 256

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank;
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 3, MPI_INT, &vec);          /* 8 ints over 11 */
    MPI_Type_commit(&vec);
    int want[N], src[N], got[N];

    for (int f = 0; f < 2; f++) {
        MPI_Win win;
        int *base, *mem = malloc(N * sizeof(int));
        if (f == 0) {
            base = mem;
            fill_int(base, N, SENT_INT);
            MPI_Win_create(base, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
            self_begin(win, MPI_LOCK_EXCLUSIVE);
            fill_int(base, N, SENT_INT);
            self_end(win);
        }
        /* ints [200, 232) of the window are the source of the in-window put */
        self_begin(win, MPI_LOCK_EXCLUSIVE);
        for (int i = 0; i < 32; i++)
            base[200 + i] = pat(me, me, 9, i);
        self_end(win);
        fill_int(want, N, SENT_INT);
        for (int i = 0; i < 32; i++)
            want[200 + i] = pat(me, me, 9, i);
        for (int i = 0; i < N; i++)
            src[i] = pat(me, me, f, i);

        int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
        rc |= MPI_Put(src, 20, MPI_INT, me, 0, 20, MPI_INT, win);             /* [0,20) */
        rc |= MPI_Win_unlock(me, win);
        rc |= MPI_Win_lock_all(0, win);
        rc |= MPI_Put(src + 20, 16, MPI_INT, me, 30, 2, vec, win);            /* 2 vectors at 30 */
        rc |= MPI_Win_flush(me, win);
        rc |= MPI_Put(base + 200, 32, MPI_INT, me, 100, 32, MPI_INT, win);    /* window to window */
        rc |= MPI_Win_unlock_all(win);
        rc |= MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        rc |= MPI_Put(src + 36, 10, MPI_INT, me, 150, 10, MPI_INT, win);      /* [150,160) */
        rc |= MPI_Win_fence(0, win);
        TAP_CHECK(rc == MPI_SUCCESS, "an RMA call to oneself failed");
        for (int i = 0; i < 20; i++)
            want[i] = src[i];
        for (int k = 0; k < 16; k++)                  /* vector blocks: 2 ints every 3 */
            want[30 + (k / 8) * 11 + ((k % 8) / 2) * 3 + k % 2] = src[20 + k];
        for (int i = 0; i < 32; i++)
            want[100 + i] = pat(me, me, 9, i);
        for (int i = 0; i < 10; i++)
            want[150 + i] = src[36 + i];
        for (int i = 0; i < N; i++)
            TAP_CHECK(base[i] == want[i], "%s: int %d is %#x, want %#x", f ? "allocate" : "create",
                      i, (unsigned) base[i], (unsigned) want[i]);
        tap_ok("%s: puts to oneself under lock, lock_all and fence, one from the window itself",
               f ? "allocate" : "create");

        fill_int(got, N, SENT_INT);
        rc = MPI_Get(got, N, MPI_INT, me, 0, N, MPI_INT, win);
        rc |= MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        rc |= MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
        rc |= MPI_Get(got + 2, 8, MPI_INT, me, 30, 1, vec, win);   /* overwrite got[2..10) */
        rc |= MPI_Win_unlock(me, win);
        TAP_CHECK(rc == MPI_SUCCESS, "a get from oneself failed");
        for (int i = 0; i < N; i++) {
            int w = i >= 2 && i < 10 ? src[20 + i - 2] : want[i];
            TAP_CHECK(got[i] == w, "%s: got int %d = %#x, want %#x", f ? "allocate" : "create", i,
                      (unsigned) got[i], (unsigned) w);
        }
        tap_ok("%s: gets from oneself under fence and lock, contiguous and vector",
               f ? "allocate" : "create");
        MPI_Win_free(&win);
        free(mem);
    }
    MPI_Type_free(&vec);
    return tap_done();
}
