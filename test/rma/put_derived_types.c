/*
 * MPI_Put with derived datatypes on either side and on both: every ordered pair of
 * the layouts in dtypes.h (contiguous, vector, hvector, indexed, hindexed,
 * indexed_block, hindexed_block, struct with gaps, resized with a negative lower
 * bound and with a stretched extent, subarray, darray, dup) moves 12 ints from each
 * rank to every rank, including itself.
 *
 * Each (origin, pair) has its own slot in the target window.  The target checks every
 * int of every slot: the 12 written where the target datatype puts them, in type-map
 * order, carrying (origin, target, pair, index), and the sentinel everywhere else.
 * Done under lock_all + flush, lock/unlock (exclusive and shared) and fence.
 * The body, shared with get_derived_types, is in derived_pairs.h.
 */
#include "derived_pairs.h"

int main(int argc, char **argv)
{
    return derived_pairs_run(&argc, &argv, DIR_PUT);
}
