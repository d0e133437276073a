/*
 * One-sided communication of ch4:rmaib: every inline netmod call of the RMA API
 * forwards to an out-of-line one of the glue (rmaib_rma.c), which hands it to rmaib.
 * MPIDIG's active-message RMA is never used, so its completion hooks have nothing
 * to complete.  The progress call serves rmaib's network endpoint after UCX's.
 */
#ifndef RMAIB_RMA_H_INCLUDED
#define RMAIB_RMA_H_INCLUDED

/* UCX's progress under another name, called by ch4:rmaib's. */
#define MPIDI_NM_progress MPIDI_RMAIB_ucx_progress
#include "../ucx/ucx_progress.h"
#undef MPIDI_NM_progress

int MPIDI_RMAIB_progress(void);
int MPIDI_RMAIB_put(const void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPIR_Win * win, MPIR_Request ** req);
int MPIDI_RMAIB_get(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPIR_Win * win, MPIR_Request ** req);
int MPIDI_RMAIB_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                           MPIR_Win * win, MPIR_Request ** req);
int MPIDI_RMAIB_get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                               int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                               int tcount, MPI_Datatype ttype, MPI_Op op, MPIR_Win * win,
                               MPIR_Request ** req);
int MPIDI_RMAIB_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int rank,
                             MPI_Aint disp, MPI_Op op, MPIR_Win * win);
int MPIDI_RMAIB_compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                                 MPI_Datatype type, int rank, MPI_Aint disp, MPIR_Win * win);
int MPIDI_RMAIB_win_start(MPIR_Group * group, int assert, MPIR_Win * win);
int MPIDI_RMAIB_win_complete(MPIR_Win * win);
int MPIDI_RMAIB_win_post(MPIR_Group * group, int assert, MPIR_Win * win);
int MPIDI_RMAIB_win_wait(MPIR_Win * win);
int MPIDI_RMAIB_win_test(MPIR_Win * win, int *flag);
int MPIDI_RMAIB_win_lock(int lock_type, int rank, int assert, MPIR_Win * win);
int MPIDI_RMAIB_win_unlock(int rank, MPIR_Win * win);
int MPIDI_RMAIB_win_lock_all(int assert, MPIR_Win * win);
int MPIDI_RMAIB_win_unlock_all(MPIR_Win * win);
int MPIDI_RMAIB_win_fence(int assert, MPIR_Win * win);
int MPIDI_RMAIB_win_flush(int rank, MPIR_Win * win);
int MPIDI_RMAIB_win_flush_local(int rank, MPIR_Win * win);
int MPIDI_RMAIB_win_flush_all(MPIR_Win * win);
int MPIDI_RMAIB_win_flush_local_all(MPIR_Win * win);
int MPIDI_RMAIB_win_sync(MPIR_Win * win);
int MPIDI_RMAIB_win_shared_query(MPIR_Win * win, int rank, MPI_Aint * size, int *disp_unit,
                                 void *baseptr);

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_progress(int vci, int blocking)
{
    int mpi_errno = MPIDI_RMAIB_ucx_progress(vci, blocking);
    return mpi_errno == MPI_SUCCESS ? MPIDI_RMAIB_progress() : mpi_errno;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_put(const void *origin_addr, int origin_count,
                                              MPI_Datatype origin_datatype, int target_rank,
                                              MPI_Aint target_disp, int target_count,
                                              MPI_Datatype target_datatype, MPIR_Win * win,
                                              MPIDI_av_entry_t * addr, MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_rput(const void *origin_addr, int origin_count,
                                               MPI_Datatype origin_datatype, int target_rank,
                                               MPI_Aint target_disp, int target_count,
                                               MPI_Datatype target_datatype, MPIR_Win * win,
                                               MPIDI_av_entry_t * addr,
                                               MPIDI_winattr_t winattr, MPIR_Request ** request)
{
    return MPIDI_RMAIB_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win, request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_get(void *origin_addr, int origin_count,
                                              MPI_Datatype origin_datatype, int target_rank,
                                              MPI_Aint target_disp, int target_count,
                                              MPI_Datatype target_datatype, MPIR_Win * win,
                                              MPIDI_av_entry_t * addr, MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_rget(void *origin_addr, int origin_count,
                                               MPI_Datatype origin_datatype, int target_rank,
                                               MPI_Aint target_disp, int target_count,
                                               MPI_Datatype target_datatype, MPIR_Win * win,
                                               MPIDI_av_entry_t * addr,
                                               MPIDI_winattr_t winattr, MPIR_Request ** request)
{
    return MPIDI_RMAIB_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                           target_count, target_datatype, win, request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_accumulate(const void *origin_addr, int origin_count,
                                                     MPI_Datatype origin_datatype,
                                                     int target_rank, MPI_Aint target_disp,
                                                     int target_count,
                                                     MPI_Datatype target_datatype, MPI_Op op,
                                                     MPIR_Win * win, MPIDI_av_entry_t * addr,
                                                     MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                  target_disp, target_count, target_datatype, op, win, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_raccumulate(const void *origin_addr, int origin_count,
                                                      MPI_Datatype origin_datatype,
                                                      int target_rank, MPI_Aint target_disp,
                                                      int target_count,
                                                      MPI_Datatype target_datatype, MPI_Op op,
                                                      MPIR_Win * win, MPIDI_av_entry_t * addr,
                                                      MPIDI_winattr_t winattr,
                                                      MPIR_Request ** request)
{
    return MPIDI_RMAIB_accumulate(origin_addr, origin_count, origin_datatype, target_rank,
                                  target_disp, target_count, target_datatype, op, win, request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_get_accumulate(const void *origin_addr,
                                                         int origin_count,
                                                         MPI_Datatype origin_datatype,
                                                         void *result_addr, int result_count,
                                                         MPI_Datatype result_datatype,
                                                         int target_rank, MPI_Aint target_disp,
                                                         int target_count,
                                                         MPI_Datatype target_datatype,
                                                         MPI_Op op, MPIR_Win * win,
                                                         MPIDI_av_entry_t * addr,
                                                         MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                      result_count, result_datatype, target_rank, target_disp,
                                      target_count, target_datatype, op, win, NULL);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_rget_accumulate(const void *origin_addr,
                                                          int origin_count,
                                                          MPI_Datatype origin_datatype,
                                                          void *result_addr, int result_count,
                                                          MPI_Datatype result_datatype,
                                                          int target_rank,
                                                          MPI_Aint target_disp,
                                                          int target_count,
                                                          MPI_Datatype target_datatype,
                                                          MPI_Op op, MPIR_Win * win,
                                                          MPIDI_av_entry_t * addr,
                                                          MPIDI_winattr_t winattr,
                                                          MPIR_Request ** request)
{
    return MPIDI_RMAIB_get_accumulate(origin_addr, origin_count, origin_datatype, result_addr,
                                      result_count, result_datatype, target_rank, target_disp,
                                      target_count, target_datatype, op, win, request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_fetch_and_op(const void *origin_addr,
                                                       void *result_addr,
                                                       MPI_Datatype datatype, int target_rank,
                                                       MPI_Aint target_disp, MPI_Op op,
                                                       MPIR_Win * win, MPIDI_av_entry_t * addr,
                                                       MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_fetch_and_op(origin_addr, result_addr, datatype, target_rank,
                                    target_disp, op, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_compare_and_swap(const void *origin_addr,
                                                           const void *compare_addr,
                                                           void *result_addr,
                                                           MPI_Datatype datatype,
                                                           int target_rank,
                                                           MPI_Aint target_disp,
                                                           MPIR_Win * win,
                                                           MPIDI_av_entry_t * addr,
                                                           MPIDI_winattr_t winattr)
{
    return MPIDI_RMAIB_compare_and_swap(origin_addr, compare_addr, result_addr, datatype,
                                        target_rank, target_disp, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_start(MPIR_Group * group, int assert,
                                                    MPIR_Win * win)
{
    return MPIDI_RMAIB_win_start(group, assert, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_complete(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_complete(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_post(MPIR_Group * group, int assert,
                                                   MPIR_Win * win)
{
    return MPIDI_RMAIB_win_post(group, assert, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_wait(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_wait(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_test(MPIR_Win * win, int *flag)
{
    return MPIDI_RMAIB_win_test(win, flag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_lock(int lock_type, int rank, int assert,
                                                   MPIR_Win * win, MPIDI_av_entry_t * addr)
{
    return MPIDI_RMAIB_win_lock(lock_type, rank, assert, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_unlock(int rank, MPIR_Win * win,
                                                     MPIDI_av_entry_t * addr)
{
    return MPIDI_RMAIB_win_unlock(rank, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_lock_all(int assert, MPIR_Win * win)
{
    return MPIDI_RMAIB_win_lock_all(assert, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_unlock_all(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_unlock_all(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_fence(int assert, MPIR_Win * win)
{
    return MPIDI_RMAIB_win_fence(assert, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush(int rank, MPIR_Win * win,
                                                    MPIDI_av_entry_t * addr)
{
    return MPIDI_RMAIB_win_flush(rank, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_local(int rank, MPIR_Win * win,
                                                          MPIDI_av_entry_t * addr)
{
    return MPIDI_RMAIB_win_flush_local(rank, win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_all(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_flush_all(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_flush_local_all(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_flush_local_all(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_sync(MPIR_Win * win)
{
    return MPIDI_RMAIB_win_sync(win);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_win_shared_query(MPIR_Win * win, int rank,
                                                           MPI_Aint * size, int *disp_unit,
                                                           void *baseptr)
{
    return MPIDI_RMAIB_win_shared_query(win, rank, size, disp_unit, baseptr);
}

/* MPIDIG's RMA (their only caller) never runs on an rmaib window. */
MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rma_win_cmpl_hook(MPIR_Win * win)
{
    return MPI_SUCCESS;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rma_win_local_cmpl_hook(MPIR_Win * win)
{
    return MPI_SUCCESS;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rma_target_cmpl_hook(int rank, MPIR_Win * win)
{
    return MPI_SUCCESS;
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_rma_target_local_cmpl_hook(int rank, MPIR_Win * win)
{
    return MPI_SUCCESS;
}

#endif /* RMAIB_RMA_H_INCLUDED */
