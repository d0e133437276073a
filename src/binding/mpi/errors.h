/*
 * Errors of the drop-in library: rmaib_err_t to MPI error codes (of the right class,
 * with rmaib's message), raised through the window's or communicator's handler.
 */
#ifndef RMAIB_BINDING_ERRORS_H_INCLUDED
#define RMAIB_BINDING_ERRORS_H_INCLUDED

#include <mpi.h>
#include "rmaib.h"
#include "handles.h"

/* The MPI error code for an rmaib error (MPI_SUCCESS for RMAIB_OK). */
int rmaib_mpi_code(int rerr);
/* Raise code through bw's error handler and return what MPI should return. */
int rmaib_mpi_win_error(rmaib_mpi_win_t *bw, int code);
int rmaib_mpi_comm_error(MPI_Comm comm, int code);
/* The error class MPIX_ERR_RMA_NOTIFICATION, made on first use. */
int rmaib_mpi_notify_class(void);

/* Finish an entry point: turn an rmaib status into the MPI return value. */
static inline int rmaib_mpi_win_ret(rmaib_mpi_win_t *bw, int rerr)
{
    return rerr == RMAIB_OK ? MPI_SUCCESS : rmaib_mpi_win_error(bw, rmaib_mpi_code(rerr));
}

/* The same for an entry point that kept only the handle win: what it returned is
 * rare, so the window is found again there, and the hot path keeps one value
 * less across its call into the core. */
int rmaib_mpi_win_fail(MPI_Win win, int rerr);
static inline int rmaib_mpi_win_ret_handle(MPI_Win win, int rerr)
{
    return __builtin_expect(rerr == RMAIB_OK, 1) ? MPI_SUCCESS : rmaib_mpi_win_fail(win, rerr);
}

/* Start of every window entry point: the rmaib window behind handle win, or return
 * MPI_ERR_WIN through MPI_COMM_WORLD's handler. */
#define LOOKUP(win, bw) \
    rmaib_mpi_win_t *bw = rmaib_mpi_win_find(win); \
    if (!bw) \
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_WIN)

#endif
