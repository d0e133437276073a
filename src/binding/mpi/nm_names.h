/*
 * librmaib-nm, the drop-in binding compiled for ch4:rmaib: its MPI_* and MPIX_*
 * entry points get names of their own (forced in before mpi.h), so that inside
 * MPICH's libmpi they stand beside MPICH's and the netmod glue calls them.
 */
#ifndef RMAIB_BINDING_NM_NAMES_H_INCLUDED
#define RMAIB_BINDING_NM_NAMES_H_INCLUDED

#define MPIX_Accumulate_notify rmaib_nm_X_Accumulate_notify
#define MPIX_Get_notify rmaib_nm_X_Get_notify
#define MPIX_Get_notify_local rmaib_nm_X_Get_notify_local
#define MPIX_Put_notify rmaib_nm_X_Put_notify
#define MPIX_Rget_notify rmaib_nm_X_Rget_notify
#define MPIX_Rmaib_err_rma_notification rmaib_nm_X_Rmaib_err_rma_notification
#define MPIX_Rput_notify rmaib_nm_X_Rput_notify
#define MPIX_Win_get_notify_value rmaib_nm_X_Win_get_notify_value
#define MPIX_Win_get_num_notify rmaib_nm_X_Win_get_num_notify
#define MPIX_Win_notify_waitsome rmaib_nm_X_Win_notify_waitsome
#define MPIX_Win_reset_notify_value rmaib_nm_X_Win_reset_notify_value
#define MPIX_Win_set_num_notify rmaib_nm_X_Win_set_num_notify
#define MPIX_Win_wait_notify_value rmaib_nm_X_Win_wait_notify_value
#define MPI_Accumulate rmaib_nm_Accumulate
#define MPI_Allgather rmaib_nm_Allgather
#define MPI_Allreduce rmaib_nm_Allreduce
#define MPI_Alltoall rmaib_nm_Alltoall
#define MPI_Barrier rmaib_nm_Barrier
#define MPI_Bcast rmaib_nm_Bcast
#define MPI_Compare_and_swap rmaib_nm_Compare_and_swap
#define MPI_Fetch_and_op rmaib_nm_Fetch_and_op
#define MPI_Gather rmaib_nm_Gather
#define MPI_Get rmaib_nm_Get
#define MPI_Get_accumulate rmaib_nm_Get_accumulate
#define MPI_Iallgather rmaib_nm_Iallgather
#define MPI_Iallreduce rmaib_nm_Iallreduce
#define MPI_Ialltoall rmaib_nm_Ialltoall
#define MPI_Ibarrier rmaib_nm_Ibarrier
#define MPI_Improbe rmaib_nm_Improbe
#define MPI_Iprobe rmaib_nm_Iprobe
#define MPI_Probe rmaib_nm_Probe
#define MPI_Put rmaib_nm_Put
#define MPI_Raccumulate rmaib_nm_Raccumulate
#define MPI_Recv rmaib_nm_Recv
#define MPI_Reduce rmaib_nm_Reduce
#define MPI_Request_get_status rmaib_nm_Request_get_status
#define MPI_Rget rmaib_nm_Rget
#define MPI_Rget_accumulate rmaib_nm_Rget_accumulate
#define MPI_Rput rmaib_nm_Rput
#define MPI_Sendrecv rmaib_nm_Sendrecv
#define MPI_Test rmaib_nm_Test
#define MPI_Testall rmaib_nm_Testall
#define MPI_Testany rmaib_nm_Testany
#define MPI_Testsome rmaib_nm_Testsome
#define MPI_Wait rmaib_nm_Wait
#define MPI_Waitall rmaib_nm_Waitall
#define MPI_Waitany rmaib_nm_Waitany
#define MPI_Win_allocate rmaib_nm_Win_allocate
#define MPI_Win_allocate_shared rmaib_nm_Win_allocate_shared
#define MPI_Win_attach rmaib_nm_Win_attach
#define MPI_Win_complete rmaib_nm_Win_complete
#define MPI_Win_create rmaib_nm_Win_create
#define MPI_Win_create_dynamic rmaib_nm_Win_create_dynamic
#define MPI_Win_detach rmaib_nm_Win_detach
#define MPI_Win_fence rmaib_nm_Win_fence
#define MPI_Win_flush rmaib_nm_Win_flush
#define MPI_Win_flush_all rmaib_nm_Win_flush_all
#define MPI_Win_flush_local rmaib_nm_Win_flush_local
#define MPI_Win_flush_local_all rmaib_nm_Win_flush_local_all
#define MPI_Win_free rmaib_nm_Win_free
#define MPI_Win_get_attr rmaib_nm_Win_get_attr
#define MPI_Win_get_group rmaib_nm_Win_get_group
#define MPI_Win_get_info rmaib_nm_Win_get_info
#define MPI_Win_lock rmaib_nm_Win_lock
#define MPI_Win_lock_all rmaib_nm_Win_lock_all
#define MPI_Win_post rmaib_nm_Win_post
#define MPI_Win_shared_query rmaib_nm_Win_shared_query
#define MPI_Win_start rmaib_nm_Win_start
#define MPI_Win_sync rmaib_nm_Win_sync
#define MPI_Win_test rmaib_nm_Win_test
#define MPI_Win_unlock rmaib_nm_Win_unlock
#define MPI_Win_unlock_all rmaib_nm_Win_unlock_all
#define MPI_Win_wait rmaib_nm_Win_wait

#endif
