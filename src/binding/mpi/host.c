/*
 * The host interface over PMPI: what the core needs from the installed MPI.
 * hcomm is a pointer to the window's private duplicate communicator.
 */
#include <stdarg.h>
#include <stdio.h>
#include "rmaib_host.h"
#include "rmaib.h"
#include "serve.h"

static int status(int mpi_err)
{
    return mpi_err == MPI_SUCCESS ? RMAIB_OK : RMAIB_ERR_TRANSPORT;
}

/* Window creation and free wait in these while peers may still be connecting to us
 * or finishing their operations on our memory: they serve the endpoint as the
 * user's blocking calls do (serve.c). */
int rmaib_host_allgather(void *hcomm, const void *send, void *recv, size_t bytes)
{
    MPI_Comm comm = *(MPI_Comm *) hcomm;
    if (!rmaib_poll_wanted())
        return status(PMPI_Allgather(send, (int) bytes, MPI_BYTE, recv, (int) bytes, MPI_BYTE,
                                     comm));
    MPI_Request req;
    int rc = PMPI_Iallgather(send, (int) bytes, MPI_BYTE, recv, (int) bytes, MPI_BYTE, comm, &req);
    return status(rc == MPI_SUCCESS ? rmaib_mpi_serve_wait(&req, MPI_STATUS_IGNORE) : rc);
}

int rmaib_host_barrier(void *hcomm)
{
    MPI_Comm comm = *(MPI_Comm *) hcomm;
    if (!rmaib_poll_wanted())
        return status(PMPI_Barrier(comm));
    MPI_Request req;
    int rc = PMPI_Ibarrier(comm, &req);
    return status(rc == MPI_SUCCESS ? rmaib_mpi_serve_wait(&req, MPI_STATUS_IGNORE) : rc);
}

int rmaib_host_world_rank(void)
{
    int r = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* A long rmaib wait gives the host's progress engine a turn, so point-to-point
 * traffic aimed at this process keeps moving meanwhile. */
void rmaib_host_progress(void)
{
    int flag;
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

void rmaib_host_say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%d] %s\n", rmaib_host_world_rank(), line);
    fflush(stderr);
}
