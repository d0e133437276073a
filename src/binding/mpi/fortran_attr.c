/*
 * MPI_Win_get_attr from Fortran.  MPICH's Fortran bindings (mpif.h and use mpi:
 * mpi_win_get_attr_; use mpi_f08: mpi_win_get_attr_f08_) read MPICH's attribute
 * store directly (MPII_Win_get_attr), never rmaib's MPI_Win_get_attr, so a window's
 * predefined attributes would be those of its zero-size shadow.  These answer the
 * predefined ones from rmaib and hand any other keyval to MPICH's own entry point.
 * Fortran receives attribute values, not pointers to them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <mpi.h>

#ifndef RMAIB_NETMOD

typedef void fortran_get_attr_fn(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *val,
                                 MPI_Fint *flag, MPI_Fint *ierror);

void mpi_win_get_attr_(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *val,
                       MPI_Fint *flag, MPI_Fint *ierror);
void mpi_win_get_attr_f08_(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *val,
                           MPI_Fint *flag, MPI_Fint *ierror);

/* The C keyval of a predefined window attribute's Fortran keyval, or 0.  MPICH
 * numbers the Fortran ones (mpif.h, mpi_f08) one above the C ones: that is how
 * it knows to hand Fortran values rather than pointers. */
static int c_keyval(int fortran_keyval)
{
    static const int c[] = { MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
                             MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (fortran_keyval == c[i] + 1)
            return c[i];
    return 0;
}

/* 1 and the value of a predefined attribute rmaib answers, else 0. */
static int predefined(MPI_Win win, int fortran_keyval, MPI_Aint *val, int *rc)
{
    void *p = NULL;
    int flag = 0, keyval = c_keyval(fortran_keyval);
    if (!keyval)
        return 0;
    *rc = MPI_Win_get_attr(win, keyval, &p, &flag);
    if (*rc != MPI_SUCCESS || !flag)
        *val = 0;
    else if (keyval == MPI_WIN_BASE)
        *val = (MPI_Aint) p;
    else if (keyval == MPI_WIN_SIZE)
        *val = *(MPI_Aint *) p;
    else
        *val = *(int *) p;
    return 1;
}

/* Either binding: rmaib's answer, or MPICH's entry point of the same name. */
static void get_attr(const char *name, const MPI_Fint *win, const MPI_Fint *keyval,
                     MPI_Aint *val, MPI_Fint *flag, MPI_Fint *ierror)
{
    int rc;
    if (predefined(MPI_Win_f2c(*win), (int) *keyval, val, &rc)) {
        *flag = rc == MPI_SUCCESS;
        if (ierror)
            *ierror = rc;
        return;
    }
    fortran_get_attr_fn *host = (fortran_get_attr_fn *) dlsym(RTLD_NEXT, name);
    if (host) {
        host(win, keyval, val, flag, ierror);
    } else if (ierror) {
        *ierror = MPI_ERR_INTERN;     /* no Fortran MPI behind us: cannot happen */
    }
}

void mpi_win_get_attr_(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *val,
                       MPI_Fint *flag, MPI_Fint *ierror)
{
    get_attr("mpi_win_get_attr_", win, keyval, val, flag, ierror);
}

void mpi_win_get_attr_f08_(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *val,
                           MPI_Fint *flag, MPI_Fint *ierror)
{
    get_attr("mpi_win_get_attr_f08_", win, keyval, val, flag, ierror);
}

#endif
