/*
 * rmaib's state behind each MPI_Win handle of the drop-in library.  Every rmaib
 * window stands behind a genuine zero-size host window (the shadow), so calls rmaib
 * does not take over (names, keyvals, error handlers, groups, Fortran conversion)
 * work on a valid handle.
 */
#ifndef RMAIB_BINDING_HANDLES_H_INCLUDED
#define RMAIB_BINDING_HANDLES_H_INCLUDED

#include <mpi.h>
#include "rmaib.h"

typedef struct rmaib_mpi_win {
    MPI_Win shadow;         /* the handle the user holds */
    MPI_Comm comm;          /* private duplicate: rmaib's own collectives run here */
    rmaib_win_t *core;
    /* predefined attribute values: MPI hands out pointers to them */
    void *attr_base;
    MPI_Aint attr_size;
    int attr_disp_unit;
    int attr_flavor;
    int attr_model;
} rmaib_mpi_win_t;

/* The rmaib window behind handle w, or NULL. */
rmaib_mpi_win_t *rmaib_mpi_win_find(MPI_Win w);
int rmaib_mpi_win_insert(rmaib_mpi_win_t *bw);
void rmaib_mpi_win_remove(MPI_Win w);

#endif
