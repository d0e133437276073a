/*
 * Argument resolution shared by the data-movement entry points (rma.h's bodies,
 * acc.h) and their notified forms (notify.c), and the bodies of MPI_Put, MPI_Get
 * and their R- and _c forms, which the generated binding (api.txt) calls.
 */
#ifndef RMAIB_BINDING_RMA_H_INCLUDED
#define RMAIB_BINDING_RMA_H_INCLUDED

#include <limits.h>
#include <mpi.h>
#include "rmaib.h"
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "request.h"
#include "rma/rma_fast.h"

/* Whether count elements of l stay within the core's size_t byte counts and int64_t
 * spans.  Only a _c form's count past INT_MAX needs asking (rma.c). */
int rmaib_mpi_count_fits(MPI_Count count, const rmaib_layout_t *l);

/* RMAIB_OK, or RMAIB_ERR_COUNT where either count is too large for memory to hold.
 * An int form's counts never pass INT_MAX, so after inlining the test folds away. */
static inline int rmaib_mpi_counts_fit(MPI_Count a, const rmaib_layout_t *al, MPI_Count b,
                                       const rmaib_layout_t *bl)
{
    if (__builtin_expect(a > INT_MAX || b > INT_MAX, 0)
        && !(rmaib_mpi_count_fits(a, al) && rmaib_mpi_count_fits(b, bl)))
        return RMAIB_ERR_COUNT;
    return RMAIB_OK;
}

/* Counts and layouts of Put and Get: RMAIB_OK, RMAIB_ERR_COUNT or RMAIB_ERR_TYPE
 * (*mpi_err then holds the datatype's MPI class).  Inline: it is on MPI_Put's and
 * MPI_Get's hot path. */
static inline int rmaib_mpi_rma_resolve(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                                        MPI_Datatype ttype, const rmaib_layout_t **ol,
                                        const rmaib_layout_t **tl, int *mpi_err)
{
    *mpi_err = MPI_SUCCESS;
    if (ocount < 0 || tcount < 0)
        return RMAIB_ERR_COUNT;
    *ol = rmaib_mpi_layout(otype, mpi_err);
    if (*ol)
        *tl = ttype == otype ? *ol : rmaib_mpi_layout(ttype, mpi_err);
    if (!*ol || !*tl)
        return RMAIB_ERR_TYPE;
    return rmaib_mpi_counts_fit(ocount, *ol, tcount, *tl);
}

/* rmaib's op for a predefined MPI op (REPLACE and NO_OP included), 0 for any other. */
rmaib_op_t rmaib_mpi_op_of(MPI_Op op);
/* Operation, counts and layouts of Accumulate. */
int rmaib_mpi_acc_resolve(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                          MPI_Datatype ttype, MPI_Op mop, const rmaib_layout_t **ol,
                          const rmaib_layout_t **tl, rmaib_op_t *op);

/* The end of a data-movement call: through the window, or, with flags
 * RMAIB_OP_REQUEST, handing out the request *req. */
static inline int rmaib_mpi_rma_ret(rmaib_mpi_win_t *bw, int rerr, int flags, MPI_Request *req)
{
    return flags & RMAIB_OP_REQUEST ? rmaib_mpi_request_ret(bw, rerr, req)
        : rmaib_mpi_win_ret(bw, rerr);
}

/* MPI_Put and MPI_Rput (flags RMAIB_OP_REQUEST), int and _c forms. */
static inline __attribute__((always_inline)) int
rmaib_mpi_put(const void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
              MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, int flags, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_put_inline(bw->core, obuf, (size_t) ocount, ol, target, tdisp,
                                (size_t) tcount, tl, flags);
    return rmaib_mpi_rma_ret(bw, rerr, flags, req);
}

/* MPI_Get and MPI_Rget, int and _c forms. */
static inline __attribute__((always_inline)) int
rmaib_mpi_get(void *obuf, MPI_Count ocount, MPI_Datatype otype, int target, MPI_Aint tdisp,
              MPI_Count tcount, MPI_Datatype ttype, MPI_Win win, int flags, MPI_Request *req)
{
    LOOKUP(win, bw);
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_get_inline(bw->core, obuf, (size_t) ocount, ol, target, tdisp,
                                (size_t) tcount, tl, flags);
    return rmaib_mpi_rma_ret(bw, rerr, flags, req);
}

#endif
