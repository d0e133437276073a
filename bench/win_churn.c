/*
 * win_churn: windows made and freed over and over on one communicator, as IMB-RMA
 * does for each message size and libraries with short-lived windows do.  After a
 * first window (the network's start and the communicator's first exchange are not
 * in the figure), each rank makes and frees ITERS windows of BYTES with each
 * flavor, a put to the right neighbour and a fence in each (every window is used,
 * and the put is checked: exit status 1 if one did not land); rank 0 prints the slowest rank's mean per window in µs:
 *     flavor BYTES create_us free_us total_us   [ranks R, cores C, oversubscribed]
 * Usage: win_churn [ITERS [BYTES]]  (default 200, 8)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double slowest(double t)
{
    double m = 0;
    MPI_Reduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return m;
}

/* One window of flavor f (0: allocate, 1: create over mem), used once; the times
 * of its creation and free added to *tc, *tf.  Returns 0 if the put did not land. */
static int one(int f, MPI_Aint bytes, unsigned char *mem, int round, double *tc, double *tf)
{
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    unsigned char *base = mem, v = (unsigned char) (me + round), got;
    MPI_Win win;
    double t0 = MPI_Wtime();
    if (f == 0)
        MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    else
        MPI_Win_create(mem, bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    *tc += MPI_Wtime() - t0;
    MPI_Win_fence(0, win);
    MPI_Put(&v, 1, MPI_BYTE, (me + 1) % np, 0, 1, MPI_BYTE, win);
    MPI_Win_fence(0, win);
    got = base[0];
    t0 = MPI_Wtime();
    MPI_Win_free(&win);
    *tf += MPI_Wtime() - t0;
    return got == (unsigned char) ((me + np - 1) % np + round);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, iters = argc > 1 ? atoi(argv[1]) : 200;
    MPI_Aint bytes = argc > 2 ? atol(argv[2]) : 8;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    unsigned char *mem = calloc(1, (size_t) bytes + 1);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double tc = 0, tf = 0;
    int ok = one(0, bytes, mem, 0, &tc, &tf);
    if (me == 0)
        printf("# win_churn: %d windows a flavor, ranks %d, cores %ld%s\n", iters, np, cores,
               np > cores ? ", oversubscribed" : "");
    for (int f = 0; f < 2; f++) {
        tc = tf = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < iters; i++)
            ok &= one(f, bytes, mem, i + 1, &tc, &tf);
        double c = slowest(tc) / iters * 1e6, fr = slowest(tf) / iters * 1e6;
        if (me == 0)
            printf("%-8s %6ld %10.1f %10.1f %10.1f\n", f ? "create" : "allocate", (long) bytes,
                   c, fr, c + fr);
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (me == 0 && !all)
        printf("# win_churn: a put did not land where it should: the MPI under test is wrong\n");
    free(mem);
    MPI_Finalize();
    return all ? 0 : 1;
}
