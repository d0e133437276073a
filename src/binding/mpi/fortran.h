/*
 * What the generated mpi_f08 entry points (api.txt, maint/gen-binding) need beyond
 * mpi.h.
 */
#ifndef RMAIB_BINDING_FORTRAN_H_INCLUDED
#define RMAIB_BINDING_FORTRAN_H_INCLUDED

#include <mpi.h>

/* An mpi_f08 status argument as C takes it: MPICH's type(MPI_Status) has C's
 * layout, and mpi_f08's MPI_STATUS_IGNORE becomes MPI_STATUS_IGNORE (fortran.c). */
MPI_Status *rmaib_mpi_f08_status(MPI_Status *status);
/* The same for an array of statuses and MPI_STATUSES_IGNORE. */
MPI_Status *rmaib_mpi_f08_statuses(MPI_Status *statuses);

#endif
