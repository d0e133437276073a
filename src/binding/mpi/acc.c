/*
 * The accumulate family's hand-written part: MPI's predefined ops, the resolution
 * the notified form (notify.c) and the netmod share, and MPI_Fetch_and_op and
 * MPI_Compare_and_swap, which have no _c form.  MPI_Accumulate, MPI_Get_accumulate
 * and their R- and _c forms are generated (api.txt) over acc.h's bodies.
 */
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "request.h"
#include "acc.h"

rmaib_op_t rmaib_mpi_op_of(MPI_Op op)
{
    static const struct {
        MPI_Op mpi;
        rmaib_op_t op;
    } map[] = {
        { MPI_SUM, RMAIB_OP_SUM }, { MPI_PROD, RMAIB_OP_PROD }, { MPI_MAX, RMAIB_OP_MAX },
        { MPI_MIN, RMAIB_OP_MIN }, { MPI_LAND, RMAIB_OP_LAND }, { MPI_LOR, RMAIB_OP_LOR },
        { MPI_LXOR, RMAIB_OP_LXOR }, { MPI_BAND, RMAIB_OP_BAND }, { MPI_BOR, RMAIB_OP_BOR },
        { MPI_BXOR, RMAIB_OP_BXOR }, { MPI_MAXLOC, RMAIB_OP_MAXLOC },
        { MPI_MINLOC, RMAIB_OP_MINLOC }, { MPI_REPLACE, RMAIB_OP_REPLACE },
        { MPI_NO_OP, RMAIB_OP_NO_OP },
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].mpi == op)
            return map[i].op;
    return 0;
}

int rmaib_mpi_acc_resolve(MPI_Count ocount, MPI_Datatype otype, MPI_Count tcount,
                          MPI_Datatype ttype, MPI_Op mop, const rmaib_layout_t **ol,
                          const rmaib_layout_t **tl, rmaib_op_t *op)
{
    return rmaib_mpi_acc_resolve_inline(ocount, otype, tcount, ttype, mop, ol, tl, op);
}

/* Fetch_and_op and Compare_and_swap take one element of "a predefined datatype"
 * (MPI-3.1 §11.3.4): a derived type, even one that is a single int, is MPI_ERR_TYPE.
 * Both are the latency-bound calls of the family, so they go straight to the core. */
static inline __attribute__((always_inline)) int fetch_and_op(rmaib_mpi_win_t *bw, const void *obuf, void *rbuf,
                               MPI_Datatype dt, int target, MPI_Aint tdisp, MPI_Op op,
                               MPI_Win win)
{
    const rmaib_layout_t *l = rmaib_mpi_layout_named(dt);
    rmaib_op_t rop = rmaib_mpi_op_of(op);
    int rerr = !rop ? RMAIB_ERR_OP : !l ? RMAIB_ERR_TYPE : RMAIB_OK;
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_fetch_and_op_inline(bw->core, obuf, rbuf, l, target, tdisp, rop);
    return rmaib_mpi_win_ret_handle(win, rerr);
}

static __attribute__((noinline)) int fetch_and_op_lookup(const void *obuf, void *rbuf,
                                                         MPI_Datatype dt, int target,
                                                         MPI_Aint tdisp, MPI_Op op, MPI_Win win)
{
    LOOKUP(win, bw);
    return fetch_and_op(bw, obuf, rbuf, dt, target, tdisp, op, win);
}

/* (the last window inline, any other out of line, as sync.c's lock and flush) */
int MPI_Fetch_and_op(const void *obuf, void *rbuf, MPI_Datatype dt, int target,
                     MPI_Aint tdisp, MPI_Op op, MPI_Win win)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_hit(win);
    return bw ? fetch_and_op(bw, obuf, rbuf, dt, target, tdisp, op, win)
        : fetch_and_op_lookup(obuf, rbuf, dt, target, tdisp, op, win);
}

static inline __attribute__((always_inline)) int compare_and_swap(rmaib_mpi_win_t *bw, const void *obuf, const void *cbuf,
                                   void *rbuf, MPI_Datatype dt, int target, MPI_Aint tdisp,
                                   MPI_Win win)
{
    const rmaib_layout_t *l = rmaib_mpi_layout_named(dt);
    int rerr = l ? RMAIB_OK : RMAIB_ERR_TYPE;
    if (rerr == RMAIB_OK && target != MPI_PROC_NULL)
        rerr = rmaib_compare_and_swap_inline(bw->core, obuf, cbuf, rbuf, l, target, tdisp);
    return rmaib_mpi_win_ret_handle(win, rerr);
}

static __attribute__((noinline)) int compare_and_swap_lookup(const void *obuf, const void *cbuf,
                                                             void *rbuf, MPI_Datatype dt,
                                                             int target, MPI_Aint tdisp,
                                                             MPI_Win win)
{
    LOOKUP(win, bw);
    return compare_and_swap(bw, obuf, cbuf, rbuf, dt, target, tdisp, win);
}

int MPI_Compare_and_swap(const void *obuf, const void *cbuf, void *rbuf, MPI_Datatype dt,
                         int target, MPI_Aint tdisp, MPI_Win win)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_hit(win);
    return bw ? compare_and_swap(bw, obuf, cbuf, rbuf, dt, target, tdisp, win)
        : compare_and_swap_lookup(obuf, cbuf, rbuf, dt, target, tdisp, win);
}
