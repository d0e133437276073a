/*
 * ch4:rmaib's out-of-line netmod calls: UCX's, but for windows, which are rmaib's
 * (rmaib_win.c).  MPIDIG's window helpers build the MPIR_Win and call the netmod's
 * window hooks, which would give UCX the memory too: here they do nothing.
 */
#ifndef RMAIB_NOINLINE_H_INCLUDED
#define RMAIB_NOINLINE_H_INCLUDED

#include "../ucx/ucx_noinline.h"

#undef MPIDI_NM_mpi_win_create_hook
#undef MPIDI_NM_mpi_win_allocate_hook
#undef MPIDI_NM_mpi_win_allocate_shared_hook
#undef MPIDI_NM_mpi_win_create_dynamic_hook
#undef MPIDI_NM_mpi_win_attach_hook
#undef MPIDI_NM_mpi_win_detach_hook
#undef MPIDI_NM_mpi_win_free_hook
#define MPIDI_NM_mpi_win_create_hook(win) MPI_SUCCESS
#define MPIDI_NM_mpi_win_allocate_hook(win) MPI_SUCCESS
#define MPIDI_NM_mpi_win_allocate_shared_hook(win) MPI_SUCCESS
#define MPIDI_NM_mpi_win_create_dynamic_hook(win) MPI_SUCCESS
#define MPIDI_NM_mpi_win_attach_hook(win, base, size) MPI_SUCCESS
#define MPIDI_NM_mpi_win_detach_hook(win, base) MPI_SUCCESS
#define MPIDI_NM_mpi_win_free_hook(win) MPI_SUCCESS

#undef MPIDI_NM_mpi_win_set_info
#undef MPIDI_NM_mpi_win_get_info
#undef MPIDI_NM_mpi_win_free
#undef MPIDI_NM_mpi_win_create
#undef MPIDI_NM_mpi_win_attach
#undef MPIDI_NM_mpi_win_allocate_shared
#undef MPIDI_NM_mpi_win_detach
#undef MPIDI_NM_mpi_win_allocate
#undef MPIDI_NM_mpi_win_create_dynamic

int MPIDI_RMAIB_mpi_win_set_info(MPIR_Win * win, MPIR_Info * info);
int MPIDI_RMAIB_mpi_win_get_info(MPIR_Win * win, MPIR_Info ** info_p);
int MPIDI_RMAIB_mpi_win_free(MPIR_Win ** win_p);
int MPIDI_RMAIB_mpi_win_create(void *base, MPI_Aint length, int disp_unit, MPIR_Info * info,
                               MPIR_Comm * comm_ptr, MPIR_Win ** win_p);
int MPIDI_RMAIB_mpi_win_attach(MPIR_Win * win, void *base, MPI_Aint size);
int MPIDI_RMAIB_mpi_win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                        MPIR_Comm * comm_ptr, void **baseptr_p,
                                        MPIR_Win ** win_p);
int MPIDI_RMAIB_mpi_win_detach(MPIR_Win * win, const void *base);
int MPIDI_RMAIB_mpi_win_allocate(MPI_Aint size, int disp_unit, MPIR_Info * info,
                                 MPIR_Comm * comm, void *baseptr, MPIR_Win ** win_p);
int MPIDI_RMAIB_mpi_win_create_dynamic(MPIR_Info * info, MPIR_Comm * comm, MPIR_Win ** win_p);

#define MPIDI_NM_mpi_win_set_info MPIDI_RMAIB_mpi_win_set_info
#define MPIDI_NM_mpi_win_get_info MPIDI_RMAIB_mpi_win_get_info
#define MPIDI_NM_mpi_win_free MPIDI_RMAIB_mpi_win_free
#define MPIDI_NM_mpi_win_create MPIDI_RMAIB_mpi_win_create
#define MPIDI_NM_mpi_win_attach MPIDI_RMAIB_mpi_win_attach
#define MPIDI_NM_mpi_win_allocate_shared MPIDI_RMAIB_mpi_win_allocate_shared
#define MPIDI_NM_mpi_win_detach MPIDI_RMAIB_mpi_win_detach
#define MPIDI_NM_mpi_win_allocate MPIDI_RMAIB_mpi_win_allocate
#define MPIDI_NM_mpi_win_create_dynamic MPIDI_RMAIB_mpi_win_create_dynamic

#endif /* RMAIB_NOINLINE_H_INCLUDED */
