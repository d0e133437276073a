/*
 * librmaib-nm's interface to the ch4:rmaib glue: the drop-in binding's entry points
 * under names of their own (src/binding/mpi/nm_names.h), which return MPI error
 * codes without raising them, and the calls only a netmod needs.  Handles are
 * MPICH's own: a window's is that of the MPIR_Win the glue made, which rmaib adopts.
 */
#ifndef RMAIB_NM_H_INCLUDED
#define RMAIB_NM_H_INCLUDED

#include <mpi.h>

/* rmaib's window of MPI flavor `flavor` on comm, behind the host window `handle`;
 * *base_out is the window's base (rmaib's memory for the allocating flavors). */
int rmaib_nm_win_create(int flavor, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                        void *base, void **base_out, MPI_Win handle);
/* Add the info keys rmaib honours to info. */
int rmaib_nm_win_info_keys(MPI_Win win, MPI_Info info);
/* Serve rmaib's network endpoint once, from MPICH's progress engine. */
int rmaib_nm_progress(void);

/* MPI_Allreduce, MPI_Allgather and MPI_Alltoall for the glue's collective hooks
 * (rmaib_coll.c): an MPI error code, which MPICH raises, or RMAIB_NM_TO_MPICH for
 * a call MPICH's own algorithm should run: one rmaib makes itself (its host
 * collectives and fallbacks, which come back through the hooks), never a user's. */
#define RMAIB_NM_TO_MPICH (-1)
int rmaib_nm_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm);
int rmaib_nm_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm);
int rmaib_nm_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm);
/* Their non-blocking forms and MPI_Ibarrier: *req is the request's handle. */
int rmaib_nm_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req);
int rmaib_nm_iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req);
int rmaib_nm_ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req);
int rmaib_nm_ibarrier(MPI_Comm comm, MPI_Request *req);
/* Bracket MPICH's own work for rmaib (MPIDIG's half of a window): the collectives
 * it calls meanwhile are MPICH's, as rmaib's own are. */
void rmaib_nm_nested_enter(void);
void rmaib_nm_nested_leave(void);
/* With RMAIB_VERBOSE=1, say that MPICH's algorithm serves call because why. */
void rmaib_nm_coll_host(const char *call, const char *why);

/* The glue's fast path: rmaib's window behind the host window handle, which the
 * glue keeps in its MPIR_Win, and the hot calls on it, skipping the handle lookup
 * and the MPI_PROC_NULL test (MPICH's binding returns for it, error checking or
 * not); every other check of rmaib's stays. */
typedef struct rmaib_mpi_win rmaib_nm_win_t;
/* Where the glue keeps it: UCX's per-window table pointer, which only UCX's window
 * hooks and RMA use, and neither runs on an rmaib window (rmaib_noinline.h). */
#define MPIDI_RMAIB_WIN_PTR(win) ((win)->dev.netmod.ucx.info_table)
rmaib_nm_win_t *rmaib_nm_win_of(MPI_Win handle);
int rmaib_nm_put(rmaib_nm_win_t *w, const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                 MPI_Aint disp, int tcount, MPI_Datatype ttype);
int rmaib_nm_get(rmaib_nm_win_t *w, void *oaddr, int ocount, MPI_Datatype otype, int rank,
                 MPI_Aint disp, int tcount, MPI_Datatype ttype);
int rmaib_nm_accumulate(rmaib_nm_win_t *w, const void *oaddr, int ocount, MPI_Datatype otype,
                        int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op);
int rmaib_nm_fetch_and_op(rmaib_nm_win_t *w, const void *oaddr, void *raddr, MPI_Datatype type,
                          int rank, MPI_Aint disp, MPI_Op op);
int rmaib_nm_compare_and_swap(rmaib_nm_win_t *w, const void *oaddr, const void *caddr,
                              void *raddr, MPI_Datatype type, int rank, MPI_Aint disp);
int rmaib_nm_flush(rmaib_nm_win_t *w, int rank);
int rmaib_nm_flush_local(rmaib_nm_win_t *w, int rank);

int rmaib_nm_Win_free(MPI_Win *win);
int rmaib_nm_Win_attach(MPI_Win win, void *base, MPI_Aint size);
int rmaib_nm_Win_detach(MPI_Win win, const void *base);
int rmaib_nm_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                              void *baseptr);
int rmaib_nm_Put(const void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                 int tcount, MPI_Datatype ttype, MPI_Win win);
int rmaib_nm_Get(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                 int tcount, MPI_Datatype ttype, MPI_Win win);
int rmaib_nm_Rput(const void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                  int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req);
int rmaib_nm_Rget(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                  int tcount, MPI_Datatype ttype, MPI_Win win, MPI_Request *req);
int rmaib_nm_Accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                        MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win);
int rmaib_nm_Raccumulate(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                         MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                         MPI_Request *req);
int rmaib_nm_Get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                            int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                            int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win);
int rmaib_nm_Rget_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                             int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                             int tcount, MPI_Datatype ttype, MPI_Op op, MPI_Win win,
                             MPI_Request *req);
int rmaib_nm_Fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int rank,
                          MPI_Aint disp, MPI_Op op, MPI_Win win);
int rmaib_nm_Compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                              MPI_Datatype type, int rank, MPI_Aint disp, MPI_Win win);
int rmaib_nm_Win_start(MPI_Group group, int assert, MPI_Win win);
int rmaib_nm_Win_complete(MPI_Win win);
int rmaib_nm_Win_post(MPI_Group group, int assert, MPI_Win win);
int rmaib_nm_Win_wait(MPI_Win win);
int rmaib_nm_Win_test(MPI_Win win, int *flag);
int rmaib_nm_Win_lock(int lock_type, int rank, int assert, MPI_Win win);
int rmaib_nm_Win_unlock(int rank, MPI_Win win);
int rmaib_nm_Win_lock_all(int assert, MPI_Win win);
int rmaib_nm_Win_unlock_all(MPI_Win win);
int rmaib_nm_Win_fence(int assert, MPI_Win win);
int rmaib_nm_Win_flush(int rank, MPI_Win win);
int rmaib_nm_Win_flush_local(int rank, MPI_Win win);
int rmaib_nm_Win_flush_all(MPI_Win win);
int rmaib_nm_Win_flush_local_all(MPI_Win win);
int rmaib_nm_Win_sync(MPI_Win win);

/* rmaib's notified RMA (include/mpix_rmaib.h), which the glue exports as MPIX_*. */
int rmaib_nm_X_Rmaib_err_rma_notification(void);
int rmaib_nm_X_Put_notify(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                          MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx, MPI_Win win);
int rmaib_nm_X_Get_notify(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                          int tcount, MPI_Datatype ttype, int idx, MPI_Win win);
int rmaib_nm_X_Get_notify_local(void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx,
                                MPI_Win win);
int rmaib_nm_X_Accumulate_notify(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                 MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                                 int idx, MPI_Win win);
int rmaib_nm_X_Rput_notify(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx, MPI_Win win,
                           MPI_Request *req);
int rmaib_nm_X_Rget_notify(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                           int tcount, MPI_Datatype ttype, int idx, MPI_Win win,
                           MPI_Request *req);
int rmaib_nm_X_Win_set_num_notify(MPI_Win win, MPI_Info info, int num);
int rmaib_nm_X_Win_get_num_notify(MPI_Win win, int rank, int *num);
int rmaib_nm_X_Win_get_notify_value(MPI_Win win, int idx, MPI_Count *value);
int rmaib_nm_X_Win_reset_notify_value(MPI_Win win, int idx, MPI_Count *value);
int rmaib_nm_X_Win_wait_notify_value(MPI_Win win, int idx, MPI_Count threshold,
                                     MPI_Count *value);
int rmaib_nm_X_Win_notify_waitsome(MPI_Win win, int first, int count, int *idx);

#endif /* RMAIB_NM_H_INCLUDED */
