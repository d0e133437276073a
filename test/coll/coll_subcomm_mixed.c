/*
 * Collectives on sub-communicators and back-to-back: split halves and a reversed
 * order reduce and gather their own members only, COMM_WORLD's window keeps
 * working beside theirs; then 10,000 calls mixing the three collectives, sizes
 * (and so algorithms) in a fixed pseudo-random sequence, every result checked,
 * and a communicator freed and made again many times.
 */
#include <stdlib.h>
#include "coll_check.h"

static void reduce_check(MPI_Comm comm, size_t n, const char *what)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = malloc(n * sizeof *s + 4), *r = malloc(n * sizeof *r + 4);
    for (size_t i = 0; i < n; i++)
        s[i] = (int) cval(MPI_SUM, me, i);
    MPI_Allreduce(s, r, (int) n, MPI_INT, MPI_SUM, comm);
    ccheck(r, n, &ctypes[0], MPI_SUM, p, what);
    free(s);
    free(r);
}

static void subcomms(void)
{
    MPI_Comm half, rev;
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank % 2, tap_rank, &half);
    MPI_Comm_split(MPI_COMM_WORLD, 0, tap_size - tap_rank, &rev);
    for (int k = 0; k < 3; k++) {
        reduce_check(half, 1000, "half");
        reduce_check(MPI_COMM_WORLD, 17, "world");
        reduce_check(rev, 70000, "reversed");
    }
    int me, p;
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &p);
    int *g = malloc(sizeof(int) * (size_t) p);
    MPI_Allgather(&tap_rank, 1, MPI_INT, g, 1, MPI_INT, rev);
    for (int q = 0; q < p; q++)
        TAP_CHECK(g[q] == tap_size - 1 - q, "reversed allgather: block %d is %d", q, g[q]);
    free(g);
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
    for (int k = 0; k < 20; k++) {      /* handles are reused: no stale window */
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        reduce_check(d, 5, "dup");
        MPI_Comm_free(&d);
    }
}

static void mixed(int calls)
{
    int p = tap_size, me = tap_rank;
    static const int counts[] = { 1, 3, 64, 700, 9000 };
    int maxn = 9000;
    int *s = malloc(sizeof(int) * (size_t) maxn * (size_t) p);
    int *r = malloc(sizeof(int) * (size_t) maxn * (size_t) p);
    unsigned x = 12345;
    for (int c = 0; c < calls; c++) {
        x = x * 1103515245u + 12345u;
        int n = counts[(x >> 16) % 5], kind = (int) ((x >> 8) % 3);
        if (n > 700 && c % 50)
            n = counts[c % 3];          /* keep most calls small */
        for (int i = 0; i < n; i++)
            s[i] = c + me * 1000 + i;
        if (kind == 0) {
            MPI_Allreduce(s, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            TAP_CHECK(r[0] == c + (p - 1) * 1000 && r[n - 1] == c + (p - 1) * 1000 + n - 1,
                      "call %d: allreduce max of %d", c, n);
        } else if (kind == 1) {
            MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                TAP_CHECK(r[q * n] == c + q * 1000 && r[q * n + n - 1] == c + q * 1000 + n - 1,
                          "call %d: allgather of %d, block %d", c, n, q);
        } else {
            for (int q = 0; q < p; q++)
                s[q * n] = c * 8 + me * 100 + q;
            MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            for (int q = 0; q < p; q++)
                TAP_CHECK(r[q * n] == c * 8 + q * 100 + me, "call %d: alltoall from %d", c, q);
        }
    }
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    subcomms();
    tap_ok("split, reversed and duplicated communicators, each with its own window");
    int calls = tap_env_int("COLL_CALLS", 10000);
    mixed(calls);
    tap_ok("%d back-to-back calls mixing allreduce, allgather, alltoall and sizes", calls);
    return tap_done();
}
