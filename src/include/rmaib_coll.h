/*
 * Collectives on rmaib's own windows (src/coll_overlay): what a binding calls.
 * MPI-free like the rest of the core: buffers are bytes, reductions are
 * (rmaib_basic_t, rmaib_op_t) pairs the caller has validated (rmaib_reduce_valid).
 *
 * One rmaib_coll_t per communicator, made collectively on first use over the
 * host communicator hcomm and kept until the binding frees it (collectively).
 * sbuf == NULL means MPI_IN_PLACE.  Results are identical on every rank.
 *
 * Every call is a schedule of steps on c's queue; calls on one communicator run
 * and finish in the order they were started, communicators independently.  The
 * blocking forms start their call and progress c until it is done.
 */
#ifndef RMAIB_COLL_H_INCLUDED
#define RMAIB_COLL_H_INCLUDED

#include <stddef.h>
#include "rmaib.h"

typedef struct rmaib_coll rmaib_coll_t;

/* Algorithms; *_AUTO chooses by size and group (RMAIB_COLL_* can force one). */
enum { RMAIB_AR_AUTO, RMAIB_AR_FLAT, RMAIB_AR_RD, RMAIB_AR_RSAG, RMAIB_AR_DPML, RMAIB_AR_DISSEM,
    RMAIB_AR_SCOPY, RMAIB_AR_COUNT };
enum { RMAIB_AG_AUTO, RMAIB_AG_RING, RMAIB_AG_RD, RMAIB_AG_BRUCK, RMAIB_AG_COUNT };
enum { RMAIB_A2A_AUTO, RMAIB_A2A_DIRECT, RMAIB_A2A_BRUCK, RMAIB_A2A_COUNT };

typedef struct rmaib_coll_config {
    int enabled;            /* RMAIB_COLL: on (1) or off (0: the host serves every call) */
    int allreduce;          /* RMAIB_COLL_ALLREDUCE: RMAIB_AR_* */
    int allgather;          /* RMAIB_COLL_ALLGATHER: RMAIB_AG_* */
    int alltoall;           /* RMAIB_COLL_ALLTOALL: RMAIB_A2A_* */
    int queue;              /* RMAIB_COLL_QUEUE: calls a communicator holds unfinished */
    int window_kib;         /* RMAIB_COLL_WINDOW: KiB of message slots a rank (cap) */
    int cma_min;            /* RMAIB_COLL_CMA: blocks from this many bytes go by single
                             * copy within a node (0: never) */
    int dissem_radix;       /* RMAIB_COLL_DISSEM_RADIX: ranges grow by it a round */
    int dense_max;          /* RMAIB_COLL_DENSE: groups up to this size give every peer
                             * a channel (0: only the algorithms' partners, always) */
} rmaib_coll_config_t;

/* KiB of message slots a communicator's window holds at most (RMAIB_COLL_WINDOW's
 * default and cap): with the rest of its state, a communicator stays within 1 MiB. */
#define RMAIB_COLL_SLOTS_KIB 768
/* Bytes of scratch a communicator keeps between calls (the single-copy allreduce
 * takes two 64 KiB chunks every call); a call that needed more frees it. */
#define RMAIB_COLL_SCRATCH_KEEP 131072
/* What a communicator's collective state keeps, in bytes (rmaib_coll_footprint). */
typedef struct rmaib_coll_mem {
    int dense;              /* a channel for every peer (else for the partners only) */
    int nnodes, lmax, nlocal, nleaders; /* nodes, ranks on the largest and ours, leaders */
    int nch;                /* channels: slot pairs and signal lines */
    size_t slot;            /* bytes of one slot */
    size_t window;          /* the window's memory: 2 slots a channel */
    size_t ctrl;            /* the window's control block */
    size_t state;           /* rmaib_coll_t, its counters, steps, queue, node lists */
    size_t peers;           /* the window's peer entries opened so far */
    size_t scratch;         /* kept scratch (Bruck's rotation, IN_PLACE copies): at
                             * most RMAIB_COLL_SCRATCH_KEEP between calls */
    size_t total;           /* all of the above (the plan: scratch at its most) */
} rmaib_coll_mem_t;
void rmaib_coll_footprint(const rmaib_coll_t *c, rmaib_coll_mem_t *m);
/* The same, as creation would size it, for a group of p ranks on nnodes nodes, lmax
 * ranks on ours (the largest) and nleaders DPML leaders; peers: an upper bound. */
void rmaib_coll_plan(int p, int nnodes, int lmax, int nleaders, rmaib_coll_mem_t *m);

/* Read the RMAIB_COLL* variables (once; later calls return the same answer):
 * RMAIB_OK, or RMAIB_ERR_ARG after saying which value is not allowed. */
int rmaib_coll_config(const rmaib_coll_config_t **cfg);

/* Collective over hcomm (rank of nranks).  Fails alike on every rank. */
int rmaib_coll_create(void *hcomm, int rank, int nranks, rmaib_coll_t **c);
/* Collective; the window goes. */
int rmaib_coll_free(rmaib_coll_t *c);

int rmaib_coll_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                         rmaib_basic_t b, rmaib_op_t op);
/* bytes: one rank's block. */
int rmaib_coll_allgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes);
int rmaib_coll_alltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes);

/* Non-blocking forms: start the call and return; done(arg, err) is called once
 * when it has finished (perhaps before the start returns), from whichever
 * progress call finishes it.  When c already holds RMAIB_COLL_QUEUE unfinished
 * calls, starting one progresses the older ones until one finishes. */
typedef void rmaib_coll_done_fn(void *arg, int err);
int rmaib_coll_iallreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                          rmaib_basic_t b, rmaib_op_t op, rmaib_coll_done_fn *done, void *arg);
int rmaib_coll_iallgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                          rmaib_coll_done_fn *done, void *arg);
int rmaib_coll_ialltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                         rmaib_coll_done_fn *done, void *arg);
int rmaib_coll_ibarrier(rmaib_coll_t *c, rmaib_coll_done_fn *done, void *arg);

/* Move c's calls on as far as they go without waiting: nonzero if anything moved.
 * progress_all does so for every communicator no other thread is progressing. */
int rmaib_coll_progress(rmaib_coll_t *c);
int rmaib_coll_progress_all(void);
/* Calls started on c and not finished. */
int rmaib_coll_pending(rmaib_coll_t *c);
/* Whether any communicator has a call started and not finished: a rank waiting
 * in the host MPI must then still run its schedules, which peers may wait on. */
int rmaib_coll_unfinished(void);
/* progress_all without completing requests (no host calls): for a hook inside the
 * host's progress engine; finished calls are reported by the next progress_all. */
int rmaib_coll_advance(void);

/* The algorithm the last call on c ran ("flat", "rd", ...), for RMAIB_VERBOSE. */
const char *rmaib_coll_last_alg(const rmaib_coll_t *c);

#endif
