/*
 * MPI_Put, MPI_Get, MPI_Rput, MPI_Rget of the drop-in library.
 *
 */
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "request.h"
#include "rma.h"

int MPI_Put(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
            int tcount, MPI_Datatype ttype, MPI_Win win)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_put(bw->core, obuf, (size_t) ocount, ol, target, tdisp, (size_t) tcount, tl, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Get(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
            int tcount, MPI_Datatype ttype, MPI_Win win)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_get(bw->core, obuf, (size_t) ocount, ol, target, tdisp, (size_t) tcount, tl, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Rput(const void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
             int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_put(bw->core, obuf, (size_t) ocount, ol, target, tdisp, (size_t) tcount, tl,
                         RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}

int MPI_Rget(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
             int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_get(bw->core, obuf, (size_t) ocount, ol, target, tdisp, (size_t) tcount, tl,
                         RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}
