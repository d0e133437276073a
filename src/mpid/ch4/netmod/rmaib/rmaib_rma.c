/*
 * One-sided calls of ch4:rmaib, handed to rmaib (librmaib-nm) by the handles of
 * MPICH's objects; the request forms return rmaib's generalized request.
 */
#include "mpidimpl.h"
#include "rmaib_nm.h"

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
        return rmaib_nm_Put(oaddr, ocount, otype, rank, disp, tcount, ttype, win->handle);
    return request(rmaib_nm_Rput(oaddr, ocount, otype, rank, disp, tcount, ttype, win->handle,
                                 &h), h, req);
}

int MPIDI_RMAIB_get(void *oaddr, int ocount, MPI_Datatype otype, int rank, MPI_Aint disp,
                    int tcount, MPI_Datatype ttype, MPIR_Win * win, MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return rmaib_nm_Get(oaddr, ocount, otype, rank, disp, tcount, ttype, win->handle);
    return request(rmaib_nm_Rget(oaddr, ocount, otype, rank, disp, tcount, ttype, win->handle,
                                 &h), h, req);
}

int MPIDI_RMAIB_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                           MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op,
                           MPIR_Win * win, MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return rmaib_nm_Accumulate(oaddr, ocount, otype, rank, disp, tcount, ttype, op,
                                   win->handle);
    return request(rmaib_nm_Raccumulate(oaddr, ocount, otype, rank, disp, tcount, ttype, op,
                                        win->handle, &h), h, req);
}

int MPIDI_RMAIB_get_accumulate(const void *oaddr, int ocount, MPI_Datatype otype, void *raddr,
                               int rcount, MPI_Datatype rtype, int rank, MPI_Aint disp,
                               int tcount, MPI_Datatype ttype, MPI_Op op, MPIR_Win * win,
                               MPIR_Request ** req)
{
    MPI_Request h;
    if (!req)
        return rmaib_nm_Get_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, rank, disp,
                                       tcount, ttype, op, win->handle);
    return request(rmaib_nm_Rget_accumulate(oaddr, ocount, otype, raddr, rcount, rtype, rank,
                                            disp, tcount, ttype, op, win->handle, &h), h, req);
}

int MPIDI_RMAIB_fetch_and_op(const void *oaddr, void *raddr, MPI_Datatype type, int rank,
                             MPI_Aint disp, MPI_Op op, MPIR_Win * win)
{
    return rmaib_nm_Fetch_and_op(oaddr, raddr, type, rank, disp, op, win->handle);
}

int MPIDI_RMAIB_compare_and_swap(const void *oaddr, const void *caddr, void *raddr,
                                 MPI_Datatype type, int rank, MPI_Aint disp, MPIR_Win * win)
{
    return rmaib_nm_Compare_and_swap(oaddr, caddr, raddr, type, rank, disp, win->handle);
}

int MPIDI_RMAIB_win_start(MPIR_Group * group, int assert, MPIR_Win * win)
{
    return rmaib_nm_Win_start(group->handle, assert, win->handle);
}

int MPIDI_RMAIB_win_complete(MPIR_Win * win)
{
    return rmaib_nm_Win_complete(win->handle);
}

int MPIDI_RMAIB_win_post(MPIR_Group * group, int assert, MPIR_Win * win)
{
    return rmaib_nm_Win_post(group->handle, assert, win->handle);
}

int MPIDI_RMAIB_win_wait(MPIR_Win * win)
{
    return rmaib_nm_Win_wait(win->handle);
}

int MPIDI_RMAIB_win_test(MPIR_Win * win, int *flag)
{
    return rmaib_nm_Win_test(win->handle, flag);
}

int MPIDI_RMAIB_win_lock(int lock_type, int rank, int assert, MPIR_Win * win)
{
    return rmaib_nm_Win_lock(lock_type, rank, assert, win->handle);
}

int MPIDI_RMAIB_win_unlock(int rank, MPIR_Win * win)
{
    return rmaib_nm_Win_unlock(rank, win->handle);
}

int MPIDI_RMAIB_win_lock_all(int assert, MPIR_Win * win)
{
    return rmaib_nm_Win_lock_all(assert, win->handle);
}

int MPIDI_RMAIB_win_unlock_all(MPIR_Win * win)
{
    return rmaib_nm_Win_unlock_all(win->handle);
}

int MPIDI_RMAIB_win_fence(int assert, MPIR_Win * win)
{
    return rmaib_nm_Win_fence(assert, win->handle);
}

int MPIDI_RMAIB_win_flush(int rank, MPIR_Win * win)
{
    return rmaib_nm_Win_flush(rank, win->handle);
}

int MPIDI_RMAIB_win_flush_local(int rank, MPIR_Win * win)
{
    return rmaib_nm_Win_flush_local(rank, win->handle);
}

int MPIDI_RMAIB_win_flush_all(MPIR_Win * win)
{
    return rmaib_nm_Win_flush_all(win->handle);
}

int MPIDI_RMAIB_win_flush_local_all(MPIR_Win * win)
{
    return rmaib_nm_Win_flush_local_all(win->handle);
}

int MPIDI_RMAIB_win_sync(MPIR_Win * win)
{
    return rmaib_nm_Win_sync(win->handle);
}
