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

#include <mpi.h>
#include "rmaib_layout.h"

/* Layout of one element of dt, cached; NULL with *err set to an MPI error class
 * (MPI_ERR_TYPE for MPI_DATATYPE_NULL, an uncommitted derived type, or a type that
 * cannot be flattened; MPI_ERR_NO_MEM when the block list does not fit in memory).
 * *err is written only on failure.  The layout stays valid until dt is freed; hold
 * it to keep it past that. */
const rmaib_layout_t *rmaib_mpi_layout(MPI_Datatype dt, int *err);

/* The layout of a predefined type, NULL for any other (derived types, null handles):
 * for the calls that take "one predefined datatype" (Fetch_and_op, Compare_and_swap). */
const rmaib_layout_t *rmaib_mpi_layout_named(MPI_Datatype dt);

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
