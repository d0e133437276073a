/*
 * notify_latency: the notified read against what it replaces, rank 0 reading from
 * rank 1 (which only waits in a barrier), inside one MPI_Win_lock_all epoch.  Per
 * size, microseconds per read:
 *   notify   MPIX_Get_notify_local, then MPIX_Win_wait_notify_value on our counter:
 *            post to notification seen
 *   get      MPI_Get + MPI_Win_flush
 *   rwn      seed 003 §6.3's read-wait-notify emulation: MPI_Get, MPI_Win_flush_local,
 *            then a notified 1-byte put to ourselves and the wait for its counter
 *   notify16 16 notified reads posted back to back, then the wait for all: per read
 *   get16    16 MPI_Gets, then one MPI_Win_flush: per read
 *   putn     MPIX_Put_notify to rank 1: returns once rank 1's counter has grown
 *   put      MPI_Put + MPI_Win_flush to rank 1 (what putn adds its notification to)
 * Links rmaib (mpix_rmaib.h); not a preload benchmark.
 *
 *   mpiexec -n 2 bench/notify_latency [-m MAX] [-i ITERS]
 * Sizes from 8 B up by 8 times to MAX (1 MiB); ITERS per size up to 64 KiB, a
 * tenth above, a quarter of that for the bursts; each figure is the median of
 * those single timings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include "mpix_rmaib.h"

enum { IDX_READ, IDX_RWN, IDX_MANY, IDX_PUT, BURST = 16, METHODS = 7 };

typedef struct bench {
    MPI_Win win;
    char *buf;
    size_t wsize;
    MPI_Count seen[4];      /* what each counter has reached */
} bench_t;

static void wait_counter(bench_t *b, int idx, MPI_Count add)
{
    MPI_Count v;
    b->seen[idx] += add;
    MPIX_Win_wait_notify_value(b->win, idx, b->seen[idx], &v);
}

/* One read of n bytes by the given method; burst methods do BURST of them. */
static void one(bench_t *b, int method, size_t n)
{
    int c = (int) n;
    switch (method) {
    case 0:
        MPIX_Get_notify_local(b->buf, c, MPI_BYTE, 1, 0, c, MPI_BYTE, IDX_READ, b->win);
        wait_counter(b, IDX_READ, 1);
        break;
    case 1:
        MPI_Get(b->buf, c, MPI_BYTE, 1, 0, c, MPI_BYTE, b->win);
        MPI_Win_flush(1, b->win);
        break;
    case 2:
        MPI_Get(b->buf, c, MPI_BYTE, 1, 0, c, MPI_BYTE, b->win);
        MPI_Win_flush_local(1, b->win);
        MPIX_Put_notify(b->buf, 1, MPI_BYTE, 0, (MPI_Aint) b->wsize, 1, MPI_BYTE, IDX_RWN, b->win);
        wait_counter(b, IDX_RWN, 1);
        break;
    case 3:
        for (int k = 0; k < BURST; k++)
            MPIX_Get_notify_local(b->buf + (size_t) k * n, c, MPI_BYTE, 1, 0, c, MPI_BYTE,
                                  IDX_MANY, b->win);
        wait_counter(b, IDX_MANY, BURST);
        break;
    case 4:
        for (int k = 0; k < BURST; k++)
            MPI_Get(b->buf + (size_t) k * n, c, MPI_BYTE, 1, 0, c, MPI_BYTE, b->win);
        MPI_Win_flush(1, b->win);
        break;
    case 5:
        MPIX_Put_notify(b->buf, c, MPI_BYTE, 1, 0, c, MPI_BYTE, IDX_PUT, b->win);
        break;
    default:
        MPI_Put(b->buf, c, MPI_BYTE, 1, 0, c, MPI_BYTE, b->win);
        MPI_Win_flush(1, b->win);
        break;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* The median of iters single timings: on cores shared with other jobs the mean is
 * the scheduler's, the median still the operation's. */
static double measure(bench_t *b, int method, size_t n, int iters)
{
    double *t = malloc(sizeof *t * (size_t) iters), med;
    for (int i = 0; i < iters / 10 + 1; i++)
        one(b, method, n);
    for (int i = 0; i < iters; i++) {
        double t0 = MPI_Wtime();
        one(b, method, n);
        t[i] = MPI_Wtime() - t0;
    }
    qsort(t, (size_t) iters, sizeof *t, cmp_double);
    med = t[iters / 2];
    free(t);
    return med * 1e6 / (method == 3 || method == 4 ? BURST : 1);
}

int main(int argc, char **argv)
{
    size_t max = 1u << 20;
    int iters = 1000, me, np, c;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    while ((c = getopt(argc, argv, "m:i:")) != -1)
        if (c == 'm')
            max = strtoul(optarg, NULL, 0);
        else if (c == 'i')
            iters = atoi(optarg);
    if (np != 2 || max < 8 || iters < 1) {
        if (me == 0)
            fprintf(stderr, "usage: mpiexec -n 2 notify_latency [-m MAX] [-i ITERS]\n");
        MPI_Finalize();
        return 2;
    }
    bench_t b = { .wsize = max };
    char *base;
    MPI_Win_allocate((MPI_Aint) max + 1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &b.win);
    memset(base, 1, max + 1);
    MPIX_Win_set_num_notify(b.win, MPI_INFO_NULL, 4);
    b.buf = malloc(max * BURST);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        printf("# notified read vs MPI_Get + MPI_Win_flush vs read-wait-notify, us per read\n");
        printf("%-9s %10s %10s %10s %10s %10s %10s %10s\n", "# bytes", "notify", "get", "rwn",
               "notify16", "get16", "putn", "put");
        MPI_Win_lock_all(0, b.win);
        for (size_t n = 8; n <= max; n = n * 8 > max && n < max ? max : n * 8) {
            int it = n > 65536 ? iters / 10 + 1 : iters;
            double t[METHODS];
            for (int m = 0; m < METHODS; m++)
                t[m] = measure(&b, m, n, m == 3 || m == 4 ? it / 4 + 1 : it);
            printf("%-9zu %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n", n, t[0], t[1], t[2],
                   t[3], t[4], t[5], t[6]);
            fflush(stdout);
        }
        MPI_Win_unlock_all(b.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(b.buf);
    MPI_Win_free(&b.win);
    MPI_Finalize();
    return 0;
}
