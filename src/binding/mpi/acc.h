/*
 * The bodies of MPI_Accumulate, MPI_Get_accumulate, their R- and _c forms, which
 * the generated binding (api.txt) calls: inline, so that MPI_Accumulate is one
 * function as MPI_Put is.  User-defined operations are refused with MPI_ERR_OP:
 * element-wise atomicity cannot be promised for code rmaib cannot see.
 */
#ifndef RMAIB_BINDING_ACC_H_INCLUDED
#define RMAIB_BINDING_ACC_H_INCLUDED

#include "rma.h"

/* The layout of count elements of dt: RMAIB_OK, RMAIB_ERR_COUNT or RMAIB_ERR_TYPE. */
static inline int rmaib_mpi_acc_layout(MPI_Count count, MPI_Datatype dt,
                                       const rmaib_layout_t **l)
{
    int e;
    if (count < 0)
        return RMAIB_ERR_COUNT;
    *l = rmaib_mpi_layout(dt, &e);
    if (!*l)
        return RMAIB_ERR_TYPE;
    return rmaib_mpi_counts_fit(count, *l, 0, *l);
}

/* Operation and layouts of an accumulate; RMAIB_OK or the error. */
static inline int rmaib_mpi_acc_resolve_inline(MPI_Count ocount, MPI_Datatype otype,
                                               MPI_Count tcount, MPI_Datatype ttype, MPI_Op mop,
                                               const rmaib_layout_t **ol,
                                               const rmaib_layout_t **tl, rmaib_op_t *op)
{
    *op = rmaib_mpi_op_of(mop);
    int rerr = *op ? RMAIB_OK : RMAIB_ERR_OP;
    if (rerr == RMAIB_OK)
        rerr = rmaib_mpi_acc_layout(ocount, otype, ol);
    if (rerr == RMAIB_OK && ttype == otype && tcount >= 0 && tcount <= INT_MAX)
        *tl = *ol;
    else if (rerr == RMAIB_OK)
        rerr = rmaib_mpi_acc_layout(tcount, ttype, tl);
    return rerr;
}

/* MPI_Accumulate and MPI_Raccumulate (flags RMAIB_OP_REQUEST). */
static inline __attribute__((always_inline)) int
rmaib_mpi_accumulate(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target,
                     MPI_Aint tdisp, MPI_Count tcount, MPI_Datatype ttype, MPI_Op mop, MPI_Win win,
                     int flags, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    rmaib_op_t op;
    int rerr = rmaib_mpi_acc_resolve_inline(ocount, otype, tcount, ttype, mop, &ol, &tl, &op);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_accumulate_inline(bw->core, obuf, (size_t) ocount, ol, target, tdisp,
                                       (size_t) tcount, tl, op, flags);
    return rmaib_mpi_rma_ret(bw, rerr, flags, req);
}

/* MPI_Get_accumulate and MPI_Rget_accumulate. */
static inline int rmaib_mpi_get_accumulate(const void *obuf, MPI_Count ocount,
                                           MPI_Datatype otype, void *rbuf, MPI_Count rcount,
                                           MPI_Datatype rtype, int target, MPI_Aint tdisp,
                                           MPI_Count tcount, MPI_Datatype ttype, MPI_Op mop,
                                           MPI_Win win, int flags, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol = NULL, *rl, *tl;
    rmaib_op_t op = rmaib_mpi_op_of(mop);
    int rerr = op ? RMAIB_OK : RMAIB_ERR_OP;
    if (rerr == RMAIB_OK && op != RMAIB_OP_NO_OP)
        rerr = rmaib_mpi_acc_layout(ocount, otype, &ol);
    if (rerr == RMAIB_OK)
        rerr = rmaib_mpi_acc_layout(rcount, rtype, &rl);
    if (rerr == RMAIB_OK)
        rerr = rmaib_mpi_acc_layout(tcount, ttype, &tl);
    if (rerr == RMAIB_OK && !ol)
        ol = tl;                /* NO_OP: the origin is not read */
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_get_accumulate(bw->core, obuf, op == RMAIB_OP_NO_OP ? 0 : (size_t) ocount,
                                    ol, rbuf, (size_t) rcount, rl, target, tdisp,
                                    (size_t) tcount, tl, op, flags);
    return rmaib_mpi_rma_ret(bw, rerr, flags, req);
}

#endif
