/*
 * Datatype layouts: what the core knows of an MPI datatype.
 *
 * The host flattens each datatype once into a list of byte blocks (one element's
 * worth) and caches it; the core never sees the host's datatype handles.  A layout
 * also records the single basic type the datatype is built from, which the
 * accumulate family needs (element-wise atomicity is per basic element).
 */
#ifndef RMAIB_LAYOUT_H_INCLUDED
#define RMAIB_LAYOUT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

/* Basic element types, as the accumulate family sees them. */
typedef enum rmaib_basic {
    RMAIB_BASIC_NONE = 0,       /* not a single basic type (mixed struct, or unknown) */
    RMAIB_BASIC_INT8, RMAIB_BASIC_INT16, RMAIB_BASIC_INT32, RMAIB_BASIC_INT64,
    RMAIB_BASIC_UINT8, RMAIB_BASIC_UINT16, RMAIB_BASIC_UINT32, RMAIB_BASIC_UINT64,
    RMAIB_BASIC_FLOAT, RMAIB_BASIC_DOUBLE, RMAIB_BASIC_LONG_DOUBLE,
    RMAIB_BASIC_C_FLOAT_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX,
    RMAIB_BASIC_BOOL,           /* C _Bool: logical ops only */
    RMAIB_BASIC_BYTE,           /* MPI_BYTE / MPI_PACKED: no arithmetic */
    RMAIB_BASIC_CHAR,           /* MPI_CHAR: text to MPI-3.1, a signed char to MPICH (reduce.c) */
    RMAIB_BASIC_LOGICAL4,       /* Fortran LOGICAL of 4 bytes: logical ops only, giving 0/1 */
    RMAIB_BASIC_OPAQUE4,        /* MPI_WCHAR: 4 bytes in no op group, REPLACE/NO_OP only */
    /* pair types for MAXLOC/MINLOC: value then int (or long/short) index, or for
     * Fortran's 2REAL/2DOUBLE_PRECISION the index in the value's own type */
    RMAIB_BASIC_FLOAT_INT, RMAIB_BASIC_DOUBLE_INT, RMAIB_BASIC_LONG_INT, RMAIB_BASIC_2INT,
    RMAIB_BASIC_SHORT_INT, RMAIB_BASIC_LONG_DOUBLE_INT, RMAIB_BASIC_2FLOAT, RMAIB_BASIC_2DOUBLE,
    RMAIB_BASIC_COUNT
} rmaib_basic_t;

/* One contiguous run of bytes, relative to the start of the user's buffer. */
typedef struct rmaib_block {
    int64_t disp;
    size_t len;
} rmaib_block_t;

typedef struct rmaib_layout {
    size_t size;             /* bytes of data in one element */
    int64_t extent;          /* distance between consecutive elements */
    int64_t true_lb;         /* lowest byte touched by one element, relative to buffer */
    int64_t true_ub;         /* one past the highest byte touched by one element */
    int contig;              /* one block, disp 0, len == size == extent: count elements are one run */
    size_t nblocks;          /* blocks in one element, in type-map order, adjacent runs merged */
    const rmaib_block_t *blocks;
    rmaib_basic_t basic;     /* the one basic type all of the data is made of, or NONE */
    size_t basic_size;       /* bytes of one basic element (0 with NONE) */
} rmaib_layout_t;

/* Extent of the bytes [lo, hi) that count elements touch, for bounds checks. */
static inline void rmaib_layout_span(const rmaib_layout_t *l, size_t count, int64_t *lo, int64_t *hi)
{
    int64_t last = (int64_t) (count - 1) * l->extent;
    *lo = l->true_lb + (last < 0 ? last : 0);
    *hi = l->true_ub + (last > 0 ? last : 0);
}

#endif
