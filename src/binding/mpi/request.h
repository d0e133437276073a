/*
 * Requests of the request-based RMA calls, as genuine host requests so that they mix
 * with ordinary ones in MPI_Waitall and friends.
 */
#ifndef RMAIB_BINDING_REQUEST_H_INCLUDED
#define RMAIB_BINDING_REQUEST_H_INCLUDED

#include <mpi.h>
#include "handles.h"

/* Finish an MPI_R* call: on success *req is a request for the (already complete)
 * operation; on failure the error goes through bw's handler. */
int rmaib_mpi_request_ret(rmaib_mpi_win_t *bw, int rerr, MPI_Request *req);

/* The generalized-request callbacks of a request with no state and an empty
 * status, which cannot be cancelled (a started operation cannot be taken back). */
int rmaib_mpi_greq_query(void *extra, MPI_Status *status);
int rmaib_mpi_greq_free(void *extra);
int rmaib_mpi_greq_cancel(void *extra, int complete);

#endif
