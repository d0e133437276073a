/*
 * Displacement units other than 1, different on every rank (8, 3, 1, 12, 5 by rank):
 * target_disp is scaled by the TARGET's disp_unit, never the origin's.  Every origin
 * puts one unit's worth of bytes at target_disp 1 + 2*origin of every rank, so the
 * written units are separated by untouched ones; the target checks every byte of its
 * window, and every origin reads its unit back with a Get (and one Rget) at the
 * same displacement.  On a created and on an allocated window, under lock_all and
 * fence.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"
#include "wait.h"

static int du_of(int rank)
{
    static const int du[] = { 8, 3, 1, 12, 5 };
    return du[rank % 5];
}

/* Rounded up to 16 bytes so that this test stays about disp_unit (odd sizes are
 * win_allocate.c's business). */
static size_t size_of(int rank, int np)
{
    return ((size_t) du_of(rank) * (size_t) (2 * np + 3) + 15) / 16 * 16;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    size_t mysize = size_of(me, np);

    for (int f = 0; f < 2; f++) {
        const char *fn = f ? "allocate, fence" : "create, lock_all";
        unsigned char *base, *mem = malloc(mysize);
        MPI_Win win;
        if (f == 0) {
            base = mem;
            memset(base, SENT_BYTE, mysize);
            MPI_Win_create(base, (MPI_Aint) mysize, du_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate((MPI_Aint) mysize, du_of(me), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
            self_begin(win, MPI_LOCK_EXCLUSIVE);
            memset(base, SENT_BYTE, mysize);
            self_end(win);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        unsigned char *src = malloc((size_t) np * 12), *got = malloc((size_t) np * 12);
        unsigned char *got2 = malloc((size_t) np * 12);
        memset(got, SENT_BYTE, (size_t) np * 12);
        memset(got2, SENT_BYTE, (size_t) np * 12);
        MPI_Request *req = malloc(np * sizeof(MPI_Request));

        if (f == 0)
            MPI_Win_lock_all(0, win);
        else
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        int rc = MPI_SUCCESS;
        for (int t = 0; t < np; t++) {
            int n = du_of(t);
            for (int k = 0; k < n; k++)
                src[t * 12 + k] = bpat(me, t, k);
            rc |= MPI_Put(src + t * 12, n, MPI_BYTE, t, 1 + 2 * me, n, MPI_BYTE, win);
        }
        if (f == 0)
            MPI_Win_flush_all(win);
        else
            MPI_Win_fence(0, win);
        for (int t = 0; t < np; t++) {
            int n = du_of(t);
            rc |= MPI_Get(got + t * 12, n, MPI_BYTE, t, 1 + 2 * me, n, MPI_BYTE, win);
            if (f == 0)
                rc |= MPI_Rget(got2 + t * 12, n, MPI_BYTE, t, 1 + 2 * me, n, MPI_BYTE, win, &req[t]);
        }
        if (f == 0) {
            waitall(np, req);
            MPI_Win_unlock_all(win);
        } else {
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        }
        TAP_CHECK(rc == MPI_SUCCESS, "%s: an RMA call failed", fn);
        MPI_Barrier(MPI_COMM_WORLD);

        if (f == 0)
            self_begin(win, MPI_LOCK_SHARED);
        int du = du_of(me);
        for (size_t b = 0; b < mysize; b++) {
            size_t unit = b / (size_t) du;
            int o = unit % 2 ? (int) (unit - 1) / 2 : -1;
            unsigned char want = o >= 0 && o < np ? bpat(o, me, (long) (b % (size_t) du)) : SENT_BYTE;
            TAP_CHECK(base[b] == want, "%s: disp_unit %d, byte %zu is %#x, want %#x", fn, du, b,
                      base[b], want);
        }
        if (f == 0)
            self_end(win);
        tap_ok("%s: puts scaled by each target's disp_unit, nothing between them written", fn);

        for (int t = 0; t < np; t++)
            for (int k = 0; k < 12; k++) {
                unsigned char want = k < du_of(t) ? bpat(me, t, k) : SENT_BYTE;
                TAP_CHECK(got[t * 12 + k] == want, "%s: get from rank %d (disp_unit %d) byte %d is %#x",
                          fn, t, du_of(t), k, got[t * 12 + k]);
                if (f == 0)
                    TAP_CHECK(got2[t * 12 + k] == want, "%s: rget from rank %d byte %d is %#x", fn,
                              t, k, got2[t * 12 + k]);
            }
        tap_ok("%s: gets at the same scaled displacements read the units back", fn);
        MPI_Win_free(&win);
        free(mem);
        free(src);
        free(got);
        free(got2);
        free(req);
    }
    return tap_done();
}
