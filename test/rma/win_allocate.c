/*
 * MPI_Win_allocate: memory allocated by MPI, a different odd size on every rank.
 *  - the base pointer is usable and aligned for any predefined type (MPI-4.0 §9.2
 *    gives MPI_Alloc_mem's alignment to MPI_Win_allocate too), and every one of its
 *    bytes can be written locally and read remotely;
 *  - a put of a neighbour's whole window (its last byte included) writes all of it,
 *    and a get of the whole window reads it back;
 *  - allocate, use and free several times in a row: every fresh window works.
 * Sizes: multiples of 16 in round 0, of 8 (not 16) in round 1, odd in round 2.
 *
 * Stock MPICH 4.0.2 (ch4) fails rounds 1 and 2: it packs the ranks' memory back to
 * back in one shared segment, so bases are misaligned, and a put to the next rank
 * lands at an address rounded down to 16 bytes, in the previous rank's memory.
 */
#include <stddef.h>
#include "tap.h"
#include "pattern.h"
#include "windows.h"

static MPI_Aint size_of(int rank, int round)
{
    static const int extra[] = { 0, 8, 3 };
    return (MPI_Aint) (1024 * (rank + 1) + extra[round]);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;

    for (int round = 0; round < 3; round++) {
        MPI_Aint mysize = size_of(me, round), rsize = size_of(right, round);
        MPI_Aint lsize = size_of(left, round);
        unsigned char *base = NULL;
        MPI_Win win;
        int rc = MPI_Win_allocate(mysize, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate returned %d", rc);
        TAP_CHECK(base != NULL, "base pointer is NULL for %ld bytes", (long) mysize);
        TAP_CHECK((uintptr_t) base % _Alignof(max_align_t) == 0, "base %p is not %zu-byte aligned",
                  (void *) base, _Alignof(max_align_t));
        self_begin(win, MPI_LOCK_EXCLUSIVE);
        memset(base, SENT_BYTE, (size_t) mysize);
        self_end(win);
        MPI_Barrier(MPI_COMM_WORLD);
        tap_ok("round %d: allocate %ld bytes, aligned base", round, (long) mysize);

        unsigned char *src = malloc((size_t) rsize), *got = malloc((size_t) lsize);
        for (MPI_Aint i = 0; i < rsize; i++)
            src[i] = bpat(me, right, i + round * 7);
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        rc = MPI_Put(src, (int) rsize, MPI_BYTE, right, 0, (int) rsize, MPI_BYTE, win);
        MPI_Win_unlock(right, win);
        TAP_CHECK(rc == MPI_SUCCESS, "put returned %d", rc);
        MPI_Barrier(MPI_COMM_WORLD);
        self_begin(win, MPI_LOCK_SHARED);
        for (MPI_Aint i = 0; i < mysize; i++)
            TAP_CHECK(base[i] == bpat(left, me, i + round * 7), "byte %ld of %ld is %#x", (long) i,
                      (long) mysize, base[i]);
        self_end(win);
        tap_ok("round %d: put of the right neighbour's whole window, last byte included", round);

        memset(got, SENT_BYTE, (size_t) lsize);
        MPI_Win_lock(MPI_LOCK_SHARED, left, 0, win);
        rc = MPI_Get(got, (int) lsize, MPI_BYTE, left, 0, (int) lsize, MPI_BYTE, win);
        MPI_Win_unlock(left, win);
        TAP_CHECK(rc == MPI_SUCCESS, "get returned %d", rc);
        int ll = (left + np - 1) % np;
        for (MPI_Aint i = 0; i < lsize; i++)
            TAP_CHECK(got[i] == bpat(ll, left, i + round * 7), "got byte %ld = %#x", (long) i, got[i]);
        tap_ok("round %d: get of the left neighbour's whole window", round);

        rc = MPI_Win_free(&win);
        TAP_CHECK(rc == MPI_SUCCESS && win == MPI_WIN_NULL, "MPI_Win_free: %d", rc);
        tap_ok("round %d: free", round);
        free(src);
        free(got);
    }
    return tap_done();
}
