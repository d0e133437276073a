/*
 * The host's collectives on MPI_COMM_WORLD after only some ranks have started the
 * network: ranks of the lower half make a window among themselves and put into it
 * (over ofi in the ofi passes, so they poll from then on), the upper half makes
 * none.  MPI never matches a blocking collective with a non-blocking one, so the
 * collectives rmaib serves the endpoint in (barrier, bcast, reduce, gather, and
 * allreduce, allgather, alltoall when left to the host: RMAIB_COLL=off in the
 * testlist) must take the same form on every rank; a rank that chose by its own
 * polling hung here.  Every result is checked; a hang trips the watchdog.
 */
#include "tap.h"

#define N 4

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int low = tap_rank < (tap_size + 1) / 2;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, low, tap_rank, &half);
    if (low) {
        int hsize, hrank;
        int *mem;
        MPI_Win win;
        MPI_Comm_size(half, &hsize);
        MPI_Comm_rank(half, &hrank);
        MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, half, &mem, &win);
        int v = 100 + tap_rank, peer = (hrank + 1) % hsize;
        MPI_Win_lock_all(0, win);
        MPI_Put(&v, 1, MPI_INT, peer, 0, 1, MPI_INT, win);
        MPI_Win_flush_all(win);
        MPI_Win_unlock_all(win);
        MPI_Barrier(half);
        int from = (hrank + hsize - 1) % hsize;    /* world rank of that half-rank */
        TAP_CHECK(mem[0] == 100 + from, "the put into the half's window: %d, want %d",
                  mem[0], 100 + from);
        MPI_Win_free(&win);
    }

    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    int b[N] = { 0 };
    if (tap_rank == 0)
        for (int i = 0; i < N; i++)
            b[i] = 7 * i + 1;
    MPI_Bcast(b, N, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        TAP_CHECK(b[i] == 7 * i + 1, "bcast element %d: %d", i, b[i]);

    int me = tap_rank + 1, sum = 0, all = 0, want = tap_size * (tap_size + 1) / 2;
    MPI_Reduce(&me, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    TAP_CHECK(tap_rank != 0 || sum == want, "reduce: %d, want %d", sum, want);
    MPI_Allreduce(&me, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TAP_CHECK(all == want, "allreduce: %d, want %d", all, want);

    int *g = calloc((size_t) tap_size, sizeof *g), *t = calloc((size_t) tap_size, sizeof *t);
    int *s = malloc((size_t) tap_size * sizeof *s);
    for (int r = 0; r < tap_size; r++)
        s[r] = 1000 * tap_rank + r;
    MPI_Gather(&me, 1, MPI_INT, g, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; tap_rank == 0 && r < tap_size; r++)
        TAP_CHECK(g[r] == r + 1, "gather element %d: %d", r, g[r]);
    MPI_Allgather(&me, 1, MPI_INT, g, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < tap_size; r++)
        TAP_CHECK(g[r] == r + 1, "allgather element %d: %d", r, g[r]);
    MPI_Alltoall(s, 1, MPI_INT, t, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < tap_size; r++)
        TAP_CHECK(t[r] == 1000 * r + tap_rank, "alltoall element %d: %d", r, t[r]);
    tap_ok("host collectives on the world after %s ranks made a window",
           tap_size > 1 ? "half the" : "all");
    free(g);
    free(t);
    free(s);
    MPI_Comm_free(&half);
    return tap_done();
}
