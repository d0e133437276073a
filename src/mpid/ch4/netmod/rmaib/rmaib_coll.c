/*
 * ch4:rmaib's MPI_Allreduce, MPI_Allgather, MPI_Alltoall, their non-blocking
 * forms and MPI_Ibarrier (the hooks of rmaib_coll.h): rmaib's collective path in
 * librmaib-nm, as the drop-in library serves them.  MPICH's own algorithm runs
 * what rmaib leaves (it says so under RMAIB_VERBOSE=1), the calls rmaib makes
 * itself (rmaib_nm.h), counts beyond an int, and the calls on MPICH's node
 * subcommunicators, which only its hierarchical algorithms make.
 */
#include <limits.h>
#include "mpidimpl.h"
#include "rmaib_nm.h"
#include "rmaib_cs.h"

/* A communicator of the user's: not one of MPICH's node or node-roots parts. */
static int user_comm(const MPIR_Comm * comm)
{
    return comm->comm_kind == MPIR_COMM_KIND__INTRACOMM
        && (comm->hierarchy_kind == MPIR_COMM_HIERARCHY_KIND__FLAT
            || comm->hierarchy_kind == MPIR_COMM_HIERARCHY_KIND__PARENT);
}

/* rmaib's answer: its error code (MPICH's binding raises it) or MPICH's turn. */
static int served(int rc, MPIR_Errflag_t * errflag)
{
    if (rc != MPI_SUCCESS && rc != RMAIB_NM_TO_MPICH && *errflag == MPIR_ERR_NONE)
        *errflag = MPIR_ERR_OTHER;
    return rc;
}

int MPIDI_RMAIB_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                          MPIR_Errflag_t * errflag)
{
    if (user_comm(comm_ptr)) {
        int rc = RMAIB_NM_TO_MPICH;
        if (count <= INT_MAX)
            rc = RMAIB_NM_OUTSIDE_CS(rmaib_nm_allreduce(sendbuf, recvbuf, (int) count, datatype, op,
                                    comm_ptr->handle));
        else
            rmaib_nm_coll_host("MPI_Allreduce", "count beyond an int");
        if (rc != RMAIB_NM_TO_MPICH)
            return served(rc, errflag);
    }
    return MPIR_Allreduce_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

typedef int (*blocks_fn)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, MPI_Comm comm);
typedef int (*mpich_blocks_fn)(const void *sbuf, MPI_Aint scount, MPI_Datatype stype,
                               void *rbuf, MPI_Aint rcount, MPI_Datatype rtype,
                               MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag);

/* Counts for rmaib's int-sized entries, or 0 where a count does not fit (said
 * under RMAIB_VERBOSE).  The send count of MPI_IN_PLACE means nothing. */
static int block_counts(const char *call, const void *sendbuf, MPI_Aint sendcount,
                        MPI_Aint recvcount, int *sc, int *rc)
{
    if (sendbuf == MPI_IN_PLACE)
        sendcount = 0;
    if (sendcount > INT_MAX || recvcount > INT_MAX) {
        rmaib_nm_coll_host(call, "count beyond an int");
        return 0;
    }
    *sc = (int) sendcount;
    *rc = (int) recvcount;
    return 1;
}

/* MPI_Allgather and MPI_Alltoall: one block per rank, the same path; MPICH's
 * algorithm (mpich) where rmaib leaves the call. */
static int blocks(const char *call, blocks_fn fn, mpich_blocks_fn mpich, const void *sendbuf,
                  MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                  MPI_Datatype recvtype, MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    int sc, rc;
    if (user_comm(comm_ptr) && block_counts(call, sendbuf, sendcount, recvcount, &sc, &rc)) {
        int e = RMAIB_NM_OUTSIDE_CS(fn(sendbuf, sc, sendtype, recvbuf, rc, recvtype,
                                              comm_ptr->handle));
        if (e != RMAIB_NM_TO_MPICH)
            return served(e, errflag);
    }
    return mpich(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr, errflag);
}

int MPIDI_RMAIB_allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                          MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    return blocks("MPI_Allgather", rmaib_nm_allgather, MPIR_Allgather_impl, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype, comm_ptr, errflag);
}

int MPIDI_RMAIB_alltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                         MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    return blocks("MPI_Alltoall", rmaib_nm_alltoall, MPIR_Alltoall_impl, sendbuf, sendcount,
                  sendtype, recvbuf, recvcount, recvtype, comm_ptr, errflag);
}

/* The non-blocking calls: rmaib's request is a generalized request of MPICH's
 * (the drop-in's, src/binding/mpi/icoll.c), or the host's request where rmaib
 * left the call to MPICH; MPICH's binding hands its handle to the user. */
static int request_of(int rc, MPI_Request handle, MPIR_Request ** req)
{
    if (rc == MPI_SUCCESS)
        MPIR_Request_get_ptr(handle, *req);
    return rc;
}

int MPIDI_RMAIB_iallreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                           MPIR_Request ** req)
{
    if (user_comm(comm_ptr)) {
        MPI_Request h = MPI_REQUEST_NULL;
        int rc = RMAIB_NM_TO_MPICH;
        if (count <= INT_MAX)
            rc = RMAIB_NM_OUTSIDE_CS(rmaib_nm_iallreduce(sendbuf, recvbuf, (int)count, datatype, op,
                                                         comm_ptr->handle, &h));
        else
            rmaib_nm_coll_host("MPI_Iallreduce", "count beyond an int");
        if (rc != RMAIB_NM_TO_MPICH)
            return request_of(rc, h, req);
    }
    return MPIR_Iallreduce_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, req);
}

typedef int (*iblocks_fn)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                          int rcount, MPI_Datatype rtype, MPI_Comm comm, MPI_Request * req);

typedef int (*mpich_iblocks_fn)(const void *sbuf, MPI_Aint scount, MPI_Datatype stype,
                                void *rbuf, MPI_Aint rcount, MPI_Datatype rtype,
                                MPIR_Comm * comm_ptr, MPIR_Request ** req);

static int iblocks(const char *call, iblocks_fn fn, mpich_iblocks_fn mpich, const void *sendbuf,
                   MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                   MPI_Datatype recvtype, MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    int sc, rc;
    if (user_comm(comm_ptr) && block_counts(call, sendbuf, sendcount, recvcount, &sc, &rc)) {
        MPI_Request h = MPI_REQUEST_NULL;
        int e = RMAIB_NM_OUTSIDE_CS(fn(sendbuf, sc, sendtype, recvbuf, rc, recvtype,
                                              comm_ptr->handle, &h));
        if (e != RMAIB_NM_TO_MPICH)
            return request_of(e, h, req);
    }
    return mpich(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr, req);
}

int MPIDI_RMAIB_iallgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                           MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    return iblocks("MPI_Iallgather", rmaib_nm_iallgather, MPIR_Iallgather_impl, sendbuf,
                   sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr, req);
}

int MPIDI_RMAIB_ialltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                          MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    return iblocks("MPI_Ialltoall", rmaib_nm_ialltoall, MPIR_Ialltoall_impl, sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype, comm_ptr, req);
}

int MPIDI_RMAIB_ibarrier(MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    if (user_comm(comm_ptr)) {
        MPI_Request h = MPI_REQUEST_NULL;
        int rc = RMAIB_NM_OUTSIDE_CS(rmaib_nm_ibarrier(comm_ptr->handle, &h));
        if (rc != RMAIB_NM_TO_MPICH)
            return request_of(rc, h, req);
    }
    return MPIR_Ibarrier_impl(comm_ptr, req);
}
