/*
 * rmaib's state behind each MPI_Win handle of the drop-in library.  Every rmaib
 * window stands behind a genuine zero-size host window on MPI_COMM_SELF (the
 * shadow), so calls rmaib does not take over (names, keyvals, error handlers,
 * Fortran conversion) work on a valid handle.  The shadow is local, so creating it
 * costs no collective; MPI_Win_get_group, the one call whose answer depends on the
 * window's communicator, is rmaib's.
 */
#ifndef RMAIB_BINDING_HANDLES_H_INCLUDED
#define RMAIB_BINDING_HANDLES_H_INCLUDED

#include <mpi.h>
#include "rmaib.h"

/* A private duplicate of a user communicator, where rmaib's own collectives run.
 * Every window created on that communicator shares it (the duplicate is cached on
 * the communicator as an attribute), so creating a window costs no MPI_Comm_dup
 * after the first.  refs counts the windows and the attribute. */
typedef struct rmaib_mpi_dup {
    MPI_Comm comm;
    int refs;
    rmaib_comm_dir_t *dir;  /* what the first window learnt of the ranks */
} rmaib_mpi_dup_t;

typedef struct rmaib_mpi_win {
    MPI_Win shadow;         /* the handle the user holds */
    MPI_Comm comm;          /* dup->comm */
    rmaib_mpi_dup_t *dup;
    rmaib_win_t *core;
    /* predefined attribute values: MPI hands out pointers to them */
    void *attr_base;
    MPI_Aint attr_size;
    int attr_disp_unit;
    int attr_flavor;
    int attr_model;
    int adopted;            /* shadow is the netmod's host window, not rmaib's own */
    MPI_Info hints;         /* the standard hints in use (win_hints.c) */
} rmaib_mpi_win_t;

/* The rmaib window behind handle w, or NULL.  The window of the last lookup is
 * checked inline: an RMA loop uses one window over and over. */
extern rmaib_mpi_win_t *rmaib_mpi_win_last __attribute__((visibility("hidden")));
rmaib_mpi_win_t *rmaib_mpi_win_lookup(MPI_Win w);
static inline rmaib_mpi_win_t *rmaib_mpi_win_hit(MPI_Win w)
{
    rmaib_mpi_win_t *last = __atomic_load_n(&rmaib_mpi_win_last, __ATOMIC_RELAXED);
    return __builtin_expect(last && last->shadow == w, 1) ? last : NULL;
}
static inline rmaib_mpi_win_t *rmaib_mpi_win_find(MPI_Win w)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_hit(w);
    return bw ? bw : rmaib_mpi_win_lookup(w);
}
int rmaib_mpi_win_insert(rmaib_mpi_win_t *bw);
void rmaib_mpi_win_remove(MPI_Win w);

/* A window of rmaib (RMAIB_FLAVOR_*) on comm, behind the host window adopt (the
 * netmod's) or, given MPI_WIN_NULL, behind a shadow of its own handed out in *win;
 * baseptr receives the base of allocated memory. */
int rmaib_mpi_win_create(int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                         MPI_Comm comm, void *base, void *baseptr, MPI_Win adopt, MPI_Win *win);
/* MPI_Win_shared_query and its _c form (disp_unit NULL, disp_unit_c set). */
int rmaib_mpi_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                               MPI_Aint *disp_unit_c, void *baseptr);
/* MPI_Win_set_info. */
int rmaib_mpi_win_set_info(MPI_Win win, MPI_Info info);
/* win_hints.c: record the standard hints of info (at creation, first MPI's
 * defaults); set them in info_used; free the record. */
void rmaib_mpi_win_hints_record(rmaib_mpi_win_t *bw, MPI_Info info);
void rmaib_mpi_win_hints_add(const rmaib_mpi_win_t *bw, MPI_Info info_used);
void rmaib_mpi_win_hints_free(rmaib_mpi_win_t *bw);
/* Add the info keys rmaib honours, with bw's values, to info_used. */
void rmaib_mpi_win_info_keys(const rmaib_mpi_win_t *bw, MPI_Info info_used);

#endif
