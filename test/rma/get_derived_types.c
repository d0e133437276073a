/*
 * MPI_Get with derived datatypes on either side and on both: every ordered pair of
 * the layouts in dtypes.h reads 12 ints from every rank, including itself.
 *
 * The target fills each (origin, pair) slot with decoys and puts the 12 values,
 * carrying (origin, target, pair, index), where the target datatype will read them;
 * the origin checks every int of its buffer: the 12 values where the origin
 * datatype places them, in type-map order, and the sentinel everywhere else (a Get
 * must not write outside its origin datatype).  Done under lock_all + flush,
 * lock/unlock (exclusive and shared) and fence.
 */
#include "tap.h"
#include "pattern.h"
#include "dtypes.h"
#include "windows.h"

enum { SYNC_LOCK_ALL, SYNC_LOCK, SYNC_FENCE, NSYNC };
static const char *sync_name[] = { "lock_all+flush", "lock/unlock", "fence" };

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

/* Decoy for the ints of a target slot the target datatype does not cover. */
static int decoy(size_t slot, size_t i)
{
    return -(int) (1 + slot * 64 + i);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    layout_t L[LAYOUT_MAX];
    int nl = layouts_build(L), npairs = nl * nl;

    layouts_check_fit(L, nl);
    tap_ok("datatype table: %d layouts, every element inside its slot", nl);

    const size_t slot_ints = LAYOUT_SLOT / sizeof(int);
    const size_t win_ints = (size_t) np * npairs * slot_ints;
    int *obuf = malloc(win_ints * sizeof(int));   /* slot (target, pair) */
    int *wbuf = malloc(win_ints * sizeof(int));
    int *want = malloc(slot_ints * sizeof(int));

    for (int mode = 0; mode < NSYNC; mode++) {
        MPI_Win win;
        int *base = wbuf;
        if (mode == SYNC_LOCK_ALL)
            MPI_Win_allocate((MPI_Aint) (win_ints * sizeof(int)), 1, MPI_INFO_NULL,
                             MPI_COMM_WORLD, &base, &win);
        if (mode == SYNC_LOCK_ALL)
            self_begin(win, MPI_LOCK_EXCLUSIVE);
        for (size_t s = 0; s < (size_t) np * npairs; s++) {
            int o = (int) (s / npairs), p = (int) (s % npairs);
            int *slot = base + s * slot_ints;
            for (size_t i = 0; i < slot_ints; i++)
                slot[i] = decoy(s, i);
            for (int k = 0; k < LAYOUT_INTS; k++)
                slot[(LAYOUT_SHIFT + layout_pos(&L[p % nl], k)) / 4] = pat(o, me, p, k);
        }
        if (mode == SYNC_LOCK_ALL)
            self_end(win);
        else
            MPI_Win_create(base, (MPI_Aint) (win_ints * sizeof(int)), 1, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win);
        fill_int(obuf, win_ints, SENT_INT);
        MPI_Barrier(MPI_COMM_WORLD);

        if (mode == SYNC_LOCK_ALL)
            MPI_Win_lock_all(0, win);
        if (mode == SYNC_FENCE)
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        int rc_bad = 0;
        for (int i = 0; i < np; i++) {
            int t = (me + np - i) % np;
            if (mode == SYNC_LOCK)
                MPI_Win_lock((me + t) % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, win);
            for (int p = 0; p < npairs; p++) {
                const layout_t *a = &L[p / nl], *b = &L[p % nl];
                char *slot = (char *) (obuf + ((size_t) t * npairs + p) * slot_ints);
                MPI_Aint disp = (MPI_Aint) (((size_t) me * npairs + p) * LAYOUT_SLOT + LAYOUT_SHIFT);
                int rc = MPI_Get(slot + LAYOUT_SHIFT, layout_count(a), a->type, t, disp,
                                 layout_count(b), b->type, win);
                rc_bad += rc != MPI_SUCCESS;
            }
            if (mode == SYNC_LOCK)
                MPI_Win_unlock(t, win);
            if (mode == SYNC_LOCK_ALL)
                MPI_Win_flush(t, win);
        }
        if (mode == SYNC_LOCK_ALL)
            MPI_Win_unlock_all(win);
        if (mode == SYNC_FENCE)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        TAP_CHECK(rc_bad == 0, "%d MPI_Get calls failed", rc_bad);
        tap_ok("%s: %d gets from every rank returned MPI_SUCCESS", sync_name[mode], npairs);

        for (int c = 0; c < NCAT; c++) {
            for (int t = 0; t < np; t++)
                for (int p = 0; p < npairs; p++) {
                    if (category(p / nl, p % nl) != c)
                        continue;
                    const layout_t *a = &L[p / nl], *b = &L[p % nl];
                    const int *got = obuf + ((size_t) t * npairs + p) * slot_ints;
                    fill_int(want, slot_ints, SENT_INT);
                    for (int k = 0; k < LAYOUT_INTS; k++)
                        want[(LAYOUT_SHIFT + layout_pos(a, k)) / 4] = pat(me, t, p, k);
                    for (size_t i = 0; i < slot_ints; i++)
                        TAP_CHECK(got[i] == want[i],
                                  "from rank %d, %s <- %s: int at byte %zd of the slot is %#x, want %#x",
                                  t, a->name, b->name, (ssize_t) (i * 4) - LAYOUT_SHIFT,
                                  (unsigned) got[i], (unsigned) want[i]);
                }
            tap_ok("%s: get, %s", sync_name[mode], cat_name[c]);
        }
        MPI_Win_free(&win);
    }

    layouts_free(L, nl);
    free(obuf);
    free(wbuf);
    free(want);
    return tap_done();
}
