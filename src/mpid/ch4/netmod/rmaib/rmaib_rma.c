/*
 * One-sided calls of ch4:rmaib, handed to rmaib (librmaib-nm) by the handles of
 * MPICH's objects; the request forms return a complete MPICH request.  Also the
 * MPIX_ notified RMA calls, which libmpi exports.
 */
#include "mpidimpl.h"
#include "rmaib_nm.h"
#include "rmaib_cs.h"

/* rmaib's window behind win, stored at its creation (rmaib_win.c): the hot calls
 * reach it without the handle lookup.  MPICH's binding has returned for
 * MPI_PROC_NULL before they are called. */
#define RW(win) ((rmaib_nm_win_t *) (void *) MPIDI_RMAIB_WIN_PTR(win))

int MPIDI_RMAIB_progress(void)
{
    return rmaib_nm_progress();
}

/* The request of an R-form call: rmaib completes the operation before it returns
 * (librmaib-nm hands out no request), so the request is complete at birth. */
static int request(int rc, MPI_Request h, MPIR_Request ** req)
{
    (void) h;
    if (rc != MPI_SUCCESS)
        return rc;
    *req = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
    return *req ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int MPIDI_RMAIB_put(const void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPIR_Win * win, MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return RMAIB_NM_OUTSIDE_CS(
            rmaib_nm_put(RW(win), oaddr, ocount, otype, rank, disp, tcount, ttype));
    return request(RMAIB_NM_OUTSIDE_CS(rmaib_nm_Rput(oaddr, ocount, otype, rank, disp, tcount,
                                                     ttype, win->handle, &h)),
                   h, req);
}

int MPIDI_RMAIB_get(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPIR_Win * win, MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return RMAIB_NM_OUTSIDE_CS(
            rmaib_nm_get(RW(win), oaddr, ocount, otype, rank, disp, tcount, ttype));
    return request(RMAIB_NM_OUTSIDE_CS(rmaib_nm_Rget(oaddr, ocount, otype, rank, disp, tcount,
                                                     ttype, win->handle, &h)),
                   h, req);
}

int MPIDI_RMAIB_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                           MPIR_Win * win, MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return RMAIB_NM_OUTSIDE_CS(
            rmaib_nm_accumulate(RW(win), oaddr, ocount, otype, rank, disp, tcount, ttype, op));
    return request(RMAIB_NM_OUTSIDE_CS(rmaib_nm_Raccumulate(oaddr, ocount, otype, rank, disp,
                                                            tcount, ttype, op, win->handle, &h)),
                   h, req);
}

int MPIDI_RMAIB_get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                               int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                               int tcount, MPI_Datatype ttype, MPI_Op op, MPIR_Win * win,
                               MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Get_accumulate(oaddr, ocount, otype, raddr, rcount,
                                                           rtype, rank, disp, tcount, ttype, op,
                                                           win->handle));
    return request(RMAIB_NM_OUTSIDE_CS(rmaib_nm_Rget_accumulate(oaddr, ocount, otype, raddr, rcount,
                                                                rtype, rank, disp, tcount, ttype,
                                                                op, win->handle, &h)),
                   h, req);
}

int MPIDI_RMAIB_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int rank,
                             MPI_Aint disp, MPI_Op op, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_fetch_and_op(RW(win), oaddr, raddr, type, rank, disp, op));
}

int MPIDI_RMAIB_compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                                 MPI_Datatype type, int rank, MPI_Aint disp, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(
        rmaib_nm_compare_and_swap(RW(win), oaddr, caddr, raddr, type, rank, disp));
}

int MPIDI_RMAIB_win_start(MPIR_Group * group, int assert, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_start(group->handle, assert, win->handle));
}

int MPIDI_RMAIB_win_complete(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_complete(win->handle));
}

int MPIDI_RMAIB_win_post(MPIR_Group * group, int assert, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_post(group->handle, assert, win->handle));
}

int MPIDI_RMAIB_win_wait(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_wait(win->handle));
}

int MPIDI_RMAIB_win_test(MPIR_Win * win, int *flag)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_test(win->handle, flag));
}

int MPIDI_RMAIB_win_lock(int lock_type, int rank, int assert, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_lock(lock_type, rank, assert, win->handle));
}

int MPIDI_RMAIB_win_unlock(int rank, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_unlock(rank, win->handle));
}

int MPIDI_RMAIB_win_lock_all(int assert, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_lock_all(assert, win->handle));
}

int MPIDI_RMAIB_win_unlock_all(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_unlock_all(win->handle));
}

int MPIDI_RMAIB_win_fence(int assert, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_fence(assert, win->handle));
}

int MPIDI_RMAIB_win_flush(int rank, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_flush(RW(win), rank));
}

int MPIDI_RMAIB_win_flush_local(int rank, MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_flush_local(RW(win), rank));
}

int MPIDI_RMAIB_win_flush_all(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_flush_all(win->handle));
}

int MPIDI_RMAIB_win_flush_local_all(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_flush_local_all(win->handle));
}

int MPIDI_RMAIB_win_sync(MPIR_Win * win)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_Win_sync(win->handle));
}

/* Notified RMA (include/mpix_rmaib.h, installed into the prefix): libmpi exports
 * the MPIX_ calls so an application needs only mpicc; rmaib does the work and the
 * error goes through the window's handler here, as MPICH's MPI_ layer does for
 * the rest.  An unknown window is MPI_COMM_WORLD's error. */
static int notify_ret(MPI_Win win, int rc, const char *fn)
{
    MPIR_Win *w = NULL;
    if (rc == MPI_SUCCESS)
        return rc;
    if (rc != MPI_ERR_WIN)
        MPIR_Win_get_ptr(win, w);
    return w ? MPIR_Err_return_win(w, fn, rc) : MPIR_Err_return_comm(NULL, fn, rc);
}

/* rmaib completes a notified R-form before returning: MPICH's own complete request. */
static int notify_request(MPI_Win win, int rc, MPI_Request * req, const char *fn)
{
    if (rc == MPI_SUCCESS) {
        MPIR_Request *r = MPIR_Request_create_complete(MPIR_REQUEST_KIND__RMA);
        if (!r)
            rc = MPI_ERR_NO_MEM;
        else
            *req = r->handle;
    }
    return notify_ret(win, rc, fn);
}

MPICH_API_PUBLIC int MPIX_Rmaib_err_rma_notification(void)
{
    return RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Rmaib_err_rma_notification());
}

MPICH_API_PUBLIC int MPIX_Put_notify(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                     MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx,
                                     MPI_Win win)
{
    return notify_ret(win,
                      RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Put_notify(oaddr, ocount, otype, rank, disp,
                                                                tcount, ttype, idx, win)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Get_notify(void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                     MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx,
                                     MPI_Win win)
{
    return notify_ret(win,
                      RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Get_notify(oaddr, ocount, otype, rank, disp,
                                                                tcount, ttype, idx, win)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Get_notify_local(void *oaddr, int ocount, MPI_Datatype otype,
                                           int rank, MPI_Aint disp, int tcount,
                                           MPI_Datatype ttype, int idx, MPI_Win win)
{
    return notify_ret(win,
                      RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Get_notify_local(
                          oaddr, ocount, otype, rank, disp, tcount, ttype, idx, win)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Accumulate_notify(const void *oaddr, int ocount, MPI_Datatype otype,
                                            int rank, MPI_Aint disp, int tcount,
                                            MPI_Datatype ttype, MPI_Op op, int idx, MPI_Win win)
{
    return notify_ret(win,
                      RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Accumulate_notify(
                          oaddr, ocount, otype, rank, disp, tcount, ttype, op, idx, win)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Rput_notify(const void *oaddr, int ocount, MPI_Datatype otype,
                                      int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype,
                                      int idx, MPI_Win win, MPI_Request * req)
{
    return notify_request(win,
                          RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Rput_notify(
                              oaddr, ocount, otype, rank, disp, tcount, ttype, idx, win, req)),
                          req, __func__);
}

MPICH_API_PUBLIC int MPIX_Rget_notify(void *oaddr, int ocount, MPI_Datatype otype, int rank,
                                      MPI_Aint disp, int tcount, MPI_Datatype ttype, int idx,
                                      MPI_Win win, MPI_Request * req)
{
    return notify_request(win,
                          RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Rget_notify(
                              oaddr, ocount, otype, rank, disp, tcount, ttype, idx, win, req)),
                          req, __func__);
}

MPICH_API_PUBLIC int MPIX_Win_set_num_notify(MPI_Win win, MPI_Info info, int num)
{
    return notify_ret(win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_set_num_notify(win, info, num)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Win_get_num_notify(MPI_Win win, int rank, int *num)
{
    return notify_ret(win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_get_num_notify(win, rank, num)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Win_get_notify_value(MPI_Win win, int idx, MPI_Count * value)
{
    return notify_ret(win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_get_notify_value(win, idx, value)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Win_reset_notify_value(MPI_Win win, int idx, MPI_Count * value)
{
    return notify_ret(win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_reset_notify_value(win, idx, value)),
                      __func__);
}

MPICH_API_PUBLIC int MPIX_Win_wait_notify_value(MPI_Win win, int idx, MPI_Count threshold,
                                                MPI_Count * value)
{
    return notify_ret(
        win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_wait_notify_value(win, idx, threshold, value)),
        __func__);
}

MPICH_API_PUBLIC int MPIX_Win_notify_waitsome(MPI_Win win, int first, int count, int *idx)
{
    return notify_ret(
        win, RMAIB_NM_OUTSIDE_CS(rmaib_nm_X_Win_notify_waitsome(win, first, count, idx)), __func__);
}
