/*
 * Helpers of the generated mpi_f08 entry points (fortran.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "fortran.h"

#ifndef RMAIB_NETMOD

/* mpi_f08's MPI_STATUS_IGNORE is a Fortran object of libmpichfort, passed by
 * address: MPICH's own wrappers compare with it.  Looked up at the first call
 * (libmpichfort is loaded by then: the caller is Fortran). */
MPI_Status *rmaib_mpi_f08_status(MPI_Status *status)
{
    static void *ignore;
    void *p = __atomic_load_n(&ignore, __ATOMIC_RELAXED);
    if (!p) {
        p = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
        __atomic_store_n(&ignore, p, __ATOMIC_RELAXED);
    }
    return p && (void *) status == p ? MPI_STATUS_IGNORE : status;
}

#endif
