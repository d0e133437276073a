/*
 * The collective half of rmaib's benchmark suite, OSU-style (OMB 6.1), plain MPI,
 * so the same binary measures stock MPICH, Open MPI and (preloaded) rmaib.  Each
 * osu_*all*.c file only says which call it times.
 *
 * osu_coll_main: the latency of one blocking collective over a size sweep.
 *   -m MIN:MAX  message sizes in bytes (default 4:4194304; per rank's block for
 *               allgather and alltoall, the vector for allreduce)
 *   -i N, -x N  iterations and warm-up per size (OMB's defaults: 10000/100, and
 *               1000/10 from 8 KiB on)
 *   -T SECS     cap each size at about SECS of timed iterations
 *   -f csv      CSV rows (bench,variant,window,x,metric,value,unit) instead of a table
 * Reported: the mean latency per call, averaged over the ranks (as OMB), and a
 * memcpy of the same bytes on rank 0 (metric "memcpy"), the floor a shared-memory
 * implementation approaches for large messages.
 *
 * osu_icoll_main (OMB's osu_i*): for each size, the pure latency of start +
 * MPI_Wait, then the same with computation inserted between start and wait lasting
 * about that latency, and the overlap OMB reports:
 *   overlap % = max(0, 100 - 100 (overall - compute) / pure).
 *   the options above (default -m 4:1048576), and
 *   -t N        MPI_Test calls spread over the computation (OMB's -t; default 0)
 * CSV metrics: "latency" (pure, us), "overall" (us), "compute" (us), "overlap" (%).
 */
#ifndef BENCH_OSU_COLL_H
#define BENCH_OSU_COLL_H

#include <mpi.h>
#include <stddef.h>

/* One call of the collective on size bytes (elements of MPI_FLOAT for allreduce). */
typedef void (*osu_coll_fn)(void *sbuf, void *rbuf, size_t size, MPI_Comm comm);

/* Start one call of the non-blocking collective on size bytes. */
typedef void (*osu_icoll_fn)(void *sbuf, void *rbuf, size_t size, MPI_Comm comm,
                             MPI_Request *req);

/* Buffer bytes the call needs for size bytes on p ranks: size itself (one block,
 * a vector) or p blocks. */
typedef size_t (*osu_coll_bytes_fn)(size_t size, int p);
size_t osu_bytes_one(size_t size, int p);
size_t osu_bytes_all(size_t size, int p);

int osu_coll_main(int argc, char **argv, const char *name, const char *title, osu_coll_fn fn,
                  osu_coll_bytes_fn sbytes, osu_coll_bytes_fn rbytes);
int osu_icoll_main(int argc, char **argv, const char *name, const char *title, osu_icoll_fn fn,
                   osu_coll_bytes_fn sbytes, osu_coll_bytes_fn rbytes);

#endif
