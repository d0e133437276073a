/*
 * Collective entry points of the drop-in library: the per-communicator state
 * (coll_comm.c) that MPI_Allreduce, MPI_Allgather and MPI_Alltoall (coll.c) use.
 */
#ifndef RMAIB_BINDING_COLL_H_INCLUDED
#define RMAIB_BINDING_COLL_H_INCLUDED

#include <mpi.h>
#include "rmaib_coll.h"

typedef struct rmaib_mpi_coll {
    rmaib_coll_t *core;     /* NULL: the host serves (see why_host), or one rank */
    MPI_Comm dup;           /* the window's private communicator */
    int rank, nranks;
    const char *why_host;   /* why rmaib does not serve this communicator */
    const char *said[3][4]; /* RMAIB_VERBOSE: the paths already named, per call */
} rmaib_mpi_coll_t;

/* comm's state, made on first use (collectively: call it from a collective), or
 * NULL if even that failed.  comm must not be MPI_COMM_NULL. */
rmaib_mpi_coll_t *rmaib_mpi_coll_find(MPI_Comm comm);
/* With RMAIB_VERBOSE=1: which path served call (alg, or the host because why),
 * once per communicator, call and path (a line per call would swamp a loop). */
void rmaib_mpi_coll_say(const char *call, rmaib_mpi_coll_t *st, const char *alg,
                        const char *why);

#endif
