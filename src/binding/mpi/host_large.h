/*
 * The host's MPI-4 large-count PMPI calls, which the binding makes only for a count
 * past INT_MAX.  An MPI-3 host (Open MPI 4.1) has none, and its programs reach
 * rmaib through int entry points only, so no such count arrives there: should one,
 * the call answers MPI_ERR_COUNT.
 */
#ifndef RMAIB_BINDING_HOST_LARGE_H_INCLUDED
#define RMAIB_BINDING_HOST_LARGE_H_INCLUDED

#include <mpi.h>

#if MPI_VERSION < 4
#define PMPI_Allgather_c(...) MPI_ERR_COUNT
#define PMPI_Allreduce_c(...) MPI_ERR_COUNT
#define PMPI_Alltoall_c(...) MPI_ERR_COUNT
#define PMPI_Bcast_c(...) MPI_ERR_COUNT
#define PMPI_Gather_c(...) MPI_ERR_COUNT
#define PMPI_Iallgather_c(...) MPI_ERR_COUNT
#define PMPI_Iallreduce_c(...) MPI_ERR_COUNT
#define PMPI_Ialltoall_c(...) MPI_ERR_COUNT
#define PMPI_Ibcast_c(...) MPI_ERR_COUNT
#define PMPI_Igather_c(...) MPI_ERR_COUNT
#define PMPI_Irecv_c(...) MPI_ERR_COUNT
#define PMPI_Ireduce_c(...) MPI_ERR_COUNT
#define PMPI_Isend_c(...) MPI_ERR_COUNT
#define PMPI_Recv_c(...) MPI_ERR_COUNT
#define PMPI_Reduce_c(...) MPI_ERR_COUNT
#define PMPI_Sendrecv_c(...) MPI_ERR_COUNT
#endif

#endif
