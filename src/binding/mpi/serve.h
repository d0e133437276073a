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

/* The bodies of MPI_Recv, MPI_Sendrecv, MPI_Bcast, MPI_Reduce, MPI_Gather and their
 * _c forms (api.txt): the host's call, waiting through rmaib_mpi_serve_wait where
 * this process serves its endpoint. */
int rmaib_mpi_serve_recv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status *status);
int rmaib_mpi_serve_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
                             int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                             int source, int rtag, MPI_Comm comm, MPI_Status *status);
int rmaib_mpi_serve_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                          MPI_Comm comm);
int rmaib_mpi_serve_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype type,
                           MPI_Op op, int root, MPI_Comm comm);
int rmaib_mpi_serve_gather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                           MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm);

/* The host's MPI_Allreduce, MPI_Allgather and MPI_Alltoall, serving the endpoint
 * while they wait, for the calls the collective entry points (coll.c) leave to it. */
int rmaib_mpi_host_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm);
int rmaib_mpi_host_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                             MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);
int rmaib_mpi_host_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                            MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);

#endif
