/*
 * Collective entry points of the drop-in library: the per-communicator state
 * (coll_comm.c) that MPI_Allreduce, MPI_Allgather and MPI_Alltoall (coll.c) and
 * their non-blocking forms (icoll.c) use.
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
    const char *said[4][4]; /* RMAIB_VERBOSE: the paths already named, per call */
} rmaib_mpi_coll_t;

/* An argument check's answer when the host should serve the call. */
#define RMAIB_MPI_TO_HOST (-1)

/* An allreduce as rmaib takes it: the communicator's state, why the host serves
 * it (NULL: rmaib does), and the basic kind, op and elements it reduces. */
typedef struct rmaib_mpi_reduce_plan {
    rmaib_mpi_coll_t *st;
    const char *why;
    rmaib_basic_t b;
    rmaib_op_t op;
    size_t n;
} rmaib_mpi_reduce_plan_t;

/* The checks of an allreduce's arguments on comm (not MPI_COMM_NULL): MPI_SUCCESS,
 * RMAIB_MPI_TO_HOST (p->why says why) or an error class. */
int rmaib_mpi_reduce_plan(const void *sbuf, const void *rbuf, MPI_Count count,
                          MPI_Datatype dt, MPI_Op mop, MPI_Comm comm,
                          rmaib_mpi_reduce_plan_t *p);
/* The checks of one rank's block of MPI_Allgather and MPI_Alltoall: MPI_SUCCESS
 * (*bytes set), RMAIB_MPI_TO_HOST, or an error class. */
int rmaib_mpi_block_args(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                         const void *rbuf, MPI_Count rcount, MPI_Datatype rtype, size_t *bytes);
/* The bodies of MPI_Allreduce, MPI_Allgather, MPI_Alltoall (coll.c) and their
 * non-blocking forms (icoll.c), int and _c forms (generated from api.txt). */
int rmaib_mpi_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm);
int rmaib_mpi_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                        MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);
int rmaib_mpi_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                       MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);
int rmaib_mpi_iallreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *req);
int rmaib_mpi_iallgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                         MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req);
int rmaib_mpi_ialltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                        MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req);

/* comm's state; *why is set when the host serves every call on comm. */
rmaib_mpi_coll_t *rmaib_mpi_coll_served(MPI_Comm comm, const char **why);

/* comm's state, made on first use (collectively: call it from a collective), or
 * NULL if even that failed.  comm must not be MPI_COMM_NULL. */
rmaib_mpi_coll_t *rmaib_mpi_coll_find(MPI_Comm comm);
/* With RMAIB_VERBOSE=1: which path served call (alg, or the host because why),
 * once per communicator, call and path (a line per call would swamp a loop). */
void rmaib_mpi_coll_say(const char *call, rmaib_mpi_coll_t *st, const char *alg,
                        const char *why);

#endif
