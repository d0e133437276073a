/*
 * MPI_Get with derived datatypes on either side and on both: every ordered pair of
 * the layouts in dtypes.h reads 12 ints from every rank, including itself.
 *
 * The target fills each (origin, pair) slot with decoys and puts the 12 values,
 * carrying (origin, target, pair, index), where the target datatype will read them;
 * the origin checks every int of its buffer: the 12 values where the origin
 * datatype places them, in type-map order, and the sentinel everywhere else (a Get
 * must not write outside its origin datatype).  Done under lock_all + flush,
 * lock/unlock (exclusive and shared) and fence.
 * The body, shared with put_derived_types, is in derived_pairs.h.
 */
#include "derived_pairs.h"

int main(int argc, char **argv)
{
    return derived_pairs_run(&argc, &argv, DIR_GET);
}
