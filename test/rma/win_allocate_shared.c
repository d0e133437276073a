/*
 * MPI_Win_allocate_shared and MPI_Win_shared_query, on the node's ranks
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)), a different size on every rank.
 *  - default (contiguous) layout: shared_query gives every rank's size and
 *    disp_unit, and each rank's base is the previous rank's base plus its size;
 *    my own query equals the baseptr I was given; MPI_PROC_NULL queries the lowest
 *    rank with memory.  Sizes are multiples of 16, then odd;
 *  - alloc_shared_noncontig=true: sizes and disp_units (4 or 8 by rank) as given,
 *    segments do not overlap;
 *  - in both layouts: plain stores through the shared pointer of the right
 *    neighbour, then MPI_Win_sync + barrier, are seen by the owner's loads and read
 *    back by MPI_Get; and an MPI_Put is seen by plain loads through the pointer.
 */
#include "tap.h"
#include "pattern.h"

static MPI_Aint size_of(int rank, int layout)
{
    return layout == 1 ? (MPI_Aint) (100 * (rank + 1) + 3) : (MPI_Aint) (128 * (rank + 1));
}

static const char *layout_name[] = { "contiguous", "contiguous, odd sizes", "noncontiguous" };

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int me, np;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &np);
    int right = (me + 1) % np, left = (me + np - 1) % np;

    for (int layout = 0; layout < 3; layout++) {
        MPI_Info info = MPI_INFO_NULL;
        if (layout == 2) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "alloc_shared_noncontig", "true");
        }
        int du = layout == 2 ? (me % 2 ? 8 : 4) : 1;
        MPI_Aint mysize = size_of(me, layout);
        unsigned char *mine = NULL;
        MPI_Win win;
        int rc = MPI_Win_allocate_shared(mysize, du, info, node, &mine, &win);
        TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate_shared returned %d", rc);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);

        unsigned char **base = malloc(np * sizeof *base);
        MPI_Aint *size = malloc(np * sizeof *size);
        for (int q = 0; q < np; q++) {
            int qdu = -1;
            rc = MPI_Win_shared_query(win, q, &size[q], &qdu, &base[q]);
            TAP_CHECK(rc == MPI_SUCCESS, "shared_query(%d) returned %d", q, rc);
            TAP_CHECK(size[q] == size_of(q, layout), "rank %d size %ld, want %ld", q,
                      (long) size[q], (long) size_of(q, layout));
            int want_du = layout == 2 ? (q % 2 ? 8 : 4) : 1;
            TAP_CHECK(qdu == want_du, "rank %d disp_unit %d, want %d", q, qdu, want_du);
        }
        TAP_CHECK(base[me] == mine, "my query %p differs from my baseptr %p", (void *) base[me],
                  (void *) mine);
        if (layout < 2) {
            for (int q = 1; q < np; q++)
                TAP_CHECK(base[q] == base[q - 1] + size[q - 1],
                          "rank %d base %p is not rank %d's base %p + %ld", q, (void *) base[q],
                          q - 1, (void *) base[q - 1], (long) size[q - 1]);
        } else {
            for (int q = 0; q < np; q++)
                for (int r = 0; r < np; r++)
                    TAP_CHECK(q == r || base[q] + size[q] <= base[r] || base[r] + size[r] <= base[q],
                              "segments of ranks %d and %d overlap", q, r);
        }
        {
            MPI_Aint psize;
            int pdu;
            unsigned char *pbase;
            rc = MPI_Win_shared_query(win, MPI_PROC_NULL, &psize, &pdu, &pbase);
            TAP_CHECK(rc == MPI_SUCCESS && pbase == base[0] && psize == size[0],
                      "shared_query(MPI_PROC_NULL): rc %d base %p size %ld, want rank 0's", rc,
                      (void *) pbase, (long) psize);
        }
        tap_ok("%s: shared_query sizes, disp_units and bases", layout_name[layout]);

        /* plain stores into the right neighbour's segment */
        MPI_Win_lock_all(0, win);
        for (MPI_Aint i = 0; i < size[right]; i++)
            base[right][i] = bpat(me, right, i + 11 * layout);
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        for (MPI_Aint i = 0; i < mysize; i++)
            TAP_CHECK(mine[i] == bpat(left, me, i + 11 * layout),
                      "byte %ld of my segment is %#x after the left neighbour's stores", (long) i,
                      mine[i]);
        unsigned char *got = malloc((size_t) size[right]);
        memset(got, SENT_BYTE, (size_t) size[right]);
        rc = MPI_Get(got, (int) size[right], MPI_BYTE, right, 0, (int) size[right], MPI_BYTE, win);
        MPI_Win_flush(right, win);
        TAP_CHECK(rc == MPI_SUCCESS, "MPI_Get returned %d", rc);
        for (MPI_Aint i = 0; i < size[right]; i++)
            TAP_CHECK(got[i] == bpat(me, right, i + 11 * layout),
                      "MPI_Get of the bytes I stored: byte %ld is %#x", (long) i, got[i]);
        tap_ok("%s: plain stores to a neighbour, seen by its loads and by MPI_Get", layout_name[layout]);

        /* MPI_Put to the right neighbour, read by plain loads on the owner and on the origin */
        MPI_Barrier(node);
        unsigned char *src = got;
        for (MPI_Aint i = 0; i < size[right]; i++)
            src[i] = bpat(me, right, i + 5 + 11 * layout);
        rc = MPI_Put(src, (int) size[right], MPI_BYTE, right, 0, (int) size[right], MPI_BYTE, win);
        MPI_Win_flush(right, win);
        TAP_CHECK(rc == MPI_SUCCESS, "MPI_Put returned %d", rc);
        MPI_Win_sync(win);
        MPI_Barrier(node);
        MPI_Win_sync(win);
        for (MPI_Aint i = 0; i < mysize; i++)
            TAP_CHECK(mine[i] == bpat(left, me, i + 5 + 11 * layout),
                      "byte %ld of my segment is %#x after the left neighbour's put", (long) i,
                      mine[i]);
        for (MPI_Aint i = 0; i < size[right]; i++)
            TAP_CHECK(base[right][i] == src[i], "my load of the neighbour's byte %ld is %#x",
                      (long) i, base[right][i]);
        MPI_Win_unlock_all(win);
        tap_ok("%s: MPI_Put seen by plain loads through the shared pointers", layout_name[layout]);

        MPI_Win_free(&win);
        free(got);
        free(base);
        free(size);
    }
    MPI_Comm_free(&node);
    return tap_done();
}
