/*
 * MPI_Allreduce, MPI_Allgather and MPI_Alltoall of the drop-in library (the bodies
 * of the int and _c forms generated from api.txt), on rmaib's
 * collective windows (src/coll_overlay) for intracommunicators, predefined ops and
 * contiguous types built from one basic type; everything else (user-defined ops,
 * intercommunicators, non-contiguous types, send and receive sizes that differ)
 * goes to the host MPI, which judges it as it would without rmaib.
 * RMAIB_VERBOSE=1 says which path served each call.
 */
#include <limits.h>
#include <string.h>
#include "base/reduce.h"
#include "coll.h"
#include "datatype.h"
#include "errors.h"
#include "host.h"
#include "rma.h"
#include "serve.h"

/* A contiguous type: MPI_SUCCESS, RMAIB_MPI_TO_HOST for any other, or its error class. */
static int contig_type(MPI_Datatype dt, const rmaib_layout_t **l)
{
    int err = MPI_ERR_TYPE;
    if (dt == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    *l = rmaib_mpi_layout(dt, &err);
    if (!*l)
        return err;
    return (*l)->contig ? MPI_SUCCESS : RMAIB_MPI_TO_HOST;
}

static int reduce_args(const void *sbuf, const void *rbuf, MPI_Count count, MPI_Datatype dt,
                       MPI_Op mop, rmaib_basic_t *b, rmaib_op_t *op, size_t *n)
{
    const rmaib_layout_t *l;
    if (count < 0)
        return MPI_ERR_COUNT;
    if (mop == MPI_OP_NULL)
        return MPI_ERR_OP;
    if (rbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;  /* only the send buffer may be MPI_IN_PLACE */
    int rc = contig_type(dt, &l);
    if (rc != MPI_SUCCESS)
        return rc;
    *op = rmaib_mpi_op_of(mop);
    if (!*op)
        return RMAIB_MPI_TO_HOST;         /* a user-defined op */
    if (*op == RMAIB_OP_REPLACE || *op == RMAIB_OP_NO_OP)
        return MPI_ERR_OP;      /* one-sided ops only (MPI-3.1 §11.3.4) */
    if (l->basic == RMAIB_BASIC_NONE)
        return RMAIB_MPI_TO_HOST;
    if (count > INT_MAX && !rmaib_mpi_count_fits(count, l))
        return MPI_ERR_COUNT;
    if (rmaib_reduce_valid(l->basic, *op) != RMAIB_OK)
        return MPI_ERR_OP;
    if (count && sbuf == rbuf)
        return MPI_ERR_BUFFER;  /* aliased without MPI_IN_PLACE */
    *b = l->basic;
    *n = (size_t) count * (l->size / l->basic_size);
    return MPI_SUCCESS;
}

int rmaib_mpi_reduce_plan(const void *sbuf, const void *rbuf, MPI_Count count, MPI_Datatype dt,
                          MPI_Op mop, MPI_Comm comm, rmaib_mpi_reduce_plan_t *p)
{
    *p = (rmaib_mpi_reduce_plan_t) { .b = RMAIB_BASIC_NONE };
    p->st = rmaib_mpi_coll_served(comm, &p->why);
    if (p->why)
        return RMAIB_MPI_TO_HOST;
    int code = reduce_args(sbuf, rbuf, count, dt, mop, &p->b, &p->op, &p->n);
    if (code == RMAIB_MPI_TO_HOST)
        p->why = "type or op";
    return code;
}

/* Bytes of one rank's block of an allgather or alltoall. */
int rmaib_mpi_block_args(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                         const void *rbuf, MPI_Count rcount, MPI_Datatype rtype, size_t *bytes)
{
    const rmaib_layout_t *sl = NULL, *rl;
    int in_place = sbuf == MPI_IN_PLACE;
    if (rcount < 0 || (!in_place && scount < 0))
        return MPI_ERR_COUNT;
    if (rbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    int rc = contig_type(rtype, &rl);
    if (rc == MPI_SUCCESS && !in_place)
        rc = contig_type(stype, &sl);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rcount > INT_MAX && !rmaib_mpi_count_fits(rcount, rl))
        || (sl && scount > INT_MAX && !rmaib_mpi_count_fits(scount, sl)))
        return MPI_ERR_COUNT;
    *bytes = (size_t) rcount * rl->size;
    if (sl && (size_t) scount * sl->size != *bytes)
        return RMAIB_MPI_TO_HOST;         /* the host says which side is short */
    if (*bytes && sbuf == rbuf)
        return MPI_ERR_BUFFER;
    return MPI_SUCCESS;
}

/* Finish a call rmaib served or refused: the MPI return value. */
static int finish(MPI_Comm comm, const char *call, rmaib_mpi_coll_t *st, int code, int rerr)
{
    if (code != MPI_SUCCESS)
        return rmaib_mpi_comm_error(comm, code);
    rmaib_mpi_coll_say(call, st, st->core ? rmaib_coll_last_alg(st->core) : "local", NULL);
    return rerr == RMAIB_OK ? MPI_SUCCESS : rmaib_mpi_comm_error(comm, rmaib_mpi_code(rerr));
}

rmaib_mpi_coll_t *rmaib_mpi_coll_served(MPI_Comm comm, const char **why)
{
    /* A collective may be the first call rmaib reads handles in: the check that
     * the program's MPI is this library's comes first (host.c). */
    rmaib_mpi_host_register();
    rmaib_mpi_coll_t *st = rmaib_mpi_coll_find(comm);
    *why = !st ? "no collective state" : st->why_host;
    return st;
}

int rmaib_mpi_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    rmaib_mpi_reduce_plan_t p;
    int code = rmaib_mpi_reduce_plan(sbuf, rbuf, count, dt, op, comm, &p);
    if (code == RMAIB_MPI_TO_HOST) {
        rmaib_mpi_coll_say("MPI_Allreduce", p.st, NULL, p.why);
        return rmaib_mpi_host_allreduce(sbuf, rbuf, count, dt, op, comm);
    }
    const void *s = sbuf == MPI_IN_PLACE ? NULL : sbuf;
    int rerr = RMAIB_OK;
    if (code == MPI_SUCCESS && p.st->core)
        rerr = rmaib_coll_allreduce(p.st->core, s, rbuf, p.n, p.b, p.op);
    else if (code == MPI_SUCCESS && s)
        memcpy(rbuf, s, p.n * rmaib_basic_size(p.b));
    return finish(comm, "MPI_Allreduce", p.st, code, rerr);
}

typedef int (*core_blocks_fn)(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes);
typedef int (*host_blocks_fn)(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                              void *rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm);

/* MPI_Allgather and MPI_Alltoall: one block per rank, the same checks and paths. */
static int blocks(const char *call, core_blocks_fn core, host_blocks_fn host, const void *sbuf,
                  MPI_Count scount, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    const char *why;
    rmaib_mpi_coll_t *st = rmaib_mpi_coll_served(comm, &why);
    size_t bytes = 0;
    int code = !why ? rmaib_mpi_block_args(sbuf, scount, stype, rbuf, rcount, rtype, &bytes) : RMAIB_MPI_TO_HOST;
    if (code == RMAIB_MPI_TO_HOST) {
        rmaib_mpi_coll_say(call, st, NULL, why ? why : "types");
        return host(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    }
    const void *s = sbuf == MPI_IN_PLACE ? NULL : sbuf;
    int rerr = RMAIB_OK;
    if (code == MPI_SUCCESS && st->core)
        rerr = core(st->core, s, rbuf, bytes);
    else if (code == MPI_SUCCESS && s)
        memcpy(rbuf, s, bytes);     /* one rank: its own block */
    return finish(comm, call, st, code, rerr);
}

int rmaib_mpi_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                        MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return blocks("MPI_Allgather", rmaib_coll_allgather, rmaib_mpi_host_allgather, sbuf, scount,
                  stype, rbuf, rcount, rtype, comm);
}

int rmaib_mpi_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                       MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    return blocks("MPI_Alltoall", rmaib_coll_alltoall, rmaib_mpi_host_alltoall, sbuf, scount,
                  stype, rbuf, rcount, rtype, comm);
}
