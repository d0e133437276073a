/*
 * ch4:rmaib's MPI_Allreduce, MPI_Allgather and MPI_Alltoall (the hooks of
 * rmaib_coll.h): rmaib's collective path in librmaib-nm, as the drop-in library
 * serves them.  MPICH's own algorithm runs what rmaib leaves (it says so under
 * RMAIB_VERBOSE=1), the calls rmaib makes itself (rmaib_nm.h), counts beyond an
 * int, and the calls on MPICH's node subcommunicators, which only its
 * hierarchical algorithms make.
 */
#include <limits.h>
#include "mpidimpl.h"
#include "rmaib_nm.h"

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
            rc = rmaib_nm_allreduce(sendbuf, recvbuf, (int) count, datatype, op,
                                    comm_ptr->handle);
        else
            rmaib_nm_coll_host("MPI_Allreduce", "count beyond an int");
        if (rc != RMAIB_NM_TO_MPICH)
            return served(rc, errflag);
    }
    return MPIR_Allreduce_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

typedef int (*blocks_fn)(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
                         int rcount, MPI_Datatype rtype, MPI_Comm comm);

/* MPI_Allgather and MPI_Alltoall: one block per rank, the same path.  The send
 * count of MPI_IN_PLACE means nothing. */
static int blocks(const char *call, blocks_fn fn, const void *sendbuf, MPI_Aint sendcount,
                  MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                  MPI_Datatype recvtype, MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    if (!user_comm(comm_ptr))
        return RMAIB_NM_TO_MPICH;
    if (sendbuf == MPI_IN_PLACE)
        sendcount = 0;
    if (sendcount > INT_MAX || recvcount > INT_MAX) {
        rmaib_nm_coll_host(call, "count beyond an int");
        return RMAIB_NM_TO_MPICH;
    }
    return served(fn(sendbuf, (int) sendcount, sendtype, recvbuf, (int) recvcount, recvtype,
                     comm_ptr->handle), errflag);
}

int MPIDI_RMAIB_allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                          MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    int rc = blocks("MPI_Allgather", rmaib_nm_allgather, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm_ptr, errflag);
    if (rc != RMAIB_NM_TO_MPICH)
        return rc;
    return MPIR_Allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                               comm_ptr, errflag);
}

int MPIDI_RMAIB_alltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                         MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    int rc = blocks("MPI_Alltoall", rmaib_nm_alltoall, sendbuf, sendcount, sendtype, recvbuf,
                    recvcount, recvtype, comm_ptr, errflag);
    if (rc != RMAIB_NM_TO_MPICH)
        return rc;
    return MPIR_Alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                              comm_ptr, errflag);
}
