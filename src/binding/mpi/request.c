/*
 * Request-based RMA: the shm backend completes every operation before the call
 * returns, so the request handed out is a generalized request completed at birth.
 */
#include "errors.h"
#include "request.h"

int rmaib_mpi_greq_query(void *extra, MPI_Status *status)
{
    (void) extra;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int rmaib_mpi_greq_free(void *extra)
{
    (void) extra;
    return MPI_SUCCESS;
}

int rmaib_mpi_greq_cancel(void *extra, int complete)
{
    (void) extra;
    (void) complete;
    return MPI_SUCCESS;
}

int rmaib_mpi_request_ret(rmaib_mpi_win_t *bw, int rerr, MPI_Request *req)
{
    if (rerr != RMAIB_OK)
        return rmaib_mpi_win_ret(bw, rerr);
    if (!req)
        return rmaib_mpi_win_error(bw, MPI_ERR_REQUEST);
#ifdef RMAIB_NETMOD
    /* The netmod hands MPICH a complete request of its own: no generalized one,
     * whose Waitsome and Testany MPICH 4.0.2 gets wrong. */
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
#endif
    int rc = PMPI_Grequest_start(rmaib_mpi_greq_query, rmaib_mpi_greq_free, rmaib_mpi_greq_cancel,
                                 NULL, req);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Grequest_complete(*req);
    return rc == MPI_SUCCESS ? rc : rmaib_mpi_win_error(bw, rc);
}
