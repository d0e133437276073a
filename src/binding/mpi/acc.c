/*
 * The accumulate family of the drop-in library: MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap and the request forms.  User-defined
 * operations are refused with MPI_ERR_OP: element-wise atomicity cannot be promised
 * for code rmaib cannot see.
 */
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "request.h"
#include "rma.h"

rmaib_op_t rmaib_mpi_op_of(MPI_Op op)
{
    static const struct {
        MPI_Op mpi;
        rmaib_op_t op;
    } map[] = {
        { MPI_SUM, RMAIB_OP_SUM }, { MPI_PROD, RMAIB_OP_PROD }, { MPI_MAX, RMAIB_OP_MAX },
        { MPI_MIN, RMAIB_OP_MIN }, { MPI_LAND, RMAIB_OP_LAND }, { MPI_LOR, RMAIB_OP_LOR },
        { MPI_LXOR, RMAIB_OP_LXOR }, { MPI_BAND, RMAIB_OP_BAND }, { MPI_BOR, RMAIB_OP_BOR },
        { MPI_BXOR, RMAIB_OP_BXOR }, { MPI_MAXLOC, RMAIB_OP_MAXLOC },
        { MPI_MINLOC, RMAIB_OP_MINLOC }, { MPI_REPLACE, RMAIB_OP_REPLACE },
        { MPI_NO_OP, RMAIB_OP_NO_OP },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].mpi == op)
            return map[i].op;
    return 0;
}

static int layout(int count, MPI_Datatype dt, const rmaib_layout_t **l)
{
    int e;
    if (count < 0)
        return RMAIB_ERR_COUNT;
    *l = rmaib_mpi_layout(dt, &e);
    return *l ? RMAIB_OK : RMAIB_ERR_TYPE;
}

/* Operation and layouts of an accumulate; RMAIB_OK or the error.  Static inline for
 * MPI_Accumulate's hot path; rmaib_mpi_acc_resolve serves the notified form. */
static inline int acc_resolve(int ocount, MPI_Datatype otype, int tcount, MPI_Datatype ttype,
                              MPI_Op mop, const rmaib_layout_t **ol, const rmaib_layout_t **tl,
                              rmaib_op_t *op)
{
    *op = rmaib_mpi_op_of(mop);
    int rerr = *op ? RMAIB_OK : RMAIB_ERR_OP;
    if (rerr == RMAIB_OK)
        rerr = layout(ocount, otype, ol);
    if (rerr == RMAIB_OK && ttype == otype && tcount >= 0)
        *tl = *ol;
    else if (rerr == RMAIB_OK)
        rerr = layout(tcount, ttype, tl);
    return rerr;
}

int rmaib_mpi_acc_resolve(int ocount, MPI_Datatype otype, int tcount, MPI_Datatype ttype,
                          MPI_Op mop, const rmaib_layout_t **ol, const rmaib_layout_t **tl,
                          rmaib_op_t *op)
{
    return acc_resolve(ocount, otype, tcount, ttype, mop, ol, tl, op);
}

static int accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target,
                      MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op mop,
                      rmaib_mpi_win_t *bw, int flags)
{
    const rmaib_layout_t *ol, *tl;
    rmaib_op_t op;
    int rerr = acc_resolve(ocount, otype, tcount, ttype, mop, &ol, &tl, &op);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_accumulate(bw->core, obuf, (size_t) ocount, ol, target, tdisp,
                                (size_t) tcount, tl, op, flags);
    return rerr;
}

static int get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf,
                          int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp,
                          int tcount, MPI_Datatype ttype, MPI_Op mop, rmaib_mpi_win_t *bw,
                          int flags)
{
    const rmaib_layout_t *ol = NULL, *rl, *tl;
    rmaib_op_t op = rmaib_mpi_op_of(mop);
    int rerr = op ? RMAIB_OK : RMAIB_ERR_OP;
    if (rerr == RMAIB_OK && op != RMAIB_OP_NO_OP)
        rerr = layout(ocount, otype, &ol);
    if (rerr == RMAIB_OK)
        rerr = layout(rcount, rtype, &rl);
    if (rerr == RMAIB_OK)
        rerr = layout(tcount, ttype, &tl);
    if (rerr == RMAIB_OK && !ol)
        ol = tl;                /* NO_OP: the origin is not read */
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_get_accumulate(bw->core, obuf, op == RMAIB_OP_NO_OP ? 0 : (size_t) ocount, ol,
                                    rbuf, (size_t) rcount, rl, target, tdisp, (size_t) tcount,
                                    tl, op, flags);
    return rerr;
}

int MPI_Accumulate(const void *obuf, int ocount, MPI_Datatype otype, int target,
                   MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, accumulate(obuf, ocount, otype, target, tdisp, tcount, ttype,
                                            op, bw, 0));
}

int MPI_Get_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf,
                       int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount,
                       MPI_Datatype ttype, MPI_Op op, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, get_accumulate(obuf, ocount, otype, rbuf, rcount, rtype, target,
                                                tdisp, tcount, ttype, op, bw, 0));
}

/* Fetch_and_op and Compare_and_swap take one element of "a predefined datatype"
 * (MPI-3.1 §11.3.4): a derived type, even one that is a single int, is MPI_ERR_TYPE.
 * Both are the latency-bound calls of the family, so they go straight to the core. */
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target,
                     MPI_Aint tdisp, MPI_Op op, MPI_Win win)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *l = rmaib_mpi_layout_named(dt);
    rmaib_op_t rop = rmaib_mpi_op_of(op);
    int rerr = !rop ? RMAIB_ERR_OP : !l ? RMAIB_ERR_TYPE : RMAIB_OK;
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_fetch_and_op(bw->core, obuf, rbuf, l, target, tdisp, rop);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                         int target, MPI_Aint tdisp, MPI_Win win)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *l = rmaib_mpi_layout_named(dt);
    int rerr = l ? RMAIB_OK : RMAIB_ERR_TYPE;
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_compare_and_swap(bw->core, obuf, cbuf, rbuf, l, target, tdisp);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Raccumulate(const void *obuf, int ocount, MPI_Datatype otype, int target,
                    MPI_Aint tdisp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                    MPI_Request *req)
{
    LOOKUP(win, bw);
    int rerr = accumulate(obuf, ocount, otype, target, tdisp, tcount, ttype, op, bw,
                          RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}

int MPI_Rget_accumulate(const void *obuf, int ocount, MPI_Datatype otype, void *rbuf,
                        int rcount, MPI_Datatype rtype, int target, MPI_Aint tdisp, int tcount,
                        MPI_Datatype ttype, MPI_Op op, MPI_Win win, MPI_Request *req)
{
    LOOKUP(win, bw);
    int rerr = get_accumulate(obuf, ocount, otype, rbuf, rcount, rtype, target, tdisp, tcount,
                              ttype, op, bw, RMAIB_OP_REQUEST);
    return rmaib_mpi_request_ret(bw, rerr, req);
}
