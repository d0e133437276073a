/*
 * The one out-of-line check of the data-movement calls: whether a large count (an
 * MPI-4 _c form's, past INT_MAX) fits the core's arithmetic.  The entry points
 * themselves are generated from api.txt over rma.h's and acc.h's bodies.
 */
#include <stdint.h>
#include "rma.h"

int rmaib_mpi_count_fits(MPI_Count count, const rmaib_layout_t *l)
{
    /* The core computes count * size in size_t and count * extent in int64_t. */
    int64_t step = l->extent < 0 ? -l->extent : l->extent, out;
    if ((uint64_t) step < l->size)
        step = (int64_t) l->size;
    return !__builtin_mul_overflow((int64_t) count, step, &out);
}
