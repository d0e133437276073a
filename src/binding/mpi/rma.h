/*
 * Argument resolution shared by the data-movement entry points (rma.c, acc.c) and
 * their notified forms (notify.c).
 */
#ifndef RMAIB_BINDING_RMA_H_INCLUDED
#define RMAIB_BINDING_RMA_H_INCLUDED

#include <mpi.h>
#include "rmaib.h"
#include "datatype.h"

/* Counts and layouts of Put and Get: RMAIB_OK, RMAIB_ERR_COUNT or RMAIB_ERR_TYPE
 * (*mpi_err then holds the datatype's MPI class).  Inline: it is on MPI_Put's and
 * MPI_Get's hot path. */
static inline int rmaib_mpi_rma_resolve(int ocount, MPI_Datatype otype, int tcount,
                                        MPI_Datatype ttype, const rmaib_layout_t **ol,
                                        const rmaib_layout_t **tl, int *mpi_err)
{
    *mpi_err = MPI_SUCCESS;
    if (ocount < 0 || tcount < 0)
        return RMAIB_ERR_COUNT;
    *ol = rmaib_mpi_layout(otype, mpi_err);
    if (*ol)
        *tl = ttype == otype ? *ol : rmaib_mpi_layout(ttype, mpi_err);
    return *ol && *tl ? RMAIB_OK : RMAIB_ERR_TYPE;
}
/* rmaib's op for a predefined MPI op (REPLACE and NO_OP included), 0 for any other. */
rmaib_op_t rmaib_mpi_op_of(MPI_Op op);
/* Operation, counts and layouts of Accumulate. */
int rmaib_mpi_acc_resolve(int ocount, MPI_Datatype otype, int tcount, MPI_Datatype ttype,
                          MPI_Op mop, const rmaib_layout_t **ol, const rmaib_layout_t **tl,
                          rmaib_op_t *op);

#endif
