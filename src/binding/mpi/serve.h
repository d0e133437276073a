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

#endif
