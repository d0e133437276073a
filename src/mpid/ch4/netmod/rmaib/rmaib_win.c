/*
 * Windows of ch4:rmaib.  MPIDIG's helpers build the MPIR_Win (handle, duplicated
 * communicator, attributes, info hints) with the netmod hooks doing nothing, then
 * rmaib adopts the window by its handle and owns its memory and synchronisation.
 * MPIDIG's RMA is never called, so its epoch state stays at NONE.
 */
#include "mpidimpl.h"
#include "rmaib_nm.h"
#include "rmaib_cs.h"

/* rmaib's window behind win, on the user's communicator (where rmaib caches its
 * duplicate); base is the user's memory (create), NULL (allocate, shared: rmaib's,
 * written back) or MPI_BOTTOM (dynamic). */
static int adopt(MPIR_Win * win, MPIR_Comm * comm_ptr, MPIR_Info * info, int flavor, void *base)
{
    MPI_Comm comm = comm_ptr->handle;
    void *rbase = NULL;
    int rc = RMAIB_NM_OUTSIDE_CS(rmaib_nm_win_create(flavor, win->size, win->disp_unit,
                                 info ? info->handle : MPI_INFO_NULL, comm,
                                 base, &rbase, win->handle));
    if (rc != MPI_SUCCESS)
        return rc;
    win->create_flavor = flavor;
    MPIDI_RMAIB_WIN_PTR(win) = (void *) rmaib_nm_win_of(win->handle);
    if (flavor != MPI_WIN_FLAVOR_DYNAMIC)
        win->base = rbase;
    return MPI_SUCCESS;
}

/* MPIDIG's half of a window runs collectives (MPIR_Allreduce, ...) on the window's
 * communicator: MPICH's algorithms, not rmaib's (rmaib_nm.h), which would give
 * every window a collective window of its own. */
#define MPIDIG_HALF(stmt) do { rmaib_nm_nested_enter(); stmt; rmaib_nm_nested_leave(); } while (0)

/* Undo MPIDIG's half when rmaib could not adopt the window. */
static int drop(MPIR_Win ** win_p, int rc)
{
    (*win_p)->create_flavor = MPI_WIN_FLAVOR_CREATE;   /* MPIDIG frees no base of ours */
    MPIDIG_HALF(MPIDIG_mpi_win_free(win_p));
    *win_p = NULL;
    return rc;
}

int MPIDI_RMAIB_mpi_win_create(void *base, MPI_Aint length, int disp_unit, MPIR_Info * info,
                               MPIR_Comm * comm_ptr, MPIR_Win ** win_p)
{
    int rc;
    MPIDIG_HALF(rc = MPIDIG_mpi_win_create(base, length, disp_unit, info, comm_ptr, win_p));
    if (rc == MPI_SUCCESS && (rc = adopt(*win_p, comm_ptr, info, MPI_WIN_FLAVOR_CREATE, base)))
        return drop(win_p, rc);
    return rc;
}

/* The allocating flavors: a window of no memory from MPIDIG, rmaib's memory. */
static int allocate(int flavor, MPI_Aint size, int disp_unit, MPIR_Info * info,
                    MPIR_Comm * comm, void *baseptr, MPIR_Win ** win_p)
{
    int rc;
    MPIDIG_HALF(rc = MPIDIG_mpi_win_create(NULL, size, disp_unit, info, comm, win_p));
    if (rc == MPI_SUCCESS && (rc = adopt(*win_p, comm, info, flavor, NULL)))
        return drop(win_p, rc);
    if (rc == MPI_SUCCESS)
        *(void **) baseptr = (*win_p)->base;
    return rc;
}

int MPIDI_RMAIB_mpi_win_allocate(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                 MPIR_Comm * comm, void *baseptr, MPIR_Win ** win_p)
{
    return allocate(MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm, baseptr, win_p);
}

int MPIDI_RMAIB_mpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                        MPIR_Comm * comm_ptr, void **baseptr_p,
                                        MPIR_Win ** win_p)
{
    return allocate(MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, comm_ptr, baseptr_p, win_p);
}

int MPIDI_RMAIB_mpi_win_create_dynamic(MPIR_Info * info, MPIR_Comm * comm, MPIR_Win ** win_p)
{
    int rc;
    MPIDIG_HALF(rc = MPIDIG_mpi_win_create_dynamic(info, comm, win_p));
    if (rc == MPI_SUCCESS && (rc = adopt(*win_p, comm, info, MPI_WIN_FLAVOR_DYNAMIC,
                                         MPI_BOTTOM)))
        return drop(win_p, rc);
    return rc;
}

int MPIDI_RMAIB_mpi_win_free(MPIR_Win ** win_p)
{
    MPI_Win h = (*win_p)->handle;
    int rc = RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_free(&h));
    if (rc != MPI_SUCCESS && h != MPI_WIN_NULL)
        return rc;      /* an epoch is open: the window stays */
    /* rmaib freed its memory: MPIDIG must free none */
    (*win_p)->create_flavor = MPI_WIN_FLAVOR_CREATE;
    int mrc;
    MPIDIG_HALF(mrc = MPIDIG_mpi_win_free(win_p));
    return rc != MPI_SUCCESS ? rc : mrc;
}

int MPIDI_RMAIB_mpi_win_attach(MPIR_Win * win, void *base, MPI_Aint size)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_attach(win->handle, base, size));
}

int MPIDI_RMAIB_mpi_win_detach(MPIR_Win * win, const void *base)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_detach(win->handle, base));
}

int MPIDI_RMAIB_mpi_win_set_info(MPIR_Win * win, MPIR_Info * info)
{
    return MPIDIG_mpi_win_set_info(win, info);
}

/* MPICH's hints, and the keys rmaib honours with its values. */
int MPIDI_RMAIB_mpi_win_get_info(MPIR_Win * win, MPIR_Info ** info_p)
{
    int rc = MPIDIG_mpi_win_get_info(win, info_p);
    return rc == MPI_SUCCESS ?
        RMAIB_NM_OUTSIDE_CS(rmaib_nm_win_info_keys(win->handle, (*info_p)->handle)) : rc;
}

int MPIDI_RMAIB_win_shared_query(MPIR_Win * win, int rank, MPI_Aint * size, int *disp_unit,
                                 void *baseptr)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_shared_query(win->handle, rank, size, disp_unit,
                                                         baseptr));
}
