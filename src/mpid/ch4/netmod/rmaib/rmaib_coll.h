/*
 * ch4:rmaib's collective hooks: UCX's (which run MPICH's algorithms), but for
 * MPI_Allreduce, MPI_Allgather, MPI_Alltoall and their non-blocking forms with
 * MPI_Ibarrier, which go to out-of-line glue (rmaib_coll.c) and from there to
 * rmaib's collective path in librmaib-nm.  UCX's seven are compiled under other
 * names, unused, so that every other hook stays exactly UCX's.
 */
#ifndef RMAIB_COLL_H_INCLUDED
#define RMAIB_COLL_H_INCLUDED

#include "../ucx/ucx_impl.h"

#define MPIDI_NM_mpi_allreduce MPIDI_RMAIB_ucx_allreduce_unused
#define MPIDI_NM_mpi_allgather MPIDI_RMAIB_ucx_allgather_unused
#define MPIDI_NM_mpi_alltoall MPIDI_RMAIB_ucx_alltoall_unused
#define MPIDI_NM_mpi_iallreduce MPIDI_RMAIB_ucx_iallreduce_unused
#define MPIDI_NM_mpi_iallgather MPIDI_RMAIB_ucx_iallgather_unused
#define MPIDI_NM_mpi_ialltoall MPIDI_RMAIB_ucx_ialltoall_unused
#define MPIDI_NM_mpi_ibarrier MPIDI_RMAIB_ucx_ibarrier_unused
#include "../ucx/ucx_coll.h"
#undef MPIDI_NM_mpi_allreduce
#undef MPIDI_NM_mpi_allgather
#undef MPIDI_NM_mpi_alltoall
#undef MPIDI_NM_mpi_iallreduce
#undef MPIDI_NM_mpi_iallgather
#undef MPIDI_NM_mpi_ialltoall
#undef MPIDI_NM_mpi_ibarrier

int MPIDI_RMAIB_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                          MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                          MPIR_Errflag_t * errflag);
int MPIDI_RMAIB_allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                          MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag);
int MPIDI_RMAIB_alltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                         MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag);
int MPIDI_RMAIB_iallreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                           MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm_ptr,
                           MPIR_Request ** req);
int MPIDI_RMAIB_iallgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                           void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                           MPIR_Comm * comm_ptr, MPIR_Request ** req);
int MPIDI_RMAIB_ialltoall(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                          void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                          MPIR_Comm * comm_ptr, MPIR_Request ** req);
int MPIDI_RMAIB_ibarrier(MPIR_Comm * comm_ptr, MPIR_Request ** req);

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_allreduce(const void *sendbuf, void *recvbuf,
                                                    MPI_Aint count, MPI_Datatype datatype,
                                                    MPI_Op op, MPIR_Comm * comm_ptr,
                                                    MPIR_Errflag_t * errflag)
{
    return MPIDI_RMAIB_allreduce(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_allgather(const void *sendbuf, MPI_Aint sendcount,
                                                    MPI_Datatype sendtype, void *recvbuf,
                                                    MPI_Aint recvcount, MPI_Datatype recvtype,
                                                    MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    return MPIDI_RMAIB_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_alltoall(const void *sendbuf, MPI_Aint sendcount,
                                                   MPI_Datatype sendtype, void *recvbuf,
                                                   MPI_Aint recvcount, MPI_Datatype recvtype,
                                                   MPIR_Comm * comm_ptr, MPIR_Errflag_t * errflag)
{
    return MPIDI_RMAIB_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_ibarrier(MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    return MPIDI_RMAIB_ibarrier(comm_ptr, req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_iallgather(const void *sendbuf, MPI_Aint sendcount,
                                                     MPI_Datatype sendtype, void *recvbuf,
                                                     MPI_Aint recvcount, MPI_Datatype recvtype,
                                                     MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    return MPIDI_RMAIB_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm_ptr, req);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_iallreduce(const void *sendbuf, void *recvbuf,
                                                     MPI_Aint count, MPI_Datatype datatype,
                                                     MPI_Op op, MPIR_Comm * comm,
                                                     MPIR_Request ** request)
{
    return MPIDI_RMAIB_iallreduce(sendbuf, recvbuf, count, datatype, op, comm, request);
}

MPL_STATIC_INLINE_PREFIX int MPIDI_NM_mpi_ialltoall(const void *sendbuf, MPI_Aint sendcount,
                                                    MPI_Datatype sendtype, void *recvbuf,
                                                    MPI_Aint recvcount, MPI_Datatype recvtype,
                                                    MPIR_Comm * comm_ptr, MPIR_Request ** req)
{
    return MPIDI_RMAIB_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                 comm_ptr, req);
}

#endif /* RMAIB_COLL_H_INCLUDED */
