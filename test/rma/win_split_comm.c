/*
 * Windows on a split communicator: even and odd world ranks, each half ordered
 * backwards (key = -rank), so window rank i is not world rank i.  A window on
 * MPI_COMM_WORLD lives at the same time.
 *  - every rank puts into every rank of its half, addressing it by its rank in the
 *    split communicator; values carry world ranks, so the target sees data from
 *    exactly the world ranks of its half, each in its own slot, and nothing else;
 *  - gets read the same back; the window's group translates to the expected world
 *    ranks (MPI_Group_translate_ranks);
 *  - the world window is untouched by all of it, and works alongside;
 *  - a second window on the split communicator, and the communicator freed right
 *    after (MPI lets windows outlive it): both windows keep working, and a fence
 *    ring on the second one moves the right data.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define SLOT 8

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int wme = tap_rank, wnp = tap_size;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, wme % 2, -wme, &half);
    int me, np;
    MPI_Comm_rank(half, &me);
    MPI_Comm_size(half, &np);

    /* world rank of every rank of the half, as MPI lays it out: descending */
    int *world_of = malloc(np * sizeof(int)), k = 0;
    for (int w = wnp - 1; w >= 0; w--)
        if (w % 2 == wme % 2)
            world_of[k++] = w;
    TAP_CHECK(k == np && world_of[me] == wme, "split layout unexpected");

    MPI_Win win, wwin;
    int *base, *wbase;
    size_t n = (size_t) np * SLOT;
    MPI_Win_allocate((MPI_Aint) (n * sizeof(int)), sizeof(int), MPI_INFO_NULL, half, &base, &win);
    MPI_Win_allocate((MPI_Aint) ((size_t) wnp * SLOT * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &wbase, &wwin);

    MPI_Group g, wg;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int *ranks = malloc(np * sizeof(int)), *wr = malloc(np * sizeof(int));
    for (int i = 0; i < np; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(g, np, ranks, wg, wr);
    for (int i = 0; i < np; i++)
        TAP_CHECK(wr[i] == world_of[i], "window rank %d is world rank %d, want %d", i, wr[i],
                  world_of[i]);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    tap_ok("window group on the split communicator translates to the expected world ranks");

    MPI_Win win2;
    int *base2;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, half, &base2, &win2);
    MPI_Win_get_group(win2, &g);
    MPI_Comm_group(half, &wg);
    int cmp = MPI_UNEQUAL;
    MPI_Group_compare(g, wg, &cmp);
    TAP_CHECK(cmp == MPI_IDENT, "second window's group compares %d to the communicator's", cmp);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Comm_free(&half);
    TAP_CHECK(half == MPI_COMM_NULL, "MPI_Comm_free left the handle set");
    tap_ok("a second window on the split communicator has its group; the communicator is freed");

    self_begin(win, MPI_LOCK_EXCLUSIVE);
    fill_int(base, n, SENT_INT);
    self_end(win);
    self_begin(wwin, MPI_LOCK_EXCLUSIVE);
    fill_int(wbase, (size_t) wnp * SLOT, SENT_INT);
    self_end(wwin);
    MPI_Barrier(MPI_COMM_WORLD);

    int *src = malloc(n * sizeof(int));
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        for (int j = 0; j < SLOT; j++)
            src[t * SLOT + j] = pat(wme, world_of[t], 0, j);
        int rc = MPI_Put(src + t * SLOT, SLOT, MPI_INT, t, me * SLOT, SLOT, MPI_INT, win);
        TAP_CHECK(rc == MPI_SUCCESS, "put to half rank %d returned %d", t, rc);
    }
    MPI_Win_unlock_all(win);
    /* the world window: a put to the world rank one below, slot = my world rank */
    int wt = (wme + wnp - 1) % wnp, wsrc[SLOT];
    for (int j = 0; j < SLOT; j++)
        wsrc[j] = pat(wme, wt, 1, j);
    MPI_Win_lock(MPI_LOCK_SHARED, wt, 0, wwin);
    MPI_Put(wsrc, SLOT, MPI_INT, wt, wme * SLOT, SLOT, MPI_INT, wwin);
    MPI_Win_unlock(wt, wwin);
    MPI_Barrier(MPI_COMM_WORLD);

    self_begin(win, MPI_LOCK_SHARED);
    for (int o = 0; o < np; o++)
        for (int j = 0; j < SLOT; j++)
            TAP_CHECK(base[o * SLOT + j] == pat(world_of[o], wme, 0, j),
                      "slot of half rank %d (world %d), int %d is %#x, want %#x", o, world_of[o], j,
                      (unsigned) base[o * SLOT + j], (unsigned) pat(world_of[o], wme, 0, j));
    self_end(win);
    tap_ok("puts by split-communicator rank land at the right world rank and slot");

    int *got = malloc(n * sizeof(int));
    fill_int(got, n, 0);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        MPI_Get(got + t * SLOT, SLOT, MPI_INT, t, me * SLOT, SLOT, MPI_INT, win);
    MPI_Win_unlock_all(win);
    for (int t = 0; t < np; t++)
        for (int j = 0; j < SLOT; j++)
            TAP_CHECK(got[t * SLOT + j] == pat(wme, world_of[t], 0, j),
                      "get from half rank %d int %d is %#x", t, j, (unsigned) got[t * SLOT + j]);
    tap_ok("gets by split-communicator rank read the right world rank");

    int from = (wme + 1) % wnp;
    self_begin(wwin, MPI_LOCK_SHARED);
    for (int s = 0; s < wnp; s++)
        for (int j = 0; j < SLOT; j++) {
            int want = s == from ? pat(from, wme, 1, j) : SENT_INT;
            TAP_CHECK(wbase[s * SLOT + j] == want, "world window slot %d int %d is %#x, want %#x",
                      s, j, (unsigned) wbase[s * SLOT + j], (unsigned) want);
        }
    self_end(wwin);
    tap_ok("the world window alongside holds only its own put");

    /* win2, its communicator long gone: each rank puts its world rank into the next
     * half rank, in one fence epoch. */
    *base2 = -1;
    MPI_Win_fence(0, win2);
    int mine = wme, prev = (me + np - 1) % np;
    MPI_Put(&mine, 1, MPI_INT, (me + 1) % np, 0, 1, MPI_INT, win2);
    MPI_Win_fence(0, win2);
    TAP_CHECK(*base2 == world_of[prev], "fence put on the second window left %d, want %d",
              *base2, world_of[prev]);
    tap_ok("the second window works after its communicator was freed");

    MPI_Win_free(&win);
    MPI_Win_free(&win2);
    MPI_Win_free(&wwin);
    free(world_of);
    free(ranks);
    free(wr);
    free(src);
    free(got);
    return tap_done();
}
