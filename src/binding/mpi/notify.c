/*
 * Notified RMA of the drop-in library: the MPIX_ calls of mpix_rmaib.h over the
 * core's notify.c.  The notification index comes before the window, as in the MPI
 * Forum's draft; a window handle found in the window's place is looked up like any
 * other, so a swapped call fails with MPI_ERR_WIN rather than writing anywhere.
 */
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "request.h"
#include "rma.h"
#include "mpix_rmaib.h"

_Static_assert(MPIX_RMAIB_NOTIFY_DEFAULT_MAX == RMAIB_NOTIFY_DEFAULT_MAX,
               "the public default and the core's differ");

enum { N_PUT, N_GET, N_GET_LOCAL };

static int rma_notify(int kind, void *obuf, int ocount, MPI_Datatype otype, int target,
                      MPI_Aint tdisp, int tcount, MPI_Datatype ttype, int idx,
                      rmaib_mpi_win_t *bw, int flags)
{
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr != RMAIB_OK || target == MPI_PROC_NULL)
        return rerr;
    size_t oc = (size_t) ocount, tc = (size_t) tcount;
    switch (kind) {
    case N_PUT:
        return rmaib_put_notify(bw->core, obuf, oc, ol, target, tdisp, tc, tl, idx, flags);
    case N_GET:
        return rmaib_get_notify(bw->core, obuf, oc, ol, target, tdisp, tc, tl, idx, flags);
    default:
        return rmaib_get_notify_local(bw->core, obuf, oc, ol, target, tdisp, tc, tl, idx, flags);
    }
}

int MPIX_Put_notify(const void *obuf, int ocount, MPI_Datatype otype, int target,
                    MPI_Aint tdisp, int tcount, MPI_Datatype ttype, int idx, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rma_notify(N_PUT, (void *) obuf, ocount, otype, target, tdisp,
                                            tcount, ttype, idx, bw, 0));
}

int MPIX_Get_notify(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                    int tcount, MPI_Datatype ttype, int idx, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rma_notify(N_GET, obuf, ocount, otype, target, tdisp, tcount,
                                            ttype, idx, bw, 0));
}

int MPIX_Get_notify_local(void *obuf, int ocount, MPI_Datatype otype, int target,
                          MPI_Aint tdisp, int tcount, MPI_Datatype ttype, int idx, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rma_notify(N_GET_LOCAL, obuf, ocount, otype, target, tdisp,
                                            tcount, ttype, idx, bw, 0));
}

/* The request forms: the operation and its notification are complete when the call
 * returns, so the request is a host request completed at birth (request.c). */
int MPIX_Rput_notify(const void *obuf, int ocount, MPI_Datatype otype, int target,
                     MPI_Aint tdisp, int tcount, MPI_Datatype ttype, int idx, MPI_Win win,
                     MPI_Request *req)
{
    LOOKUP(win, bw);
    int rerr = rma_notify(N_PUT, (void *) obuf, ocount, otype, target, tdisp, tcount, ttype, idx,
                          bw, RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}

int MPIX_Rget_notify(void *obuf, int ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
                     int tcount, MPI_Datatype ttype, int idx, MPI_Win win, MPI_Request *req)
{
    LOOKUP(win, bw);
    int rerr = rma_notify(N_GET, obuf, ocount, otype, target, tdisp, tcount, ttype, idx, bw,
                          RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}

int MPIX_Accumulate_notify(const void *obuf, int ocount, MPI_Datatype otype, int target,
                           MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, int idx,
                           MPI_Win win)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    rmaib_op_t rop;
    int rerr = rmaib_mpi_acc_resolve(ocount, otype, tcount, ttype, op, &ol, &tl, &rop);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_accumulate_notify(bw->core, obuf, (size_t) ocount, ol, target, tdisp,
                                       (size_t) tcount, tl, rop, idx, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

/* No info key is defined for it yet: info is accepted and ignored. */
int MPIX_Win_set_num_notify(MPI_Win win, MPI_Info info, int num)
{
    LOOKUP(win, bw);
    (void) info;
    return rmaib_mpi_win_ret(bw, rmaib_win_set_num_notify(bw->core, num));
}

int MPIX_Win_get_num_notify(MPI_Win win, int target, int *num)
{
    LOOKUP(win, bw);
    if (!num)
        return rmaib_mpi_win_ret(bw, RMAIB_ERR_ARG);
    return rmaib_mpi_win_ret(bw, rmaib_win_get_num_notify(bw->core, target, num));
}

/* A counter's value out to the user (if the call worked), the status through the
 * window's handler. */
static int count_ret(rmaib_mpi_win_t *bw, int rerr, const uint64_t *v, MPI_Count *value)
{
    if (rerr == RMAIB_OK && value)
        *value = (MPI_Count) *v;
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPIX_Win_get_notify_value(MPI_Win win, int idx, MPI_Count *value)
{
    LOOKUP(win, bw);
    uint64_t v = 0;
    int rerr = value ? rmaib_win_get_notify_value(bw->core, idx, &v) : RMAIB_ERR_ARG;
    return count_ret(bw, rerr, &v, value);
}

int MPIX_Win_reset_notify_value(MPI_Win win, int idx, MPI_Count *value)
{
    LOOKUP(win, bw);
    uint64_t v = 0;
    int rerr = value ? rmaib_win_reset_notify_value(bw->core, idx, &v) : RMAIB_ERR_ARG;
    return count_ret(bw, rerr, &v, value);
}

/* A threshold of 0 or less is reached at once; value may be NULL. */
int MPIX_Win_wait_notify_value(MPI_Win win, int idx, MPI_Count threshold, MPI_Count *value)
{
    LOOKUP(win, bw);
    uint64_t v = 0;
    int rerr = rmaib_win_wait_notify_value(bw->core, idx, threshold > 0 ? (uint64_t) threshold : 0,
                                           &v);
    return count_ret(bw, rerr, &v, value);
}

int MPIX_Win_notify_waitsome(MPI_Win win, int first, int count, int *idx)
{
    LOOKUP(win, bw);
    if (!idx)
        return rmaib_mpi_win_ret(bw, RMAIB_ERR_ARG);
    return rmaib_mpi_win_ret(bw, rmaib_win_notify_waitsome(bw->core, first, count, idx));
}
