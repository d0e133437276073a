/*
 * Time and waiting: the clock, the polite pause every wait loop takes between two
 * looks (tests run 8 ranks on 2 cores), CPU work that makes no MPI call, and the
 * completion of a set of requests.
 *
 * Time comes from clock_gettime(CLOCK_MONOTONIC), never MPI_Wtime: a target that
 * "computes without MPI" must not enter the library, and every rank of a single-host
 * run reads the same clock, so times taken on different ranks can be compared.
 */
#ifndef RMAIB_TEST_WAIT_H
#define RMAIB_TEST_WAIT_H

#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Seconds on the monotonic clock. */
static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* What every wait loop does between two looks: give the core away. */
static inline void poll_pause(void)
{
    sched_yield();
    usleep(50);
}

/* Burn the CPU without any MPI call until `secs` have passed; return the stop time. */
static inline double compute_without_mpi(double secs)
{
    double end = now_s() + secs;
    volatile uint64_t x = 0;
    double t;
    while ((t = now_s()) < end)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t) i;
    return t;
}

/* Minimum and maximum over ranks of a time (or any double). */
static inline void minmax_over_ranks(double v, double *mn, double *mx)
{
    MPI_Allreduce(&v, mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* MPI_Waitall with a real status array: gcc 12 warns (stringop-overflow) on
 * MPI_STATUSES_IGNORE against MPICH's prototype. */
static inline int waitall(int n, MPI_Request *req)
{
    MPI_Status *st = malloc((size_t) (n > 0 ? n : 1) * sizeof(MPI_Status));
    int rc = MPI_Waitall(n, req, st);
    free(st);
    return rc;
}

#endif
