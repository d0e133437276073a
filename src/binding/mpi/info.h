/*
 * The info keys rmaib reads when a window is created.
 */
#ifndef RMAIB_BINDING_MPI_INFO_H_INCLUDED
#define RMAIB_BINDING_MPI_INFO_H_INCLUDED

#include <mpi.h>

/* What info asks of a new window: rmaib_lock=mcs or =tas sets *lock_alg
 * (RMAIB_LOCKALG_*; any other value or none leaves it as it is), and *noncontig is
 * whether alloc_shared_noncontig=true.  MPI_INFO_NULL asks nothing. */
void rmaib_mpi_win_info(MPI_Info info, int *lock_alg, int *noncontig);

#endif
