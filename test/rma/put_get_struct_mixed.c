/*
 * A struct datatype mixing basic types, with padding gaps: {char; int; double;
 * short[3]} as laid out by the C compiler.  10 records move from every rank to every
 * rank:
 *  - as the same struct type on both sides: fields arrive, padding bytes at the
 *    target keep the sentinel;
 *  - into a target type with the same signature but another layout (fields in
 *    reverse order in memory, struct displacements not monotonic);
 *  - back with MPI_Get, into a sentinel-filled array of records whose padding must
 *    stay untouched.
 * Under lock_all for the put and fence for the get.
 */
#include <stddef.h>
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define NREC 10

struct rec {
    char c;
    int i;
    double d;
    short s[3];
};

/* The other layout: s at 0, d at 8, i at 16, c at 20, 24 bytes per record. */
#define REV_SIZE 24

static void fill_rec(struct rec *r, int o, int t, int k)
{
    r->c = (char) (o * 16 + t + k);
    r->i = pat(o, t, k, 1);
    r->d = pat(o, t, k, 2) + 0.5;
    for (int j = 0; j < 3; j++)
        r->s[j] = (short) (1000 * j + 100 * o + 10 * t + k);
}

static void check_rec(const unsigned char *p, int o, int t, int k, int rev, const char *what)
{
    struct rec w;
    fill_rec(&w, o, t, k);
    size_t oc = rev ? 20 : offsetof(struct rec, c), oi = rev ? 16 : offsetof(struct rec, i);
    size_t od = rev ? 8 : offsetof(struct rec, d), os = rev ? 0 : offsetof(struct rec, s);
    size_t size = rev ? REV_SIZE : sizeof(struct rec);
    unsigned char used[sizeof(struct rec) > REV_SIZE ? sizeof(struct rec) : REV_SIZE] = { 0 };
    TAP_CHECK(memcmp(p + oc, &w.c, 1) == 0, "%s: record %d from %d: c wrong", what, k, o);
    TAP_CHECK(memcmp(p + oi, &w.i, sizeof w.i) == 0, "%s: record %d from %d: i wrong", what, k, o);
    TAP_CHECK(memcmp(p + od, &w.d, sizeof w.d) == 0, "%s: record %d from %d: d wrong", what, k, o);
    TAP_CHECK(memcmp(p + os, w.s, sizeof w.s) == 0, "%s: record %d from %d: s wrong", what, k, o);
    memset(used + oc, 1, 1);
    memset(used + oi, 1, sizeof w.i);
    memset(used + od, 1, sizeof w.d);
    memset(used + os, 1, sizeof w.s);
    for (size_t b = 0; b < size; b++)
        TAP_CHECK(used[b] || p[b] == SENT_BYTE, "%s: record %d from %d: gap byte %zu written (%#x)",
                  what, k, o, b, p[b]);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    MPI_Datatype rec_t, rev_t, tmp;
    {
        int bl[] = { 1, 1, 1, 3 };
        MPI_Aint d[] = { offsetof(struct rec, c), offsetof(struct rec, i), offsetof(struct rec, d),
                         offsetof(struct rec, s) };
        MPI_Datatype ty[] = { MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_SHORT };
        MPI_Type_create_struct(4, bl, d, ty, &tmp);
        MPI_Type_create_resized(tmp, 0, sizeof(struct rec), &rec_t);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&rec_t);
        MPI_Aint rd[] = { 20, 16, 8, 0 };
        MPI_Type_create_struct(4, bl, rd, ty, &tmp);
        MPI_Type_create_resized(tmp, 0, REV_SIZE, &rev_t);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&rev_t);
    }
    /* window: per origin, NREC records of each layout */
    size_t per_origin = NREC * sizeof(struct rec) + NREC * REV_SIZE;
    size_t wsize = (size_t) np * per_origin;
    unsigned char *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) wsize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    memset(base, SENT_BYTE, wsize);
    self_end(win);
    struct rec *src = malloc((size_t) np * NREC * sizeof(struct rec));
    for (int t = 0; t < np; t++)
        for (int k = 0; k < NREC; k++)
            fill_rec(&src[t * NREC + k], me, t, k);
    MPI_Barrier(MPI_COMM_WORLD);

    int rc = MPI_SUCCESS;
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < np; i++) {
        int t = (me + i) % np;
        MPI_Aint at = (MPI_Aint) ((size_t) me * per_origin);
        rc |= MPI_Put(&src[t * NREC], NREC, rec_t, t, at, NREC, rec_t, win);
        rc |= MPI_Put(&src[t * NREC], NREC, rec_t, t, at + NREC * (MPI_Aint) sizeof(struct rec),
                      NREC, rev_t, win);
    }
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "a struct put failed");
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++)
        for (int k = 0; k < NREC; k++)
            check_rec(base + (size_t) o * per_origin + k * sizeof(struct rec), o, me, k, 0,
                      "same struct");
    tap_ok("put of a mixed struct with gaps: fields in place, padding untouched");
    for (int o = 0; o < np; o++)
        for (int k = 0; k < NREC; k++)
            check_rec(base + (size_t) o * per_origin + NREC * sizeof(struct rec) + k * REV_SIZE, o,
                      me, k, 1, "reversed layout");
    self_end(win);
    tap_ok("put into a struct of the same signature, fields in reverse order");

    size_t gsize = (size_t) np * 2 * NREC * sizeof(struct rec);
    unsigned char *got = malloc(gsize);
    memset(got, SENT_BYTE, gsize);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int t = 0; t < np; t++) {
        MPI_Aint at = (MPI_Aint) ((size_t) me * per_origin);
        unsigned char *g = got + (size_t) t * 2 * NREC * sizeof(struct rec);
        rc |= MPI_Get(g, NREC, rec_t, t, at, NREC, rec_t, win);
        rc |= MPI_Get(g + NREC * sizeof(struct rec), NREC, rec_t, t,
                      at + NREC * (MPI_Aint) sizeof(struct rec), NREC, rev_t, win);
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    TAP_CHECK(rc == MPI_SUCCESS, "a struct get failed");
    for (int t = 0; t < np; t++)
        for (int k = 0; k < 2 * NREC; k++)
            check_rec(got + ((size_t) t * 2 * NREC + k) * sizeof(struct rec), me, t, k % NREC, 0,
                      k < NREC ? "get, same struct" : "get from the reversed layout");
    tap_ok("get of mixed structs (both layouts) into records whose padding stays untouched");

    MPI_Win_free(&win);
    MPI_Type_free(&rec_t);
    MPI_Type_free(&rev_t);
    free(src);
    free(got);
    return tap_done();
}
