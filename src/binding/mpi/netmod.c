/*
 * What only librmaib-nm, the binding inside MPICH's ch4:rmaib netmod, needs: window
 * creation behind the netmod's own MPIR_Win, its info keys, and serving rmaib's
 * network endpoint from MPICH's progress engine.
 */
#include "rmaib_nm.h"
#include "errors.h"
#include "handles.h"
#include "host.h"

static int rmaib_flavor(int mpi_flavor)
{
    switch (mpi_flavor) {
    case MPI_WIN_FLAVOR_CREATE:
        return RMAIB_FLAVOR_CREATE;
    case MPI_WIN_FLAVOR_ALLOCATE:
        return RMAIB_FLAVOR_ALLOCATE;
    case MPI_WIN_FLAVOR_DYNAMIC:
        return RMAIB_FLAVOR_DYNAMIC;
    default:
        return RMAIB_FLAVOR_SHARED;
    }
}

int rmaib_nm_win_create(int flavor, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                        void *base, void **base_out, MPI_Win handle)
{
    MPI_Win win = MPI_WIN_NULL;
    int rc = rmaib_mpi_win_create(rmaib_flavor(flavor), size, disp_unit, info, comm, base,
                                  NULL, handle, &win);
    if (rc == MPI_SUCCESS)
        *base_out = rmaib_mpi_win_find(handle)->attr_base;
    return rc;
}

int rmaib_nm_win_info_keys(MPI_Win win, MPI_Info info)
{
    LOOKUP(win, bw);
    rmaib_mpi_win_info_keys(bw, info);
    return MPI_SUCCESS;
}

/* rmaib's own waits give MPICH's progress a turn (host.c), which comes back here:
 * serve the endpoint only when rmaib is not already on this thread's stack. */
__thread int rmaib_nm_busy __attribute__((tls_model("initial-exec")));

int rmaib_nm_progress(void)
{
    if (rmaib_nm_busy || !rmaib_poll_wanted())
        return MPI_SUCCESS;
    unsigned round = 0;
    rmaib_nm_busy++;
    rmaib_poll(&round);
    rmaib_nm_busy--;
    return MPI_SUCCESS;
}
