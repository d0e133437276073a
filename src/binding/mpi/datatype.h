/*
 * MPI datatypes as rmaib layouts, over the standard (PMPI) API only.
 *
 * Predefined types are answered from a small hash table built on first use, with no
 * MPI call; derived types are flattened once and the layout hangs off the type as an
 * attribute, so it dies with the type and a recycled handle never sees a stale one.
 *
 * Everything here may be called from any thread once MPI is initialised; the first
 * flattening of a derived type briefly sets MPI_ERRORS_RETURN on MPI_COMM_SELF (to
 * ask MPI whether the type is committed) and restores the previous handler.
 */
#ifndef RMAIB_BINDING_MPI_DATATYPE_H_INCLUDED
#define RMAIB_BINDING_MPI_DATATYPE_H_INCLUDED

#include <stdint.h>
#include <mpi.h>
#include "rmaib_layout.h"

/* Layout of one element of dt, cached; NULL with *err set to an MPI error class
 * (MPI_ERR_TYPE for MPI_DATATYPE_NULL, an uncommitted derived type, or a type that
 * cannot be flattened; MPI_ERR_NO_MEM when the block list does not fit in memory).
 * *err is written only on failure.  The layout stays valid until dt is freed; hold
 * it to keep it past that. */
const rmaib_layout_t *rmaib_mpi_layout_find(MPI_Datatype dt, int *err);

/* The predefined type found last, checked inline: an RMA loop names one type over
 * and over.  One pointer to a slot of the table, read whole, never changed while
 * the table stands. */
typedef struct rmaib_mpi_named_slot {
    uintptr_t key;
    const rmaib_layout_t *lay;   /* NULL: empty slot */
} rmaib_mpi_named_slot_t;
extern const rmaib_mpi_named_slot_t *rmaib_mpi_named_last __attribute__((visibility("hidden")));

/* An int handle (MPICH) or a pointer handle (Open MPI) as an integer key. */
static inline uintptr_t rmaib_mpi_dt_key(MPI_Datatype dt)
{
    union {
        MPI_Datatype dt;
        uintptr_t key;
    } u;
    u.key = 0;
    u.dt = dt;
    return u.key;
}

static inline const rmaib_mpi_named_slot_t *rmaib_mpi_named_hit(MPI_Datatype dt)
{
    const rmaib_mpi_named_slot_t *s = __atomic_load_n(&rmaib_mpi_named_last, __ATOMIC_ACQUIRE);
    return __builtin_expect(s && s->key == rmaib_mpi_dt_key(dt), 1) ? s : NULL;
}

static inline const rmaib_layout_t *rmaib_mpi_layout(MPI_Datatype dt, int *err)
{
    const rmaib_mpi_named_slot_t *s = rmaib_mpi_named_hit(dt);
    return s ? s->lay : rmaib_mpi_layout_find(dt, err);
}

/* The layout of a predefined type, NULL for any other (derived types, null handles):
 * for the calls that take "one predefined datatype" (Fetch_and_op, Compare_and_swap). */
const rmaib_layout_t *rmaib_mpi_layout_named_find(MPI_Datatype dt);
static inline const rmaib_layout_t *rmaib_mpi_layout_named(MPI_Datatype dt)
{
    const rmaib_mpi_named_slot_t *s = rmaib_mpi_named_hit(dt);
    return s ? s->lay : rmaib_mpi_layout_named_find(dt);
}

/* The rmaib_basic_t of a predefined type (RMAIB_BASIC_NONE if not a basic type). */
rmaib_basic_t rmaib_mpi_basic(MPI_Datatype dt);

/* MPI lets the user free a datatype while an operation that uses it is pending: an
 * operation that keeps a layout beyond the call holds it and releases it when done.
 * Both are no-ops for predefined types. */
void rmaib_mpi_layout_hold(const rmaib_layout_t *layout);
void rmaib_mpi_layout_release(const rmaib_layout_t *layout);

/* Free the caches; call before PMPI_Finalize (optional).  Layouts of derived types
 * still alive are freed with their types. */
void rmaib_mpi_layout_finalize(void);

#endif
