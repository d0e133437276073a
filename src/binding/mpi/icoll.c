/*
 * MPI_Iallreduce, MPI_Iallgather, MPI_Ialltoall and MPI_Ibarrier of the drop-in
 * library: the same checks and paths as the blocking calls (coll.c), the call
 * queued on the communicator's schedule engine (src/coll_overlay/sched.c).
 *
 * On MPICH the request is its extended generalized request: its poll function,
 * which MPI_Test*, MPI_Wait and MPI_Wait{any,some} call, and its wait function,
 * which MPI_Waitall calls, progress the schedules of every communicator, and a
 * schedule that finishes completes its request.  MPICH polls them from no other
 * call, so while any is unfinished the drop-in's waits, tests and probes run them
 * (serve.c), as the netmod's progress hook does; rmaib's own collective calls
 * progress them too.  Open MPI 4.1 has no such request: there it is a standard
 * generalized request, and those same waits and tests (all of them rmaib's, which
 * poll while a schedule is unfinished) are what complete it.  A freed
 * request's schedule still runs, progressed by those calls and by MPI_Comm_free.
 * The netmod's collective hooks return the same requests (rmaib_coll.c).
 */
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include "base/backoff.h"
#include "base/reduce.h"
#include "coll.h"
#include "errors.h"
#include "host_large.h"
#include "request.h"
#include "rmaib_host.h"
#include "serve.h"

_Static_assert(sizeof(MPI_Request) <= sizeof(void *), "a request handle fits a pointer");

#ifdef MPICH_VERSION
static MPIX_Grequest_class coll_class;
static int class_rc = MPI_ERR_INTERN;
static pthread_once_t class_once = PTHREAD_ONCE_INIT;

/* Per thread: how long polling has found nothing to do. */
static _Thread_local unsigned idle;

/* One round: progress, else relax (or yield when ranks outnumber cores) and now
 * and then give the host's point-to-point traffic a turn. */
static void round_once(void)
{
    if (rmaib_coll_progress_all()) {
        idle = 0;
        return;
    }
    if ((idle & 63) == 63)
        rmaib_host_progress();
    rmaib_poll_round(&idle);
}

static int poll(void *extra, MPI_Status *status)
{
    (void) extra;
    (void) status;
    round_once();
    return MPI_SUCCESS;
}

/* MPI_Waitall calls this until the request completes. */
static int wait(int count, void **states, double timeout, MPI_Status *status)
{
    (void) count;
    (void) states;
    (void) timeout;
    (void) status;
    round_once();
    return MPI_SUCCESS;
}

static void make_class(void)
{
    class_rc = PMPIX_Grequest_class_create(rmaib_mpi_greq_query, rmaib_mpi_greq_free,
                                           rmaib_mpi_greq_cancel, poll, wait, &coll_class);
}
#endif

/* The core finished the collective of request arg. */
static void complete(void *arg, int err)
{
    MPI_Request r;
    memcpy(&r, &arg, sizeof r);
    if (err != RMAIB_OK)
        rmaib_host_say("rmaib: a non-blocking collective failed (error %d)", err);
    PMPI_Grequest_complete(r);
}

static int new_request(MPI_Request *req, void **arg)
{
#ifdef MPICH_VERSION
    pthread_once(&class_once, make_class);
    if (class_rc != MPI_SUCCESS)
        return class_rc;
    int rc = PMPIX_Grequest_class_allocate(coll_class, NULL, req);
#else
    int rc = PMPI_Grequest_start(rmaib_mpi_greq_query, rmaib_mpi_greq_free,
                                 rmaib_mpi_greq_cancel, NULL, req);
#endif
    *arg = NULL;
    memcpy(arg, req, sizeof *req);
    return rc;
}

/* Checks passed (code MPI_SUCCESS) or failed: start the core's call with
 * start(st->core, ..., complete, arg), or finish at once on one rank. */
#define START(call, st, code, req, start_expr)                                     \
    do {                                                                           \
        void *arg_;                                                                \
        if ((code) == MPI_SUCCESS && !(req))                                       \
            (code) = MPI_ERR_REQUEST;                                              \
        if ((code) == MPI_SUCCESS)                                                 \
            (code) = new_request((req), &arg_);                                    \
        if ((code) != MPI_SUCCESS)                                                 \
            return rmaib_mpi_comm_error(comm, (code));                             \
        rmaib_mpi_coll_say((call), (st), (st)->core ? "schedule" : "local", NULL); \
        if ((st)->core)                                                            \
            return (start_expr) == RMAIB_OK ? MPI_SUCCESS                          \
                : rmaib_mpi_comm_error(comm, MPI_ERR_INTERN);                      \
        return PMPI_Grequest_complete(*(req));                                     \
    } while (0)

int rmaib_mpi_iallreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    rmaib_mpi_reduce_plan_t p;
    int code = rmaib_mpi_reduce_plan(sbuf, rbuf, count, dt, op, comm, &p);
    if (code == RMAIB_MPI_TO_HOST) {
        rmaib_mpi_coll_say("MPI_Iallreduce", p.st, NULL, p.why);
        return count <= INT_MAX ? PMPI_Iallreduce(sbuf, rbuf, (int) count, dt, op, comm, req)
            : PMPI_Iallreduce_c(sbuf, rbuf, count, dt, op, comm, req);
    }
    const void *s = sbuf == MPI_IN_PLACE ? NULL : sbuf;
    if (code == MPI_SUCCESS && !p.st->core && s)
        memcpy(rbuf, s, p.n * rmaib_basic_size(p.b));
    START("MPI_Iallreduce", p.st, code, req,
          rmaib_coll_iallreduce(p.st->core, s, rbuf, p.n, p.b, p.op, complete, arg_));
}

typedef int (*core_iblocks_fn)(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                               rmaib_coll_done_fn *done, void *arg);
typedef int (*host_iblocks_fn)(const void *sbuf, MPI_Count scount, MPI_Datatype stype,
                               void *rbuf, MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm,
                               MPI_Request *req);

/* The host's calls: the int forms where the counts allow, the _c forms past INT_MAX. */
static int host_iallgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                           MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (scount <= INT_MAX && rcount <= INT_MAX)
        return PMPI_Iallgather(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm, req);
    return PMPI_Iallgather_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

static int host_ialltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                          MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (scount <= INT_MAX && rcount <= INT_MAX)
        return PMPI_Ialltoall(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm, req);
    return PMPI_Ialltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
}

static int iblocks(const char *call, core_iblocks_fn core, host_iblocks_fn host, const void *sbuf,
                   MPI_Count scount, MPI_Datatype stype, void *rbuf, MPI_Count rcount,
                   MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    const char *why;
    rmaib_mpi_coll_t *st = rmaib_mpi_coll_served(comm, &why);
    size_t bytes = 0;
    int code = !why ? rmaib_mpi_block_args(sbuf, scount, stype, rbuf, rcount, rtype, &bytes)
        : RMAIB_MPI_TO_HOST;
    if (code == RMAIB_MPI_TO_HOST) {
        rmaib_mpi_coll_say(call, st, NULL, why ? why : "types");
        return host(sbuf, scount, stype, rbuf, rcount, rtype, comm, req);
    }
    const void *s = sbuf == MPI_IN_PLACE ? NULL : sbuf;
    if (code == MPI_SUCCESS && !st->core && s)
        memcpy(rbuf, s, bytes);     /* one rank: its own block */
    START(call, st, code, req, core(st->core, s, rbuf, bytes, complete, arg_));
}

int rmaib_mpi_iallgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                         MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    return iblocks("MPI_Iallgather", rmaib_coll_iallgather, host_iallgather, sbuf, scount, stype,
                   rbuf, rcount, rtype, comm, req);
}

int rmaib_mpi_ialltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                        MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request *req)
{
    return iblocks("MPI_Ialltoall", rmaib_coll_ialltoall, host_ialltoall, sbuf, scount, stype,
                   rbuf, rcount, rtype, comm, req);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *req)
{
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    const char *why;
    rmaib_mpi_coll_t *st = rmaib_mpi_coll_served(comm, &why);
    if (why) {
        rmaib_mpi_coll_say("MPI_Ibarrier", st, NULL, why);
        return PMPI_Ibarrier(comm, req);
    }
    int code = MPI_SUCCESS;
    START("MPI_Ibarrier", st, code, req, rmaib_coll_ibarrier(st->core, complete, arg_));
}
