/*
 * MPI_Put with derived datatypes on either side and on both: every ordered pair of
 * the layouts in dtypes.h (contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct with gaps, resized with a negative lower
 * bound and with a stretched extent, subarray, darray, dup) moves 12 ints from each
 * rank to every rank, including itself.  Pairs of different types share the type
 * signature (12 ints), so every combination is a legal transfer.
 *
 * Each (origin, pair) has its own slot in the target window.  The target checks every
 * int of every slot: the 12 written where the target datatype puts them, in type-map
 * order, carrying (origin, target, pair, index), and the sentinel everywhere else.
 * Done under lock_all + flush, lock/unlock (exclusive and shared) and fence.
 */
#include "tap.h"
#include "pattern.h"
#include "dtypes.h"
#include "windows.h"

enum { SYNC_LOCK_ALL, SYNC_LOCK, SYNC_FENCE, NSYNC };
static const char *sync_name[] = { "lock_all+flush", "lock/unlock", "fence" };

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
    int *wbuf = malloc(win_ints * sizeof(int));   /* MPI_Win_create memory */
    int *want = malloc(slot_ints * sizeof(int));

    for (int mode = 0; mode < NSYNC; mode++) {
        MPI_Win win;
        int *base;
        if (mode == SYNC_LOCK_ALL) {
            MPI_Win_allocate((MPI_Aint) (win_ints * sizeof(int)), 1, MPI_INFO_NULL,
                             MPI_COMM_WORLD, &base, &win);
            self_begin(win, MPI_LOCK_EXCLUSIVE);
            fill_int(base, win_ints, SENT_INT);
            self_end(win);
        } else {
            base = wbuf;
            fill_int(base, win_ints, SENT_INT);
            MPI_Win_create(base, (MPI_Aint) (win_ints * sizeof(int)), 1, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &win);
        }

        fill_int(obuf, win_ints, SENT_INT);
        for (int t = 0; t < np; t++)
            for (int p = 0; p < npairs; p++) {
                const layout_t *a = &L[p / nl];
                int *slot = obuf + ((size_t) t * npairs + p) * slot_ints;
                for (int k = 0; k < LAYOUT_INTS; k++)
                    slot[(LAYOUT_SHIFT + layout_pos(a, k)) / 4] = pat(me, t, p, k);
            }
        MPI_Barrier(MPI_COMM_WORLD);

        if (mode == SYNC_LOCK_ALL)
            MPI_Win_lock_all(0, win);
        if (mode == SYNC_FENCE)
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
        int rc_bad = 0;
        for (int i = 0; i < np; i++) {
            int t = (me + i) % np;
            if (mode == SYNC_LOCK)
                MPI_Win_lock((me + t) % 2 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, win);
            for (int p = 0; p < npairs; p++) {
                const layout_t *a = &L[p / nl], *b = &L[p % nl];
                char *slot = (char *) (obuf + ((size_t) t * npairs + p) * slot_ints);
                MPI_Aint disp = (MPI_Aint) (((size_t) me * npairs + p) * LAYOUT_SLOT + LAYOUT_SHIFT);
                int rc = MPI_Put(slot + LAYOUT_SHIFT, layout_count(a), a->type, t, disp,
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
        TAP_CHECK(rc_bad == 0, "%d MPI_Put calls failed", rc_bad);
        tap_ok("%s: %d puts to every rank returned MPI_SUCCESS", sync_name[mode], npairs);

        MPI_Barrier(MPI_COMM_WORLD);
        if (mode != SYNC_FENCE)
            self_begin(win, MPI_LOCK_SHARED);
        for (int c = 0; c < NCAT; c++) {
            for (int o = 0; o < np; o++)
                for (int p = 0; p < npairs; p++) {
                    if (category(p / nl, p % nl) != c)
                        continue;
                    const layout_t *a = &L[p / nl], *b = &L[p % nl];
                    const int *got = base + ((size_t) o * npairs + p) * slot_ints;
                    fill_int(want, slot_ints, SENT_INT);
                    for (int k = 0; k < LAYOUT_INTS; k++)
                        want[(LAYOUT_SHIFT + layout_pos(b, k)) / 4] = pat(o, me, p, k);
                    for (size_t i = 0; i < slot_ints; i++)
                        TAP_CHECK(got[i] == want[i],
                                  "from rank %d, %s -> %s: int at byte %zd of the slot is %#x, want %#x",
                                  o, a->name, b->name, (ssize_t) (i * 4) - LAYOUT_SHIFT,
                                  (unsigned) got[i], (unsigned) want[i]);
                }
            tap_ok("%s: put, %s", sync_name[mode], cat_name[c]);
        }
        if (mode != SYNC_FENCE)
            self_end(win);
        MPI_Win_free(&win);
    }

    layouts_free(L, nl);
    free(obuf);
    free(wbuf);
    free(want);
    return tap_done();
}
