/*
 * Helpers of the generated mpi_f08 entry points (fortran.h).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "fortran.h"

#ifndef RMAIB_NETMOD

/* mpi_f08's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are Fortran objects of
 * libmpichfort, passed by address: MPICH's own wrappers compare with them.  Looked
 * up at the first call (libmpichfort is loaded by then: the caller is Fortran). */
static void *f08_object(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_RELAXED);
    if (!p) {
        p = dlsym(RTLD_DEFAULT, name);
        __atomic_store_n(cache, p, __ATOMIC_RELAXED);
    }
    return p;
}

MPI_Status *rmaib_mpi_f08_status(MPI_Status *status)
{
    static void *ignore;
    void *p = f08_object(&ignore, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
    return p && (void *) status == p ? MPI_STATUS_IGNORE : status;
}

MPI_Status *rmaib_mpi_f08_statuses(MPI_Status *statuses)
{
    static void *ignore;
    void *p = f08_object(&ignore, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
    return p && (void *) statuses == p ? MPI_STATUSES_IGNORE : statuses;
}

#endif
