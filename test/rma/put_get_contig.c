/*
 * MPI_Put and MPI_Get of contiguous data of the basic types (MPI_INT, MPI_DOUBLE,
 * MPI_CHAR at an odd offset, MPI_BYTE, MPI_UINT64_T) from every rank to every rank,
 * itself included, under lock_all + flush, lock/unlock and fence.
 *
 * Each origin owns a 1 KiB region of every target's window and writes five runs into
 * it.  The target checks the whole window byte by byte: the runs hold the origin's
 * values, every other byte still holds the sentinel.  Then each origin reads its
 * whole region back with one Get and checks the same image, sentinels included.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define REGION 1024

static const struct run {
    MPI_Datatype type;
    size_t size, off, count;
} runs[] = {
    { MPI_INT, 4, 4, 50 },
    { MPI_DOUBLE, 8, 256, 20 },
    { MPI_CHAR, 1, 513, 99 },
    { MPI_BYTE, 1, 700, 201 },
    { MPI_UINT64_T, 8, 904, 10 },
};
#define NRUNS 5

/* The bytes origin o's region of target t's window must hold after the puts. */
static void image(unsigned char *img, int o, int t)
{
    memset(img, SENT_BYTE, REGION);
    for (int r = 0; r < NRUNS; r++)
        for (size_t j = 0; j < runs[r].count; j++) {
            unsigned char *p = img + runs[r].off + j * runs[r].size;
            int v = pat(o, t, r, (int) j);
            if (runs[r].type == MPI_INT) {
                memcpy(p, &v, 4);
            } else if (runs[r].type == MPI_DOUBLE) {
                double d = v + 0.25;
                memcpy(p, &d, 8);
            } else if (runs[r].type == MPI_UINT64_T) {
                uint64_t u = ((uint64_t) v << 32) | (uint64_t) (unsigned) ~v;
                memcpy(p, &u, 8);
            } else {
                *p = bpat(o, t, (long) (r * 1000 + j));
            }
        }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    size_t wsize = (size_t) np * REGION;
    unsigned char *obuf = malloc(wsize);      /* image(me, t) for every target t */
    unsigned char *gbuf = malloc(wsize);      /* what Get read from every target */
    unsigned char *wbuf = malloc(wsize);
    unsigned char *want = malloc(REGION);
    for (int t = 0; t < np; t++)
        image(obuf + (size_t) t * REGION, me, t);

    for (int mode = 0; mode < NSYNC; mode++) {
        MPI_Win win;
        unsigned char *base = wbuf;
        if (mode == SYNC_LOCK) {
            memset(base, SENT_BYTE, wsize);
            MPI_Win_create(base, (MPI_Aint) wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else {
            MPI_Win_allocate((MPI_Aint) wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
            self_begin(win, MPI_LOCK_EXCLUSIVE);
            memset(base, SENT_BYTE, wsize);
            self_end(win);
            MPI_Barrier(MPI_COMM_WORLD);
        }

        /* every origin puts its five runs into its region of every target */
        int bad = 0;
        sync_open(mode, MPI_MODE_NOPRECEDE, win);
        for (int i = 0; i < np; i++) {
            int t = (me + i) % np;
            const unsigned char *src = obuf + (size_t) t * REGION;
            sync_target_begin(mode, MPI_LOCK_EXCLUSIVE, t, win);
            for (int r = 0; r < NRUNS; r++)
                bad += MPI_Put(src + runs[r].off, (int) runs[r].count, runs[r].type, t,
                               (MPI_Aint) ((size_t) me * REGION + runs[r].off),
                               (int) runs[r].count, runs[r].type, win) != MPI_SUCCESS;
            sync_target_end(mode, t, 1, win);
        }
        sync_close(mode, 0, win);
        if (mode != SYNC_FENCE)
            MPI_Barrier(MPI_COMM_WORLD);
        TAP_CHECK(bad == 0, "%d puts failed", bad);

        if (mode != SYNC_FENCE)
            self_begin(win, MPI_LOCK_SHARED);
        for (int o = 0; o < np; o++) {
            image(want, o, me);
            const unsigned char *got = base + (size_t) o * REGION;
            for (size_t b = 0; b < REGION; b++)
                TAP_CHECK(got[b] == want[b], "region of rank %d, byte %zu: %#x, want %#x",
                          o, b, got[b], want[b]);
        }
        if (mode != SYNC_FENCE)
            self_end(win);
        tap_ok("%s: put of five basic types to every rank, whole window checked", sync_name[mode]);

        /* every origin reads its whole region (written runs and sentinels) back */
        memset(gbuf, 0, wsize);
        bad = 0;
        if (mode == SYNC_LOCK_ALL)      /* under fence, the put's closing fence opened it */
            MPI_Win_lock_all(0, win);
        for (int i = 0; i < np; i++) {
            int t = (me + np - i) % np;
            sync_target_begin(mode, MPI_LOCK_SHARED, t, win);
            bad += MPI_Get(gbuf + (size_t) t * REGION, REGION, MPI_BYTE, t,
                           (MPI_Aint) ((size_t) me * REGION), REGION, MPI_BYTE, win) != MPI_SUCCESS;
            sync_target_end(mode, t, 0, win);
        }
        sync_close(mode, MPI_MODE_NOSUCCEED, win);
        TAP_CHECK(bad == 0, "%d gets failed", bad);
        for (int t = 0; t < np; t++) {
            image(want, me, t);
            const unsigned char *got = gbuf + (size_t) t * REGION;
            for (size_t b = 0; b < REGION; b++)
                TAP_CHECK(got[b] == want[b], "read from rank %d, byte %zu: %#x, want %#x",
                          t, b, got[b], want[b]);
        }
        tap_ok("%s: get of the whole region from every rank", sync_name[mode]);
        MPI_Win_free(&win);
    }

    free(obuf);
    free(gbuf);
    free(wbuf);
    free(want);
    return tap_done();
}
