/*
 * The body of put_derived_types and get_derived_types: every ordered pair (a, b) of
 * the layouts in dtypes.h moves 12 ints between every two ranks, each rank itself
 * included, with origin datatype a and target datatype b.  Pairs of different types
 * share the type signature (12 ints), so every combination is a legal transfer.
 *
 * Each (origin, pair) has its own slot in the target window and each (target, pair)
 * its own slot in the origin buffer.  The side that received the data checks every
 * int of every slot: the 12 values, carrying (origin, target, pair, index), where its
 * datatype places them in type-map order, and the sentinel everywhere else.  A put
 * starts from a window of sentinels; a get from a window of decoys outside the
 * target datatype, so a get reading the wrong ints is seen.  Done under
 * lock_all + flush (allocated window), lock/unlock (exclusive and shared, created
 * window) and fence (created window).
 */
#ifndef RMAIB_TEST_DERIVED_PAIRS_H
#define RMAIB_TEST_DERIVED_PAIRS_H

#include <sys/types.h>
#include "tap.h"
#include "pattern.h"
#include "dtypes.h"
#include "windows.h"

enum { DIR_PUT, DIR_GET };

/* Which of the five kinds of combination a pair (origin layout a, target layout b) is. */
enum { CAT_CONTIG, CAT_ORIGIN, CAT_TARGET, CAT_SAME, CAT_DIFF, NCAT };
static const char *cat_name[] = {
    "contiguous on both sides", "derived origin, contiguous target",
    "contiguous origin, derived target", "the same derived type on both sides",
    "different derived types with the same signature"
};

static int category(int a, int b)
{
    if (a == 0 && b == 0)
        return CAT_CONTIG;
    if (b == 0)
        return CAT_ORIGIN;
    if (a == 0)
        return CAT_TARGET;
    return a == b ? CAT_SAME : CAT_DIFF;
}

typedef struct {
    int dir, me, np;
    layout_t L[LAYOUT_MAX];
    int nl, npairs;
    size_t slot_ints, win_ints;
    int *obuf;                  /* origin buffer: slot (target, pair) */
    int *wbuf;                  /* memory of the created windows: slot (origin, pair) */
    int *want;                  /* one slot's expected contents */
} dpairs_t;

static int *dp_slot(const dpairs_t *d, int *buf, int rank, int p)
{
    return buf + ((size_t) rank * d->npairs + p) * d->slot_ints;
}

/* Where layout l puts the k-th int of a transfer, as an index into its slot. */
static size_t dp_index(const layout_t *l, int k)
{
    return (size_t) (LAYOUT_SHIFT + layout_pos(l, k)) / sizeof(int);
}

/* Decoy for the ints of a target slot the target datatype does not cover. */
static int decoy(size_t slot, size_t i)
{
    return -(int) (1 + slot * 64 + i);
}

/* A put's target starts as sentinels; a get's holds its values where the target
 * datatype reads them and decoys around them. */
static void dp_fill_window(const dpairs_t *d, int *base)
{
    if (d->dir == DIR_PUT) {
        fill_int(base, d->win_ints, SENT_INT);
        return;
    }
    for (size_t s = 0; s < (size_t) d->np * d->npairs; s++) {
        int o = (int) (s / d->npairs), p = (int) (s % d->npairs);
        int *slot = base + s * d->slot_ints;
        for (size_t i = 0; i < d->slot_ints; i++)
            slot[i] = decoy(s, i);
        for (int k = 0; k < LAYOUT_INTS; k++)
            slot[dp_index(&d->L[p % d->nl], k)] = pat(o, d->me, p, k);
    }
}

/* A put's origin holds its values where the origin datatype reads them; a get's
 * origin starts as sentinels. */
static void dp_fill_origin(const dpairs_t *d)
{
    fill_int(d->obuf, d->win_ints, SENT_INT);
    if (d->dir != DIR_PUT)
        return;
    for (int t = 0; t < d->np; t++)
        for (int p = 0; p < d->npairs; p++) {
            int *slot = dp_slot(d, d->obuf, t, p);
            for (int k = 0; k < LAYOUT_INTS; k++)
                slot[dp_index(&d->L[p / d->nl], k)] = pat(d->me, t, p, k);
        }
}

/* The window of a synchronisation mode: allocated for lock_all, created otherwise. */
static MPI_Win dp_open(const dpairs_t *d, int mode, int **basep)
{
    MPI_Win win;
    int *base = d->wbuf;
    MPI_Aint bytes = (MPI_Aint) (d->win_ints * sizeof(int));
    if (mode == SYNC_LOCK_ALL) {
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        self_begin(win, MPI_LOCK_EXCLUSIVE);
        dp_fill_window(d, base);
        self_end(win);
    } else {
        dp_fill_window(d, base);
        MPI_Win_create(base, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    *basep = base;
    return win;
}

/* One transfer per pair with every rank under `mode`; returns the failed calls.
 * Puts go round the ranks one way, gets the other, with the opposite lock types. */
static int dp_transfer(const dpairs_t *d, MPI_Win win, int mode)
{
    int me = d->me, np = d->np, rc_bad = 0;
    sync_open(mode, MPI_MODE_NOPRECEDE, win);
    for (int i = 0; i < np; i++) {
        int t = d->dir == DIR_PUT ? (me + i) % np : (me + np - i) % np;
        int odd = (me + t) % 2, excl = d->dir == DIR_PUT ? odd : !odd;
        sync_target_begin(mode, excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, win);
        for (int p = 0; p < d->npairs; p++) {
            const layout_t *a = &d->L[p / d->nl], *b = &d->L[p % d->nl];
            char *buf = (char *) dp_slot(d, d->obuf, t, p) + LAYOUT_SHIFT;
            MPI_Aint disp = (MPI_Aint) (((size_t) me * d->npairs + p) * LAYOUT_SLOT + LAYOUT_SHIFT);
            int rc = d->dir == DIR_PUT
                ? MPI_Put(buf, layout_count(a), a->type, t, disp, layout_count(b), b->type, win)
                : MPI_Get(buf, layout_count(a), a->type, t, disp, layout_count(b), b->type, win);
            rc_bad += rc != MPI_SUCCESS;
        }
        sync_target_end(mode, t, 1, win);
    }
    sync_close(mode, MPI_MODE_NOSUCCEED, win);
    return rc_bad;
}

/* Check every slot this rank received, one TAP point per category of pair: a put's
 * target checks its window, a get's origin its buffer. */
static void dp_check(const dpairs_t *d, int *base, int mode)
{
    int put = d->dir == DIR_PUT, me = d->me;
    for (int c = 0; c < NCAT; c++) {
        for (int peer = 0; peer < d->np; peer++)
            for (int p = 0; p < d->npairs; p++) {
                if (category(p / d->nl, p % d->nl) != c)
                    continue;
                const layout_t *a = &d->L[p / d->nl], *b = &d->L[p % d->nl];
                const int *got = dp_slot(d, put ? base : d->obuf, peer, p);
                fill_int(d->want, d->slot_ints, SENT_INT);
                for (int k = 0; k < LAYOUT_INTS; k++)
                    d->want[dp_index(put ? b : a, k)] = put ? pat(peer, me, p, k)
                                                            : pat(me, peer, p, k);
                for (size_t i = 0; i < d->slot_ints; i++)
                    TAP_CHECK(got[i] == d->want[i],
                              "from rank %d, %s %s %s: int at byte %zd of the slot is %#x, want %#x",
                              peer, a->name, put ? "->" : "<-", b->name,
                              (ssize_t) (i * 4) - LAYOUT_SHIFT, (unsigned) got[i],
                              (unsigned) d->want[i]);
            }
        tap_ok("%s: %s, %s", sync_name[mode], put ? "put" : "get", cat_name[c]);
    }
}

static int derived_pairs_run(int *argc, char ***argv, int dir)
{
    dpairs_t d = { .dir = dir };
    tap_init(argc, argv);
    d.me = tap_rank;
    d.np = tap_size;
    d.nl = layouts_build(d.L);
    d.npairs = d.nl * d.nl;

    layouts_check_fit(d.L, d.nl);
    tap_ok("datatype table: %d layouts, every element inside its slot", d.nl);

    d.slot_ints = LAYOUT_SLOT / sizeof(int);
    d.win_ints = (size_t) d.np * d.npairs * d.slot_ints;
    d.obuf = malloc(d.win_ints * sizeof(int));
    d.wbuf = malloc(d.win_ints * sizeof(int));
    d.want = malloc(d.slot_ints * sizeof(int));

    for (int mode = 0; mode < NSYNC; mode++) {
        int *base;
        MPI_Win win = dp_open(&d, mode, &base);
        dp_fill_origin(&d);
        MPI_Barrier(MPI_COMM_WORLD);

        int rc_bad = dp_transfer(&d, win, mode);
        TAP_CHECK(rc_bad == 0, "%d %s calls failed", rc_bad, dir == DIR_PUT ? "MPI_Put" : "MPI_Get");
        tap_ok("%s: %d %s every rank returned MPI_SUCCESS", sync_name[mode], d.npairs,
               dir == DIR_PUT ? "puts to" : "gets from");

        if (dir == DIR_PUT) {
            /* the target reads its own window: wait for every origin's epoch */
            MPI_Barrier(MPI_COMM_WORLD);
            if (mode != SYNC_FENCE)
                self_begin(win, MPI_LOCK_SHARED);
        }
        dp_check(&d, base, mode);
        if (dir == DIR_PUT && mode != SYNC_FENCE)
            self_end(win);
        MPI_Win_free(&win);
    }

    layouts_free(d.L, d.nl);
    free(d.obuf);
    free(d.wbuf);
    free(d.want);
    return tap_done();
}

#endif
