/*
 * OSU-style (OMB 6.1 osu_i*) non-blocking collective benchmarks: for each size,
 * the pure latency of start + MPI_Wait, then the same with computation inserted
 * between start and wait lasting about that latency, and the overlap OMB reports:
 *   overlap % = max(0, 100 - 100 (overall - compute) / pure).
 * Plain MPI: the same binary measures stock MPICH, Open MPI and (preloaded) rmaib.
 *
 *   -m MIN:MAX, -i N, -x N, -T SECS, -f csv   as bench/osu_coll.h
 *   -t N        MPI_Test calls spread over the computation (OMB's -t; default 0)
 *
 * CSV metrics: "latency" (pure, us), "overall" (us), "compute" (us), "overlap" (%).
 */
#ifndef BENCH_OSU_ICOLL_H
#define BENCH_OSU_ICOLL_H

#include <mpi.h>
#include <stddef.h>

/* Start one call of the collective on size bytes. */
typedef void (*osu_icoll_fn)(void *sbuf, void *rbuf, size_t size, MPI_Comm comm,
                             MPI_Request *req);
typedef size_t (*osu_icoll_bytes_fn)(size_t size, int p);

int osu_icoll_main(int argc, char **argv, const char *name, const char *title, osu_icoll_fn fn,
                   osu_icoll_bytes_fn sbytes, osu_icoll_bytes_fn rbytes);

#endif
