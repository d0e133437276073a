/*
 * Calls of the host MPI that serve the network endpoint: the blocking ones while they
 * wait, the ones an application polls with once per call.
 *
 * On a provider that progresses in software (tcp;ofi_rxm) a peer's put, get or atomic
 * aimed at this process moves only while something here polls the endpoint.  The
 * progress thread does so, but a packet has to wake it through the kernel, and with
 * 2 ranks on 2 cores that made every round trip to a target sitting in MPI_Barrier
 * cost about 80 us.  A process waiting in the host MPI while its peers work on its
 * window is the common case (every passive target), so the calls a target waits in
 * become their non-blocking form plus a wait that polls the endpoint, as MPICH's
 * progress engine does for its own netmod; the progress thread parks meanwhile.
 * Without such a provider (shm only, or a provider with hardware progress) every
 * call goes straight to the host.
 *
 * rmaib's non-blocking collectives move only where rmaib runs, so the same waits
 * (and the calls an application polls with) also run them while any is
 * unfinished: a rank waiting on the host's request must still do its part of a
 * schedule a peer waits for, as MPI's progress rule asks (MPICH's nonblocking3
 * mixes both kinds in MPI_Wait/Test*; without this each host operation crawled
 * forward only as the peers' waits gave MPICH a turn).
 *
 * Where the host runs more ranks of the job than it has cores (rmaib_oversubscribed)
 * the host's own waits spin through their time slices: MPICH 4.0.2's ch4 waits never
 * yield (Debian's libmpich calls no sched_yield, whatever the thread level;
 * MPIR_CVAR_POLLS_BEFORE_YIELD is ch3's), so the rank being waited for gets a core
 * only when the scheduler takes it from a spinner: 64 ranks on 2 cores took 0.68 s
 * a barrier, 3.5 s a window creation.  There every wait below tests its request and
 * backs off as rmaib's own waits do (spin, yield, sleep), serving the endpoint too;
 * and on one host the collectives take their non-blocking form, so that they wait
 * here (every rank of the job decides alike: one host, one count of cores).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "base/backoff.h"
#include "base/config.h"
#include "host_large.h"
#include "serve.h"
#include "rmaib_coll.h"

/* Whether a wait must poll: the endpoint, or unfinished collective schedules. */
static int serving(void)
{
    return rmaib_poll_wanted() || rmaib_coll_unfinished();
}

/* Whether a wait tests in a loop here rather than in the host's wait. */
static int waits_here(void)
{
    return serving() || rmaib_oversubscribed();
}

/* Such a wait: rounds that serve (polling as the progress thread's stand-in), or,
 * where ranks outnumber cores, rmaib's back-off (which polls while it spins and
 * leaves the endpoint to the thread while it sleeps). */
typedef struct {
    unsigned round;
    int backing;
    rmaib_backoff_t bo;
} waiter_t;

static void wait_begin(waiter_t *w)
{
    *w = (waiter_t) { .backing = rmaib_oversubscribed() };
    if (!w->backing)
        rmaib_poll_enter();
}

static void wait_round(waiter_t *w)
{
    int moved = rmaib_coll_unfinished() && rmaib_coll_progress_all();
    if (!w->backing) {
        if (moved)
            w->round = 0;
        rmaib_poll(&w->round);
    } else if (moved) {         /* a schedule moved: spin afresh */
        rmaib_backoff_end(&w->bo);
        w->bo = (rmaib_backoff_t) { 0 };
    } else {
        rmaib_backoff(&w->bo);
    }
}

static void wait_end(waiter_t *w)
{
    if (w->backing)
        rmaib_backoff_end(&w->bo);
    else
        rmaib_poll_leave();
}

int rmaib_mpi_serve_wait(MPI_Request *req, MPI_Status *status)
{
    waiter_t w;
    int rc, flag = 0;
    wait_begin(&w);
    while ((rc = PMPI_Test(req, &flag, status)) == MPI_SUCCESS && !flag)
        wait_round(&w);
    wait_end(&w);
    return rc;
}

static int serve_waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    waiter_t w;
    int rc, flag = 0;
    wait_begin(&w);
    while ((rc = PMPI_Testall(n, reqs, &flag, statuses)) == MPI_SUCCESS && !flag)
        wait_round(&w);
    wait_end(&w);
    return rc;
}

int rmaib_mpi_host_wait(MPI_Request *req)
{
    return waits_here() ? rmaib_mpi_serve_wait(req, MPI_STATUS_IGNORE)
        : PMPI_Wait(req, MPI_STATUS_IGNORE);
}

/* Whether the job may start the network somewhere: RMAIB_TRANSPORT=ofi, simulated
 * nodes, or (auto) ranks on more than one host, which Hydra tells each rank
 * (MPI_LOCALNRANKS against PMI_SIZE); without that word, any job of several ranks. */
static int job_may_use_network(void)
{
#ifdef HAVE_OFI
    const char *t = getenv("RMAIB_TRANSPORT"), *local = getenv("MPI_LOCALNRANKS"),
        *size = getenv("PMI_SIZE");
    int n = 1;
    if (t && strcmp(t, "shm") == 0)
        return 0;
    if ((t && strcmp(t, "ofi") == 0) || rmaib_env_int("RMAIB_NODE_SIZE", 0) > 0)
        return 1;
    if (local && size && *local && *size)
        return strcmp(local, size) != 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &n);
    return n > 1;
#else
    return 0;
#endif
}

/* A job on one host (Hydra's MPI_LOCALNRANKS equals PMI_SIZE, Open MPI's local size
 * its world size) with more ranks than the host has cores: every rank sees the same
 * counts. */
static int one_host_oversubscribed(void)
{
    const char *local = getenv("MPI_LOCALNRANKS"), *size = getenv("PMI_SIZE");
    if (!local || !size) {
        local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
        size = getenv("OMPI_COMM_WORLD_SIZE");
    }
    return local && size && *local && strcmp(local, size) == 0 && rmaib_oversubscribed();
}

/* MPI never matches a blocking collective with a non-blocking one, so every rank of
 * a communicator must pick the same form: not by whether it polls now (a rank
 * outside every network window has not started the network), but once per job. */
static int coll_nonblocking(void)
{
    static int once = -1;
    if (once < 0)
        once = job_may_use_network() || one_host_oversubscribed();
    return once;
}

/* The collective `blocking`, or, where the job may use the network, its
 * non-blocking form `start` (which sets req_), then waited for. */
#define SERVED(blocking, start)                                         \
    do {                                                                \
        MPI_Request req_;                                               \
        int rc_;                                                        \
        if (!coll_nonblocking())                                        \
            return (blocking);                                          \
        rc_ = (start);                                                  \
        return rc_ == MPI_SUCCESS ? rmaib_mpi_host_wait(&req_) : rc_;   \
    } while (0)

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!waits_here())
        return PMPI_Wait(req, status);
    return rmaib_mpi_serve_wait(req, status);
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!waits_here())
        return PMPI_Waitall(n, reqs, statuses);
    return serve_waitall(n, reqs, statuses);
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!waits_here())
        return PMPI_Waitany(n, reqs, index, status);
    waiter_t w;
    int rc, flag = 0;
    wait_begin(&w);
    while ((rc = PMPI_Testany(n, reqs, index, &flag, status)) == MPI_SUCCESS && !flag)
        wait_round(&w);
    wait_end(&w);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!waits_here())
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    waiter_t w;
    int rc;
    wait_begin(&w);
    while ((rc = PMPI_Testsome(n, reqs, outcount, indices, statuses)) == MPI_SUCCESS
           && *outcount == 0)
        wait_round(&w);
    wait_end(&w);
    return rc;
}

/* The waits below take the host's int form where the counts allow it and its _c
 * form past INT_MAX: the bodies of the int and _c entry points (api.txt). */
int rmaib_mpi_serve_recv(void *buf, MPI_Count count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Status *status)
{
    int small = count <= INT_MAX;
    if (!waits_here())
        return small ? PMPI_Recv(buf, (int) count, type, source, tag, comm, status)
            : PMPI_Recv_c(buf, count, type, source, tag, comm, status);
    MPI_Request req;
    int rc = small ? PMPI_Irecv(buf, (int) count, type, source, tag, comm, &req)
        : PMPI_Irecv_c(buf, count, type, source, tag, comm, &req);
    return rc == MPI_SUCCESS ? rmaib_mpi_serve_wait(&req, status) : rc;
}

int rmaib_mpi_serve_sendrecv(const void *sbuf, MPI_Count scount, MPI_Datatype stype, int dest,
                             int stag, void *rbuf, MPI_Count rcount, MPI_Datatype rtype,
                             int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    int small = scount <= INT_MAX && rcount <= INT_MAX;
    if (!waits_here())
        return small ? PMPI_Sendrecv(sbuf, (int) scount, stype, dest, stag, rbuf, (int) rcount,
                                     rtype, source, rtag, comm, status)
            : PMPI_Sendrecv_c(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                              comm, status);
    MPI_Request reqs[2];
    MPI_Status st[2];
    int rc = small ? PMPI_Irecv(rbuf, (int) rcount, rtype, source, rtag, comm, &reqs[0])
        : PMPI_Irecv_c(rbuf, rcount, rtype, source, rtag, comm, &reqs[0]);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = small ? PMPI_Isend(sbuf, (int) scount, stype, dest, stag, comm, &reqs[1])
        : PMPI_Isend_c(sbuf, scount, stype, dest, stag, comm, &reqs[1]);
    if (rc != MPI_SUCCESS) {
        PMPI_Cancel(&reqs[0]);
        PMPI_Request_free(&reqs[0]);
        return rc;
    }
    rc = serve_waitall(2, reqs, st);
    if (rc == MPI_ERR_IN_STATUS)
        rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        *status = st[0];
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    if (!waits_here())
        return PMPI_Probe(source, tag, comm, status);
    waiter_t w;
    int rc, flag = 0;
    wait_begin(&w);
    while ((rc = PMPI_Iprobe(source, tag, comm, &flag, status)) == MPI_SUCCESS && !flag)
        wait_round(&w);
    wait_end(&w);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    SERVED(PMPI_Barrier(comm),
           PMPI_Ibarrier(comm, &req_));
}

int rmaib_mpi_serve_bcast(void *buf, MPI_Count count, MPI_Datatype type, int root,
                          MPI_Comm comm)
{
    if (count <= INT_MAX)
        SERVED(PMPI_Bcast(buf, (int) count, type, root, comm),
               PMPI_Ibcast(buf, (int) count, type, root, comm, &req_));
    SERVED(PMPI_Bcast_c(buf, count, type, root, comm),
           PMPI_Ibcast_c(buf, count, type, root, comm, &req_));
}

int rmaib_mpi_serve_reduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype type,
                           MPI_Op op, int root, MPI_Comm comm)
{
    if (count <= INT_MAX)
        SERVED(PMPI_Reduce(sbuf, rbuf, (int) count, type, op, root, comm),
               PMPI_Ireduce(sbuf, rbuf, (int) count, type, op, root, comm, &req_));
    SERVED(PMPI_Reduce_c(sbuf, rbuf, count, type, op, root, comm),
           PMPI_Ireduce_c(sbuf, rbuf, count, type, op, root, comm, &req_));
}

/* The host's collectives, for the calls coll.c leaves to the host: the int forms
 * where the counts allow, the _c forms past INT_MAX. */
int rmaib_mpi_host_allreduce(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm)
{
    if (count <= INT_MAX)
        SERVED(PMPI_Allreduce(sbuf, rbuf, (int) count, type, op, comm),
               PMPI_Iallreduce(sbuf, rbuf, (int) count, type, op, comm, &req_));
    SERVED(PMPI_Allreduce_c(sbuf, rbuf, count, type, op, comm),
           PMPI_Iallreduce_c(sbuf, rbuf, count, type, op, comm, &req_));
}

int rmaib_mpi_host_allgather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                             MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (scount <= INT_MAX && rcount <= INT_MAX)
        SERVED(PMPI_Allgather(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm),
               PMPI_Iallgather(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm,
                               &req_));
    SERVED(PMPI_Allgather_c(sbuf, scount, stype, rbuf, rcount, rtype, comm),
           PMPI_Iallgather_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, &req_));
}

int rmaib_mpi_host_alltoall(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                            MPI_Count rcount, MPI_Datatype rtype, MPI_Comm comm)
{
    if (scount <= INT_MAX && rcount <= INT_MAX)
        SERVED(PMPI_Alltoall(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm),
               PMPI_Ialltoall(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, comm,
                              &req_));
    SERVED(PMPI_Alltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm),
           PMPI_Ialltoall_c(sbuf, scount, stype, rbuf, rcount, rtype, comm, &req_));
}

int rmaib_mpi_serve_gather(const void *sbuf, MPI_Count scount, MPI_Datatype stype, void *rbuf,
                           MPI_Count rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
    if (scount <= INT_MAX && rcount <= INT_MAX)
        SERVED(PMPI_Gather(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, root, comm),
               PMPI_Igather(sbuf, (int) scount, stype, rbuf, (int) rcount, rtype, root, comm,
                            &req_));
    SERVED(PMPI_Gather_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm),
           PMPI_Igather_c(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, &req_));
}

/* Calls an application polls with: one round of the endpoint each, as MPICH's
 * progress engine makes one pass per MPI_Test.  A target that polls MPI_Test or
 * MPI_Iprobe while its peers work on its window serves them like one that blocks;
 * without the progress thread nothing else would (bench/flush_visible's target,
 * polling MPI_Iprobe, left every flush of RMAIB_ASYNC_PROGRESS=0 hanging).
 * Not bracketed by rmaib_poll_enter/leave: one call is no wait, and the bracket
 * parks the progress thread for a lease after it, so a target that polls now and
 * then and computes in between went unserved while it computed (every flush to
 * flush_visible's target, which polls only once a flag is late, then waited for
 * its polling).  Where the thread is in the endpoint's wait the round finds the
 * endpoint taken and returns: the thread serves. */
static void serve_once(void)
{
    if (rmaib_coll_unfinished())
        rmaib_coll_progress_all();
    if (!rmaib_poll_wanted())
        return;
    unsigned round = 0;
    rmaib_poll(&round);
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    serve_once();
    return PMPI_Test(req, flag, status);
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    serve_once();
    return PMPI_Testall(n, reqs, flag, statuses);
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    serve_once();
    return PMPI_Testany(n, reqs, index, flag, status);
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    serve_once();
    return PMPI_Testsome(n, reqs, outcount, indices, statuses);
}

int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
    serve_once();
    return PMPI_Request_get_status(req, flag, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    serve_once();
    return PMPI_Iprobe(source, tag, comm, flag, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                MPI_Status *status)
{
    serve_once();
    return PMPI_Improbe(source, tag, comm, flag, msg, status);
}
