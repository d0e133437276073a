/*
 * ch4:rmaib's per-object types.  Everything but one-sided communication is MPICH's
 * UCX netmod, compiled into this one, so every object carries UCX's state; a
 * window's rmaib state is the binding's, its pointer kept in the UCX window's
 * info_table (rmaib_nm.h).  configure names the members of ch4's unions "ucx"
 * (subconfigure.m4), as UCX's code expects.
 */
#ifndef RMAIB_PRE_H_INCLUDED
#define RMAIB_PRE_H_INCLUDED

#include "../ucx/ucx_pre.h"

typedef MPIDI_UCX_am_request_t MPIDI_RMAIB_am_request_t;
typedef MPIDI_UCX_request_t MPIDI_RMAIB_request_t;
typedef MPIDI_UCX_comm_t MPIDI_RMAIB_comm_t;
typedef MPIDI_UCX_dt_t MPIDI_RMAIB_dt_t;
typedef MPIDI_UCX_op_t MPIDI_RMAIB_op_t;
typedef MPIDI_UCX_win_t MPIDI_RMAIB_win_t;
typedef MPIDI_UCX_addr_t MPIDI_RMAIB_addr_t;
typedef MPIDI_UCX_part_t MPIDI_RMAIB_part_t;

#endif /* RMAIB_PRE_H_INCLUDED */
