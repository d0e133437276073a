/*
 * A simulated host and a counting transport: one real process plays rank `me` of a
 * group of P ranks whose other members are virtual.  Virtual ranks never run code:
 * the host answers their part of every collective, the transport answers for them
 * on the network, so window creation and synchronisation can be measured at
 * P = 10^6 on one machine (sim_scale.c).
 *
 * Host (sim_host.c): allgather synthesizes each virtual rank's window-creation
 * record (rmaib_win_hello_t: its own node and host key, k ranks per node in blocks,
 * its own pid, this rank's size and disp_unit or varied sizes); any other record is
 * this rank's own, replicated.  Node size 1 (the default) puts every virtual rank on
 * a node of its own, so all of them are network peers; with k > 1 this rank must be
 * its node's lowest (me % k == 0): it creates the node's shm segment and its
 * k - 1 virtual node-mates live in it (their memory is real, in this process).
 *
 * Transport (sim_tp.c): a network backend (reach RMAIB_TP_NET) that moves no byte;
 * it counts calls per kind and the distinct peers named since the last reset, and
 * answers control-block atomics from a small model, a hash of words keyed by
 * (window, peer, offset).  Virtual peers behave as mirrors of this rank: a signal
 * this rank stores to peer q (a fence flag, a PSCW post or complete) is taken as
 * q's same signal to us, so symmetric protocols (fence, PSCW between ring
 * neighbours both ways) progress; and a peer's attach table (dynamic windows) reads
 * as ours.  Its tables are static and touched at set-up, so they change neither
 * the heap nor the resident set that sim_scale measures.
 */
#ifndef SIM_HOST_H_INCLUDED
#define SIM_HOST_H_INCLUDED

#include <stdint.h>
#include "rmaib_host.h"
#include "transport/transport.h"

/* ---- the simulated host ---- */

typedef struct sim_host_count {
    uint64_t allgather, barrier, allreduce;     /* collective calls */
    uint64_t bytes_sent, bytes_recv;    /* this rank's contribution, what it got back */
    uint64_t hellos;                    /* allgathers recognised as creation records */
    double cpu_s;                       /* CPU spent answering for the virtual ranks */
} sim_host_count_t;

extern sim_host_count_t sim_host_count;

/* Register the host table for a group of nranks in which this process is rank me,
 * k ranks per node (block layout).  Returns 0, or -1 (said on stderr) if the layout
 * is one sim_host cannot play (me not its node's lowest rank). */
int sim_host_setup(int nranks, int me, int node_size);
/* Virtual ranks' window sizes: 0 = this rank's size (symmetric); else rank r
 * exposes this rank's size + 8 * (r % 5) bytes (a Win_create-like window). */
void sim_host_vary_sizes(int on);
void sim_host_reset(void);              /* zero sim_host_count */
/* The communicator to hand rmaib_win_args_t.hcomm. */
void *sim_host_comm(void);

/* ---- the counting transport ---- */

enum sim_tp_kind {
    SIM_PUT, SIM_GET, SIM_PUTV, SIM_GETV, SIM_CTRL_ATOMIC, SIM_CTRL_STORE,
    SIM_CTRL_READ, SIM_FLUSH, SIM_FLUSH_ALL, SIM_FLUSH_LOCAL, SIM_DATA_ATOMIC, SIM_DATA_CAS,
    SIM_WIN_INIT, SIM_WIN_FINI, SIM_NKINDS
};
extern const char *const sim_tp_kind_name[SIM_NKINDS];

typedef struct sim_tp_count {
    uint64_t calls[SIM_NKINDS];
    uint64_t peers;             /* distinct peers named (not -1) since the reset */
    uint64_t put_bytes;
    int peers_overflow;         /* more distinct peers than the set holds: peers is a floor */
} sim_tp_count_t;

extern const rmaib_tp_ops_t sim_tp_ops;
extern sim_tp_count_t sim_tp_count;

/* Touch the static tables and plug the transport in (rmaib_transport_set_net_for_test);
 * 0, or -1 if rmaib has no network slot to plug it into. */
int sim_tp_setup(void);
void sim_tp_reset(void);        /* counts and the peer set; O(1) */
void sim_tp_model_clear(void);  /* forget every modelled word; O(1) */
uint64_t sim_tp_calls(void);    /* every call since the reset but win_init/fini */

#endif
