/*
 * What the collective files share: the communicator's collective window, the
 * notified message every algorithm is built from, and the schedule (sched.c) that
 * runs an algorithm as steps.
 *
 * A message from S to R travels on a channel of R: a slot pair in R's window and
 * a signal line in R's control block, each written by one sender S for the
 * communicator's life (coll.c "Channels": small groups give every peer one, larger
 * ones only the partners the algorithms talk to).  A message is at most one slot
 * of data put into R's window, then a flag: R's signal line for S holds
 * two flag words (message k raises word k & 1 to k) and an acknowledgement
 * word (written by S when it has consumed message k from R).  Data goes into one of
 * two slots per sender, again by k & 1, so a sender may run one message ahead of
 * the receiver's consumption; message k waits only for the acknowledgement of
 * message k - 2.  Counts only grow: nothing is reset between calls.  Messages of
 * up to 16 bytes between ranks that map each other's control blocks travel
 * inside the signal line.
 *
 * A schedule is a sequence of rounds of steps.  A round's dependency counter
 * holds its unfinished steps; the next round starts when it reaches zero.  Within
 * a round every step runs as soon as it can (a chained step only after the step
 * before it), and no two message steps of a round share a sender or a receiver
 * peer, so messages on each channel keep their order.  A message step never
 * blocks: it moves the chunks it can and is tried again on the next pass.
 */
#ifndef RMAIB_COLL_IMPL_H_INCLUDED
#define RMAIB_COLL_IMPL_H_INCLUDED

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "rmaib_coll.h"
#include "rmaib_win.h"

/* How a received chunk is consumed: copied, or reduced into the destination with
 * the lower rank's operand first (mine_first: this rank is the lower one), so that
 * both partners compute the same bits. */
typedef struct coll_red {
    rmaib_basic_t b;
    rmaib_op_t op;
    size_t esize;
    int mine_first;
} coll_red_t;

enum { STEP_MSG, STEP_COPY, STEP_REDUCE, STEP_FN, STEP_READ };

typedef struct coll_step coll_step_t;
typedef void coll_step_fn(rmaib_coll_t *c, const coll_step_t *s);

/* MSG: send slen bytes of sbuf to dst and receive rlen bytes from src into rbuf,
 * chunk by chunk (chunk i is received after chunk i is sent: sbuf may be rbuf).
 * COPY: rlen bytes sbuf -> rbuf.  REDUCE: rbuf = rbuf op sbuf, rlen bytes.
 * FN: fn(c, step), local work with the step's fields as arguments.
 * READ (cma.c): rlen bytes at offset slen of the buffer src published -> rbuf. */
struct coll_step {
    unsigned char kind, chain, has_red, done;
    int dst, src;
    /* The channels (coll.c): ours at dst (dthere) and dst's at us (dhere, where its
     * acknowledgements arrive); src's at us (shere) and ours at src (sthere). */
    int dthere, dhere, shere, sthere;
    const char *sbuf;
    char *rbuf;
    size_t slen, rlen, soff, roff;
    coll_red_t red;
    coll_step_fn *fn;
};

/* A call waiting in the communicator's queue, or running at its head. */
typedef struct coll_call {
    int kind;                   /* COLL_* */
    rmaib_basic_t b;
    rmaib_op_t op;
    const void *sbuf;
    void *rbuf;
    size_t n;                   /* allreduce: elements; others: bytes of one block */
    rmaib_coll_done_fn *done;
    void *arg;
    int err;                    /* once finished */
} coll_call_t;

enum { COLL_ALLREDUCE, COLL_ALLGATHER, COLL_ALLTOALL, COLL_BARRIER };

/* Channel families of a sparse group (coll.c): node-local peers by local index;
 * peers at distance +-2^i; recursive doubling's partner of bit i (and its fold)
 * over the whole group and over the leaders of DPML. */
enum { FAM_LOCAL, FAM_DIST, FAM_RD, FAM_RDL };
/* Leader-group indices whose ranks a rank keeps (recursive doubling's partners,
 * the fold's, at most 2 + 31). */
#define COLL_MAX_LPART 40

struct rmaib_coll {
    rmaib_win_t *win;
    int rank, nranks;
    size_t slot;            /* bytes of one slot */
    size_t sig0;            /* control-block offset of channel 0's signal line */
    /* Channels: dense (one per peer, by rank) or sparse (families at bases below). */
    int dense, nch, lmax, lg, lgl;      /* lmax: most ranks on a node; lg: ceil log2 p */
    int dist_base, rd_base, rdl_base;
    int all_pairs;          /* every pair has a channel (flat, direct, single copy) */
    int fam, fam_id;        /* while building: the family of the next messages */
    uint64_t *sent;         /* per channel (the peer's at us): messages sent to it */
    uint64_t *recvd;        /* per channel: messages consumed from it */
    uint64_t *acked;        /* per channel: the peer's acknowledgement as last read */
    char *tmp;              /* scratch (IN_PLACE copies, Bruck's rotation) */
    size_t tmp_cap;
    const rmaib_coll_config_t *cfg;
    const char *last_alg;
    /* Nodes (dpml.c): this node's ranks in rank order and our index among them;
     * the ranks of our index on every node, in node order, and ours among them. */
    int nnodes, node_uniform;   /* every node has nlocal ranks */
    int *local, nlocal, lidx;
    int nleaders, nidx;
    /* The schedule of the call at the queue's head (sched.c): its steps, the
     * current round [rs, re) and its dependency counter. */
    coll_step_t *steps;
    int nsteps, cap_steps, rs, re, pending, built, err;
    /* What the last pass found it could not do for want of a flag: how many
     * times, and the last such flag word and the count it waits for. */
    int nwait;
    const uint64_t *wait_word;
    uint64_t wait_k;
    char token;             /* the barrier's message */
    /* Single copy within a node (cma.c): usable (every rank agreed at creation),
     * the address we publish, the ones published to us, the probe word read at
     * creation, and the first error of a read (the call reports it once every
     * reader has released its owner). */
    int cma;
    uint64_t cma_mine, *cma_addr, cma_probe;
    uint64_t cma_res;           /* cma_allreduce.c: the result we publish */
    int late_err;
    /* The call the steps were last built for and the copies its builder made
     * before any step ran (sched_pre): a blocking call that repeats it replays
     * those and runs the same steps again, unbuilt (reusable: at most two). */
    coll_call_t last;
    int reusable, npre;
    struct coll_pre { void *dst; const void *src; size_t n; } pre[2];
    /* Calls started and not reported, oldest first, in a ring of qcap; the first
     * qdone of them have finished (the progress thread reports nothing). */
    coll_call_t *q;
    int qcap, qhead, qlen, qdone;
    atomic_flag busy;       /* one thread at a time runs the schedules */
    int mapped;             /* every peer's control block is mapped (shm): sched.c's thread serves c */
    struct rmaib_coll *next, *prev;     /* every communicator's, for progress */
    /* dpml.c: the leader-group indices recursive doubling pairs us with, and
     * their ranks (last: cold, off the lines the messages use). */
    int nlpart, lpart_idx[COLL_MAX_LPART], lpart_rank[COLL_MAX_LPART];
};

/* ---- messages (coll.c).  Sizes are bytes; try forms never wait. */
/* Send one message of at most a slot on our channel there at peer (whose channel
 * at us is here): 1 if sent, 0 if its slot is still busy. */
int rmaib_coll_try_send(rmaib_coll_t *c, int peer, int there, int here, const void *buf,
                        size_t len, int *rc);
/* The next message on our channel here (from peer, len as sent) in place, or NULL
 * if not there yet; then release its slot (recv_done; there: ours at peer). */
const void *rmaib_coll_try_peek(rmaib_coll_t *c, int peer, int here, size_t len);
int rmaib_coll_recv_done(rmaib_coll_t *c, int peer, int there, int here);
/* The channels of a message with peer in the family c->fam: ours at peer and
 * peer's at us; RMAIB_ERR_INTERN if the pair has none there. */
int rmaib_coll_link(const rmaib_coll_t *c, int peer, int *there, int *here);
/* Bytes of one chunk of a message step (whole elements with red). */
static inline size_t rmaib_coll_chunk(const rmaib_coll_t *c, const coll_red_t *red)
{
    return red ? c->slot - c->slot % red->esize : c->slot;
}
/* Consume one received chunk of n bytes at dst. */
void rmaib_coll_consume(void *dst, void *slot, size_t n, const coll_red_t *red);
/* Move a message step as far as it goes without waiting (sets s->done). */
int rmaib_coll_run_msg(rmaib_coll_t *c, coll_step_t *s, int *moved);

/* ---- building a schedule (sched.c).  Steps go into the current round. */
coll_step_t *rmaib_sched_msg(rmaib_coll_t *c, int dst, const void *sbuf, size_t slen, int src,
                             void *rbuf, size_t rlen, const coll_red_t *red);
coll_step_t *rmaib_sched_copy(rmaib_coll_t *c, void *dst, const void *src, size_t n);
coll_step_t *rmaib_sched_reduce(rmaib_coll_t *c, const coll_red_t *red, void *inout,
                                const void *in, size_t n);
coll_step_t *rmaib_sched_fn(rmaib_coll_t *c, coll_step_fn *fn, const void *sbuf, void *rbuf,
                            size_t len);
/* Read n bytes at offset off of the buffer src published into rbuf (cma.c). */
coll_step_t *rmaib_sched_read(rmaib_coll_t *c, int src, size_t off, void *rbuf, size_t n);
/* Copy n bytes now, while building, and again whenever the schedule is reused. */
void rmaib_sched_pre(rmaib_coll_t *c, void *dst, const void *src, size_t n);
/* Close the current round: later steps wait for all of it. */
void rmaib_sched_round(rmaib_coll_t *c);
/* Steps a schedule may hold on a group of p ranks (bounded at any p), and whether
 * an algorithm of n steps fits: those that do not are not chosen. */
int rmaib_sched_max_steps(int p);
static inline int rmaib_sched_fits(const rmaib_coll_t *c, long n)
{
    return n <= c->cap_steps;
}

/* ---- algorithms: build call's schedule (allreduce.c, allgather.c, alltoall.c). */
int rmaib_coll_build_allreduce(rmaib_coll_t *c, const coll_call_t *call);
int rmaib_coll_build_allgather(rmaib_coll_t *c, const coll_call_t *call);
int rmaib_coll_build_alltoall(rmaib_coll_t *c, const coll_call_t *call);

/* Recursive doubling over the group of p ranks (leaders: DPML's leaders of our
 * local index, else the whole communicator), in which this rank has index me:
 * every member ends with the reduction of all. */
void rmaib_coll_rd_group(rmaib_coll_t *c, int leaders, int p, int me, void *rbuf,
                         size_t bytes, coll_red_t *red);
/* Rank of leader-group index i (one of the partners kept in lpart). */
int rmaib_coll_leader_rank(const rmaib_coll_t *c, int i);
/* Block i of count elements cut into p blocks: [*first, *first + *n). */
void rmaib_coll_block(size_t count, int p, int i, size_t *first, size_t *n);
/* dpml.c: learn the nodes from node[r] (the node of every rank, numbered by first
 * rank; nnodes of them); the DPML allreduce. */
int rmaib_coll_nodes(rmaib_coll_t *c, const int32_t *node, int nnodes);
void rmaib_coll_dpml(rmaib_coll_t *c, void *rbuf, size_t count, coll_red_t *red);
/* dissem.c: the n-way dissemination allreduce, from sbuf (NULL: in place). */
int rmaib_coll_dissem(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                      coll_red_t *red);

/* RMAIB_COLL_CMA's default: blocks from 16 KiB go by single copy within a node. */
#define RMAIB_COLL_CMA_DEFAULT 16384
/* cma.c: find out, collectively, whether the group reads peers' buffers with
 * process_vm_readv (c->cma); whether a call of block bytes does; its schedule;
 * and the READ step. */
void rmaib_coll_cma_init(rmaib_coll_t *c);
int rmaib_coll_cma_use(const rmaib_coll_t *c, size_t bytes);
int rmaib_coll_cma_build(rmaib_coll_t *c, const coll_call_t *call);
int rmaib_coll_run_read(rmaib_coll_t *c, coll_step_t *s, int *moved);
/* cma_allreduce.c: the single-copy allreduce (sbuf NULL: in place). */
int rmaib_coll_cma_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                             const coll_red_t *red);

/* c->tmp with at least n bytes, or NULL; after a call, free it if it grew past
 * RMAIB_COLL_SCRATCH_KEEP (scratch grows with p: Bruck's rotation). */
void *rmaib_coll_scratch(rmaib_coll_t *c, size_t n);
void rmaib_coll_scratch_trim(rmaib_coll_t *c);

/* sched.c: enrol c for rmaib_coll_progress_all, and take it out. */
void rmaib_sched_enrol(rmaib_coll_t *c);
void rmaib_sched_leave(rmaib_coll_t *c);

#endif
