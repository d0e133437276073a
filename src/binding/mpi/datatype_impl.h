/*
 * What the parts of the datatype code share; private to src/binding/mpi.
 *
 *   datatype.c         the layout cache and the entry points of datatype.h
 *   datatype_named.c   the predefined types and the basic type each one is
 *   datatype_decode.c  derived types decoded with MPI_Type_get_envelope/contents
 *   datatype_flat.c    block lists, MPI's bounds of a type, and the probe
 */
#ifndef RMAIB_BINDING_MPI_DATATYPE_IMPL_H_INCLUDED
#define RMAIB_BINDING_MPI_DATATYPE_IMPL_H_INCLUDED

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"

/* MPI-4 has large-count constructors (their arguments come back in a separate
 * array) and MPI_Pack_c for probing elements past 2 GiB; an MPI-3 host has neither
 * and cannot build such types either. */
#if MPI_VERSION >= 4
#define HAVE_LARGE_COUNTS 1
typedef MPI_Count env_count_t;
#else
typedef int env_count_t;
#endif

/* The _INTEGER combiners left the standard with MPI-3; MPICH still reports them for
 * the MPI-1 Fortran constructors, Open MPI only in its MPI-1 compatibility build.
 * Where they cannot be named, such a type goes to the probe: slower, still right. */
#if defined(MPICH_VERSION) || (defined(OMPI_ENABLE_MPI1_COMPAT) && OMPI_ENABLE_MPI1_COMPAT)
#define HAVE_INTEGER_COMBINERS 1
#endif

_Static_assert(sizeof(MPI_Datatype) <= sizeof(uintptr_t), "datatype handles must fit a uintptr_t");

/* ---------------------------------------------------------------------------------
 * Layout storage.  Every layout sits behind a reference count so that an operation
 * can keep one past MPI_Type_free (datatype.h); predefined layouts never die.
 */
#define PERMANENT (-1L)

typedef struct box {
    atomic_long refs;
    rmaib_layout_t lay;
} box_t;

typedef struct heap_box {
    box_t h;
    rmaib_block_t blocks[];
} heap_box_t;

/* ---------------------------------------------------------------------------------
 * Block lists (datatype_flat.c).
 */

/* What the leaves of a type are made of: the data-carrying leaves decide; a type
 * without data (count 0 everywhere) still has the basic type of the leaves it names,
 * so a zero-count accumulate is not refused for a type mismatch. */
#define TRACK_UNSET (-1)
typedef struct track {
    int basic;
    size_t size;
} track_t;

typedef struct flat {
    rmaib_block_t *b;
    size_t n, cap;
    int64_t extent;          /* of the flattened type: the step between replicas */
    track_t data;
    track_t any;
} flat_t;

static inline void flat_init(flat_t *f)
{
    memset(f, 0, sizeof *f);
    f->data.basic = f->any.basic = TRACK_UNSET;
}

static inline void flat_free(flat_t *f)
{
    free(f->b);
    f->b = NULL;
    f->n = f->cap = 0;
}

static inline void track_merge(track_t *t, track_t in)
{
    if (in.basic == TRACK_UNSET)
        return;
    if (t->basic == TRACK_UNSET) {
        *t = in;
    } else if (t->basic != in.basic) {
        t->basic = RMAIB_BASIC_NONE;
        t->size = 0;
    }
}

typedef struct bounds {
    MPI_Count size, lb, extent, true_lb, true_extent;
} bounds_t;

int rmaib_mpi_flat_append(flat_t *f, int64_t disp, size_t len);
int rmaib_mpi_flat_replicate(flat_t *dst, const flat_t *src, int64_t base, int64_t count,
                             int64_t stride);
int rmaib_mpi_flat_vector(flat_t *dst, const flat_t *el, int64_t count, int64_t blocklen,
                          int64_t stride);
int rmaib_mpi_bounds_get(MPI_Datatype dt, bounds_t *b);
int rmaib_mpi_flat_probe(MPI_Datatype dt, flat_t *f);
void rmaib_mpi_layout_set(rmaib_layout_t *l, const bounds_t *b, const rmaib_block_t *blocks,
                          size_t n, rmaib_basic_t basic, size_t basic_size);

/* ---------------------------------------------------------------------------------
 * Predefined types (datatype_named.c; their table lives in datatype.c).
 */
#define NAMED_MAX_TYPES 96
#define NAMED_MAX_BLOCKS 4        /* pair types: value, padding, index */

struct named_box {
    box_t h;
    rmaib_block_t blocks[NAMED_MAX_BLOCKS];
};

/* How a named type's basic kind is found: given outright, or by its width. */
enum {
    BY_SINT = RMAIB_BASIC_COUNT, BY_UINT, BY_FLOAT, BY_COMPLEX, BY_BOOL, BY_2INT,
    BY_LOGICAL, BY_OPAQUE, BY_2REAL
};

typedef struct named_spec {
    MPI_Datatype dt;
    int kind;
} named_spec_t;

extern const named_spec_t rmaib_mpi_named_spec[];
extern const size_t rmaib_mpi_named_count;

rmaib_basic_t rmaib_mpi_kind_basic(int kind, MPI_Count size);
int rmaib_mpi_named_fill(struct named_box *nb, MPI_Datatype dt, int kind, int *fits);

/* The layout of a type in the predefined table, NULL for any other (datatype.c). */
const rmaib_layout_t *rmaib_mpi_named_lookup(MPI_Datatype dt);

/* ---------------------------------------------------------------------------------
 * Decoding (datatype_decode.c).
 */

/* Whether dt is a predefined type, as its envelope says. */
int rmaib_mpi_is_named(MPI_Datatype dt, int *named);

/* Append one element of dt to f; f's extent becomes dt's. */
int rmaib_mpi_flatten(MPI_Datatype dt, flat_t *f);

#endif
