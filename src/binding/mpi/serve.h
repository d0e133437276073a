/*
 * Waiting in the host MPI while serving the network endpoint (serve.c).
 */
#ifndef RMAIB_MPI_SERVE_H_INCLUDED
#define RMAIB_MPI_SERVE_H_INCLUDED

#include <mpi.h>
#include "rmaib.h"

/* PMPI_Wait, polling the endpoint until req completes: for every wait in the host
 * MPI, rmaib's own included, once rmaib_poll_wanted() says peers need us to poll. */
int rmaib_mpi_serve_wait(MPI_Request *req, MPI_Status *status);

/* PMPI_Wait, or rmaib_mpi_serve_wait where this process polls. */
int rmaib_mpi_host_wait(MPI_Request *req);

/* The host's MPI_Allreduce, MPI_Allgather and MPI_Alltoall, serving the endpoint
 * while they wait, for the calls the collective entry points (coll.c) leave to it. */
int rmaib_mpi_host_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm);
int rmaib_mpi_host_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                             MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);
int rmaib_mpi_host_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                            MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);

#endif
