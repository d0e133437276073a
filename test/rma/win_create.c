/*
 * MPI_Win_create over user memory, and MPI_Win_free.
 *  - puts land in the user's own array, at disp_unit-scaled displacements, and only
 *    there; gets read it back;
 *  - MPI_Win_free sets the handle to MPI_WIN_NULL and leaves the user's memory, with
 *    what was written into it, to the user;
 *  - two windows over the same memory: a put through one is read through the other;
 *  - several windows alive at once, freed in an order other than creation's, each one
 *    moving its own data.
 */
#include "tap.h"
#include "pattern.h"

#define N 256                           /* ints per rank */

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    int *mem = malloc(N * sizeof(int)), *src = malloc(N * sizeof(int));
    int *got = malloc(N * sizeof(int));
    MPI_Win win;

    /* put ints [10, 10+100) into the right neighbour, scaled by disp_unit 4 */
    fill_int(mem, N, SENT_INT);
    for (int i = 0; i < N; i++)
        src[i] = pat(me, right, 0, i);
    int rc = MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    TAP_CHECK(rc == MPI_SUCCESS && win != MPI_WIN_NULL, "MPI_Win_create returned %d", rc);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    MPI_Put(src + 10, 100, MPI_INT, right, 10, 100, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++) {
        int want = i >= 10 && i < 110 ? pat(left, me, 0, i) : SENT_INT;
        TAP_CHECK(mem[i] == want, "int %d is %#x, want %#x", i, (unsigned) mem[i], (unsigned) want);
    }
    tap_ok("win_create: put from the left neighbour lands in the user's array, nothing else changed");

    fill_int(got, N, SENT_INT);
    MPI_Get(got, N, MPI_INT, left, 0, N, MPI_INT, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    for (int i = 0; i < N; i++) {
        int want = i >= 10 && i < 110 ? pat((left + np - 1) % np, left, 0, i) : SENT_INT;
        TAP_CHECK(got[i] == want, "got int %d = %#x, want %#x", i, (unsigned) got[i], (unsigned) want);
    }
    tap_ok("win_create: get of the left neighbour's whole window (written by its own left)");

    rc = MPI_Win_free(&win);
    TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_free returned %d", rc);
    TAP_CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set the handle to MPI_WIN_NULL");
    for (int i = 10; i < 110; i++)
        TAP_CHECK(mem[i] == pat(left, me, 0, i), "after free int %d is %#x", i, (unsigned) mem[i]);
    mem[0] = 1;                         /* still the user's memory */
    tap_ok("win_free: handle is MPI_WIN_NULL, the user's memory keeps its data");

    /* two windows over the same memory */
    MPI_Win w1, w2;
    fill_int(mem, N, SENT_INT);
    MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
    MPI_Win_create(mem, N * sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    for (int i = 0; i < N; i++)
        src[i] = pat(me, right, 1, i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w1);
    MPI_Put(src, N / 2, MPI_INT, right, N / 4, N / 2, MPI_INT, w1);
    MPI_Win_unlock(right, w1);
    MPI_Barrier(MPI_COMM_WORLD);
    fill_int(got, N, 0);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w2);
    MPI_Get(got, N, MPI_INT, right, 0, N, MPI_INT, w2);
    MPI_Win_unlock(right, w2);
    for (int i = 0; i < N; i++) {
        int want = i >= N / 4 && i < 3 * N / 4 ? pat(me, right, 1, i - N / 4) : SENT_INT;
        TAP_CHECK(got[i] == want, "via the second window int %d = %#x, want %#x", i,
                  (unsigned) got[i], (unsigned) want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&w2);
    MPI_Win_free(&w1);
    tap_ok("two windows over the same memory: put through one, get through the other");

    /* four windows alive at once, each on its own memory, freed 2, 0, 3, 1 */
    enum { NW = 4 };
    MPI_Win w[NW];
    int *m[NW];
    for (int k = 0; k < NW; k++) {
        int n = 16 * (k + 1);
        m[k] = malloc(n * sizeof(int));
        fill_int(m[k], n, SENT_INT);
        MPI_Win_create(m[k], n * (MPI_Aint) sizeof(int), sizeof(int), MPI_INFO_NULL,
                       MPI_COMM_WORLD, &w[k]);
    }
    for (int k = 0; k < NW; k++)
        MPI_Win_lock_all(0, w[k]);
    for (int k = 0; k < NW; k++) {
        int n = 16 * (k + 1), v[64];
        for (int i = 0; i < n; i++)
            v[i] = pat(me, right, 10 + k, i);
        MPI_Put(v, n, MPI_INT, right, 0, n, MPI_INT, w[k]);
        MPI_Win_flush(right, w[k]);
    }
    for (int k = NW - 1; k >= 0; k--)
        MPI_Win_unlock_all(w[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NW; k++) {
        MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w[k]);
        for (int i = 0; i < 16 * (k + 1); i++)
            TAP_CHECK(m[k][i] == pat(left, me, 10 + k, i), "window %d int %d is %#x", k, i,
                      (unsigned) m[k][i]);
        MPI_Win_unlock(me, w[k]);
    }
    int order[NW] = { 2, 0, 3, 1 };
    for (int k = 0; k < NW; k++) {
        rc = MPI_Win_free(&w[order[k]]);
        TAP_CHECK(rc == MPI_SUCCESS && w[order[k]] == MPI_WIN_NULL, "freeing window %d: %d",
                  order[k], rc);
    }
    for (int k = 0; k < NW; k++)
        free(m[k]);
    tap_ok("four windows at once, each with its own data, freed out of order");

    free(mem);
    free(src);
    free(got);
    return tap_done();
}
