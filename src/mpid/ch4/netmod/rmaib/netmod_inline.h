/*
 * ch4:rmaib's inline netmod calls: UCX's, but for one-sided communication and
 * MPI_Allreduce, MPI_Allgather and MPI_Alltoall, which go to rmaib (rmaib_rma.h,
 * rmaib_coll.h).  Every header of MPICH includes this one: it only
 * forwards to out-of-line glue, so a change to the glue recompiles the glue alone.
 */
#ifndef NETMOD_INLINE_H_INCLUDED
#define NETMOD_INLINE_H_INCLUDED

#include "../ucx/ucx_send.h"
#include "../ucx/ucx_recv.h"
#include "../ucx/ucx_probe.h"
#include "rmaib_coll.h"
#include "../ucx/ucx_part.h"
#include "../ucx/ucx_request.h"
#include "../ucx/ucx_am.h"
#include "../ucx/ucx_proc.h"
#include "rmaib_rma.h"
#include "rmaib_noinline.h"

#endif /* NETMOD_INLINE_H_INCLUDED */
