/*
 * The info keys rmaib reads when a window is created.
 */
#ifndef RMAIB_BINDING_MPI_INFO_H_INCLUDED
#define RMAIB_BINDING_MPI_INFO_H_INCLUDED

#include <mpi.h>

/* What info asks of a new window: rmaib_lock=mcs or =tas sets *lock_alg
 * (RMAIB_LOCKALG_*; any other value or none leaves it as it is), *noncontig is
 * whether alloc_shared_noncontig=true, and *max_notify is mpi_assert_max_num_notify
 * when that is a string of decimal digits, at most RMAIB_NOTIFY_LIMIT, else -1 (the
 * default; hints that make no sense are ignored).  MPI_INFO_NULL asks nothing. */
void rmaib_mpi_win_info(MPI_Info info, int *lock_alg, int *noncontig, int *max_notify);

/* May MPI_Win_create move the window's pages into shared memory?  Yes unless info
 * says rmaib_map_user_memory=false (RMAIB_MAP_USER_MEMORY=0 says no to all). */
int rmaib_mpi_win_info_map_user(MPI_Info info);

#endif
