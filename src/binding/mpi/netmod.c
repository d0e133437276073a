/*
 * What only librmaib-nm, the binding inside MPICH's ch4:rmaib netmod, needs: window
 * creation behind the netmod's own MPIR_Win, its info keys, serving rmaib's network
 * endpoint from MPICH's progress engine, and the glue's fast path for the hot calls.
 */
#include <mpi.h>
#include "rmaib_nm.h"
#include "coll.h"
#include "errors.h"
#include "handles.h"
#include "host.h"
#include "rma.h"

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

/* host.h: rmaib's own collectives go to MPICH's algorithms (rmaib_nm.h). */
__thread int rmaib_nm_nested __attribute__((tls_model("initial-exec")));

int rmaib_nm_win_create(int flavor, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                        void *base, void **base_out, MPI_Win handle)
{
    MPI_Win win = MPI_WIN_NULL;
    int rc;
    RMAIB_NM_NESTED(rc = rmaib_mpi_win_create(rmaib_flavor(flavor), size, disp_unit, info,
                                              comm, base, NULL, handle, &win));
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

/* The collective hooks' entries: the drop-in's MPI_Allreduce, MPI_Allgather,
 * MPI_Alltoall (coll.c) and non-blocking calls (icoll.c), renamed, which leave
 * what rmaib does not serve to the host, that is to MPICH's algorithm, through the
 * hook again. */
#define ONCE(call) do { \
        if (rmaib_nm_nested) \
            return RMAIB_NM_TO_MPICH; \
        int rc_; \
        RMAIB_NM_NESTED(rc_ = (call)); \
        return rc_; \
    } while (0)

int rmaib_nm_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm)
{
    ONCE(MPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

int rmaib_nm_allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    ONCE(MPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int rmaib_nm_alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                      int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    ONCE(MPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int rmaib_nm_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                        MPI_Comm comm, MPI_Request *req)
{
    ONCE(MPI_Iallreduce(sbuf, rbuf, count, type, op, comm, req));
}

int rmaib_nm_iallgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                        int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    ONCE(MPI_Iallgather(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
}

int rmaib_nm_ialltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                       int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    ONCE(MPI_Ialltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm, req));
}

int rmaib_nm_ibarrier(MPI_Comm comm, MPI_Request *req)
{
    ONCE(MPI_Ibarrier(comm, req));
}

void rmaib_nm_nested_enter(void)
{
    rmaib_nm_nested++;
}

void rmaib_nm_nested_leave(void)
{
    rmaib_nm_nested--;
}

void rmaib_nm_coll_host(const char *call, const char *why)
{
    rmaib_mpi_host_register();
    rmaib_init();               /* reads RMAIB_VERBOSE, as the first collective would */
    rmaib_mpi_coll_say(call, NULL, NULL, why);
}

/* rmaib's own waits give MPICH's progress a turn (host.c), which comes back here:
 * serve the endpoint only when rmaib is not already on this thread's stack.  As a
 * poller (enter/leave), so the progress thread naps instead of waking on every
 * packet: over tcp the two fighting for the endpoint made put+flush 4-5 times
 * slower while the target sat in MPICH's barrier. */
__thread int rmaib_nm_busy __attribute__((tls_model("initial-exec")));

int rmaib_nm_progress(void)
{
    if (rmaib_nm_busy)
        return MPI_SUCCESS;
    /* Every wait in MPICH comes here: a rank waiting on MPICH's request still runs
     * the schedules its peers may wait on (reported when their requests are polled;
     * MPICH's progress is no place for MPI_Grequest_complete). */
    if (!rmaib_nm_nested && rmaib_coll_unfinished()) {
        rmaib_nm_busy++;
        rmaib_coll_advance();
        rmaib_nm_busy--;
    }
    if (!rmaib_poll_wanted())
        return MPI_SUCCESS;
    unsigned round = 0;
    rmaib_nm_busy++;
    rmaib_poll_enter();
    rmaib_poll(&round);
    rmaib_poll_leave();
    rmaib_nm_busy--;
    return MPI_SUCCESS;
}

/* The glue's fast path (rmaib_nm.h): the window by pointer, and no MPI_PROC_NULL
 * test, since MPICH's binding never passes it on; the checks are otherwise those of
 * the MPI_* entries. */
rmaib_nm_win_t *rmaib_nm_win_of(MPI_Win handle)
{
    return rmaib_mpi_win_find(handle);
}

int rmaib_nm_put(rmaib_nm_win_t *bw, const void *oaddr, int ocount, MPI_Datatype otype, int rank,
                 MPI_Aint disp, int tcount, MPI_Datatype ttype)
{
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK)
        rerr = rmaib_put_inline(bw->core, oaddr, (size_t) ocount, ol, rank, disp,
                                (size_t) tcount, tl, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

int rmaib_nm_get(rmaib_nm_win_t *bw, void *oaddr, int ocount, MPI_Datatype otype, int rank,
                 MPI_Aint disp, int tcount, MPI_Datatype ttype)
{
    const rmaib_layout_t *ol, *tl;
    int e, rerr = rmaib_mpi_rma_resolve(ocount, otype, tcount, ttype, &ol, &tl, &e);
    if (rerr == RMAIB_OK)
        rerr = rmaib_get_inline(bw->core, oaddr, (size_t) ocount, ol, rank, disp,
                                (size_t) tcount, tl, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

int rmaib_nm_accumulate(rmaib_nm_win_t *bw, const void *oaddr, int ocount, MPI_Datatype otype,
                        int rank, MPI_Aint disp, int tcount, MPI_Datatype ttype, MPI_Op op)
{
    const rmaib_layout_t *ol, *tl;
    rmaib_op_t rop;
    int rerr = rmaib_mpi_acc_resolve(ocount, otype, tcount, ttype, op, &ol, &tl, &rop);
    if (rerr == RMAIB_OK)
        rerr = rmaib_accumulate_inline(bw->core, oaddr, (size_t) ocount, ol, rank, disp,
                                       (size_t) tcount, tl, rop, 0);
    return rmaib_mpi_win_ret(bw, rerr);
}

int rmaib_nm_fetch_and_op(rmaib_nm_win_t *bw, const void *oaddr, void *raddr, MPI_Datatype type,
                          int rank, MPI_Aint disp, MPI_Op op)
{
    const rmaib_layout_t *l = rmaib_mpi_layout_named(type);
    rmaib_op_t rop = rmaib_mpi_op_of(op);
    int rerr = !rop ? RMAIB_ERR_OP : !l ? RMAIB_ERR_TYPE
        : rmaib_fetch_and_op_inline(bw->core, oaddr, raddr, l, rank, disp, rop);
    return rmaib_mpi_win_ret(bw, rerr);
}

int rmaib_nm_compare_and_swap(rmaib_nm_win_t *bw, const void *oaddr, const void *caddr,
                              void *raddr, MPI_Datatype type, int rank, MPI_Aint disp)
{
    const rmaib_layout_t *l = rmaib_mpi_layout_named(type);
    int rerr = !l ? RMAIB_ERR_TYPE
        : rmaib_compare_and_swap_inline(bw->core, oaddr, caddr, raddr, l, rank, disp);
    return rmaib_mpi_win_ret(bw, rerr);
}

int rmaib_nm_flush(rmaib_nm_win_t *bw, int rank)
{
    return rmaib_mpi_win_ret(bw, rmaib_flush_inline(bw->core, rank));
}

int rmaib_nm_flush_local(rmaib_nm_win_t *bw, int rank)
{
    return rmaib_mpi_win_ret(bw, rmaib_flush_local(bw->core, rank));
}
