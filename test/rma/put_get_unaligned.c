/*
 * Unaligned transfers: runs of odd lengths at odd byte offsets, with origin buffers
 * at addresses misaligned differently from the target's, in MPI_BYTE, MPI_CHAR,
 * MPI_INT, MPI_DOUBLE and an hvector of ints with a 7-byte stride (disp_unit 1).
 * Every origin writes its runs into its 512-byte region of every rank; the target
 * checks every byte of its window (runs hold the origin's bytes in order, everything
 * else the sentinel); then every origin reads each run back into a misaligned
 * buffer and checks it, and reads its whole region back in one Get.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define REGION 512

static const struct run {
    MPI_Datatype base;
    int esize;
    size_t off;          /* byte offset in the region */
    int blocks, bl, st;  /* target: blocks of bl bytes, st apart */
} runs[] = {
    { MPI_BYTE, 1, 1, 1, 1, 1 },
    { MPI_CHAR, 1, 3, 1, 3, 3 },
    { MPI_BYTE, 1, 9, 1, 7, 7 },
    { MPI_CHAR, 1, 21, 1, 13, 13 },
    { MPI_INT, 4, 37, 1, 20, 20 },
    { MPI_DOUBLE, 8, 61, 1, 24, 24 },
    { MPI_INT, 4, 91, 4, 4, 7 },
    { MPI_BYTE, 1, 121, 1, 255, 255 },
    { MPI_INT, 4, 381, 1, 124, 124 },
};
#define NRUNS ((int) (sizeof runs / sizeof runs[0]))

static size_t run_bytes(const struct run *r)
{
    return (size_t) r->blocks * (size_t) r->bl;
}

/* The k-th byte moved by run r: its value for (o, t), and where it lands. */
static unsigned char val(int o, int t, int r, size_t k)
{
    return bpat(o, t, (long) (r * 1000 + k));
}

static size_t where(const struct run *r, size_t k)
{
    return r->off + (k / (size_t) r->bl) * (size_t) r->st + k % (size_t) r->bl;
}

static void image(unsigned char *img, int o, int t)
{
    memset(img, SENT_BYTE, REGION);
    for (int r = 0; r < NRUNS; r++)
        for (size_t k = 0; k < run_bytes(&runs[r]); k++)
            img[where(&runs[r], k)] = val(o, t, r, k);
}

/* Target datatype and count of run r; origin side is base * (bytes / esize). */
static MPI_Datatype target_type(const struct run *r, int *count)
{
    MPI_Datatype t = r->base;
    *count = (int) (run_bytes(r) / (size_t) r->esize);
    if (r->blocks > 1) {
        MPI_Type_create_hvector(r->blocks, r->bl / r->esize, r->st, r->base, &t);
        MPI_Type_commit(&t);
        *count = 1;
    }
    return t;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    size_t wsize = (size_t) np * REGION;
    unsigned char *base, *img = malloc(REGION);
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    memset(base, SENT_BYTE, wsize);
    self_end(win);

    /* origin data of run r for target t at src + (t*NRUNS + r)*REGION + 3 (odd address) */
    unsigned char *src = malloc((size_t) np * NRUNS * REGION);
    unsigned char *got = malloc((size_t) np * NRUNS * REGION);
    MPI_Datatype tt[NRUNS];
    int tc[NRUNS];
    for (int r = 0; r < NRUNS; r++)
        tt[r] = target_type(&runs[r], &tc[r]);
    for (int t = 0; t < np; t++)
        for (int r = 0; r < NRUNS; r++)
            for (size_t k = 0; k < run_bytes(&runs[r]); k++)
                src[((size_t) t * NRUNS + r) * REGION + 3 + k] = val(me, t, r, k);
    MPI_Barrier(MPI_COMM_WORLD);

    int rc = MPI_SUCCESS;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < np; i++) {
        int t = (me + i) % np;
        for (int r = 0; r < NRUNS; r++) {
            const unsigned char *s = src + ((size_t) t * NRUNS + r) * REGION + 3;
            int n = (int) (run_bytes(&runs[r]) / (size_t) runs[r].esize);
            rc |= MPI_Put(s, n, runs[r].base, t, (MPI_Aint) ((size_t) me * REGION + runs[r].off),
                          tc[r], tt[r], win);
        }
    }
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "an unaligned put failed");
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++) {
        image(img, o, me);
        for (size_t b = 0; b < REGION; b++)
            TAP_CHECK(base[(size_t) o * REGION + b] == img[b],
                      "region of rank %d byte %zu is %#x, want %#x", o, b,
                      base[(size_t) o * REGION + b], img[b]);
    }
    self_end(win);
    tap_ok("unaligned puts of %d runs to every rank: every byte of the window checked", NRUNS);

    memset(got, SENT_BYTE, (size_t) np * NRUNS * REGION);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < np; i++) {
        int t = (me + np - i) % np;
        for (int r = 0; r < NRUNS; r++) {
            unsigned char *d = got + ((size_t) t * NRUNS + r) * REGION + 5;
            int n = (int) (run_bytes(&runs[r]) / (size_t) runs[r].esize);
            rc |= MPI_Get(d, n, runs[r].base, t, (MPI_Aint) ((size_t) me * REGION + runs[r].off),
                          tc[r], tt[r], win);
        }
    }
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "an unaligned get failed");
    for (int t = 0; t < np; t++)
        for (int r = 0; r < NRUNS; r++) {
            const unsigned char *d = got + ((size_t) t * NRUNS + r) * REGION;
            size_t n = run_bytes(&runs[r]);
            for (size_t k = 0; k < 5; k++)
                TAP_CHECK(d[k] == SENT_BYTE, "get of run %d from %d wrote before its buffer", r, t);
            for (size_t k = 0; k < n; k++)
                TAP_CHECK(d[5 + k] == val(me, t, r, k), "get of run %d from %d byte %zu is %#x", r,
                          t, k, d[5 + k]);
            TAP_CHECK(d[5 + n] == SENT_BYTE, "get of run %d from %d wrote past its end", r, t);
        }
    tap_ok("unaligned gets of every run into misaligned buffers");

    memset(got, SENT_BYTE, (size_t) np * REGION + 1);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        rc |= MPI_Get(got + (size_t) t * REGION + 1, REGION, MPI_BYTE, t,
                      (MPI_Aint) ((size_t) me * REGION), REGION, MPI_BYTE, win);
    MPI_Win_unlock_all(win);
    for (int t = 0; t < np; t++) {
        image(img, me, t);
        TAP_CHECK(memcmp(got + (size_t) t * REGION + 1, img, REGION) == 0,
                  "whole region read from rank %d differs", t);
    }
    tap_ok("whole regions read back at an odd address");

    for (int r = 0; r < NRUNS; r++)
        if (runs[r].blocks > 1)
            MPI_Type_free(&tt[r]);
    MPI_Win_free(&win);
    free(src);
    free(got);
    free(img);
    return tap_done();
}
