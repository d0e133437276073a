/*
 * What the collective files share: the communicator's collective window and the
 * notified message that every algorithm is built from.
 *
 * A message from S to R is at most one slot of data put into R's window, then a
 * flag: R's control block holds one cache line per sender S, written by S alone,
 * with two flag words (message k raises word k & 1 to k) and an acknowledgement
 * word (written by S when it has consumed message k from R).  Data goes into one of
 * two slots per sender, again by k & 1, so a sender may run one message ahead of
 * the receiver's consumption; message k waits only for the acknowledgement of
 * message k - 2.  Counts only grow: nothing is reset between calls.  Messages of
 * up to 16 bytes between ranks that map each other's control blocks travel
 * inside the signal line.
 *
 * Each algorithm is a sequence of these send / receive steps with fixed peers, so a
 * schedule engine (issue 26) can later drive the same steps.
 */
#ifndef RMAIB_COLL_IMPL_H_INCLUDED
#define RMAIB_COLL_IMPL_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "rmaib_coll.h"
#include "rmaib_win.h"

struct rmaib_coll {
    rmaib_win_t *win;
    int rank, nranks;
    size_t slot;            /* bytes of one slot */
    size_t sig0;            /* control-block offset of sender 0's signal line */
    uint64_t *sent;         /* per peer: messages sent to it */
    uint64_t *recvd;        /* per peer: messages consumed from it */
    char *tmp;              /* scratch (IN_PLACE copies, Bruck's rotation) */
    size_t tmp_cap;
    const rmaib_coll_config_t *cfg;
    const char *last_alg;
    /* Nodes (dpml.c): this node's ranks in rank order and our index among them;
     * the ranks of our index on every node, in node order, and ours among them. */
    int nnodes, node_uniform;   /* every node has nlocal ranks */
    int *local, nlocal, lidx;
    int *leaders, nleaders, nidx;
};

/* How a received chunk is consumed: copied, or reduced into the destination with
 * the lower rank's operand first (mine_first: this rank is the lower one), so that
 * both partners compute the same bits. */
typedef struct coll_red {
    rmaib_basic_t b;
    rmaib_op_t op;
    size_t esize;
    int mine_first;
} coll_red_t;

/* Steps.  Sizes are bytes; a size 0 moves no message.  With red != NULL chunks end
 * on element boundaries (both sides of a transfer must pass the same red or none). */
int rmaib_coll_send(rmaib_coll_t *c, int peer, const void *buf, size_t len, const coll_red_t *red);
int rmaib_coll_recv(rmaib_coll_t *c, int peer, void *buf, size_t len, const coll_red_t *red);
/* Send to dst and receive from src chunk by chunk, interleaved, so that a ring of
 * ranks doing this never waits on itself. */
int rmaib_coll_sendrecv(rmaib_coll_t *c, int dst, const void *sbuf, size_t slen, int src,
                        void *rbuf, size_t rlen, const coll_red_t *red);

/* One whole message of at most a slot: send it, or wait for it and look at it in
 * place (recv_peek, len as sent), then release the slot (recv_done). */
int rmaib_coll_send_one(rmaib_coll_t *c, int peer, const void *buf, size_t len);
const void *rmaib_coll_recv_peek(rmaib_coll_t *c, int peer, size_t len);
int rmaib_coll_recv_done(rmaib_coll_t *c, int peer);

/* Recursive doubling over the group ranks[0 .. p) (NULL: ranks 0 .. p-1), in
 * which this rank has index me: every member ends with the reduction of all. */
int rmaib_coll_rd_group(rmaib_coll_t *c, const int *ranks, int p, int me, void *rbuf,
                        size_t bytes, coll_red_t *red);
/* Block i of count elements cut into p blocks: [*first, *first + *n). */
void rmaib_coll_block(size_t count, int p, int i, size_t *first, size_t *n);
/* dpml.c: learn the nodes after the window is made; the DPML allreduce. */
int rmaib_coll_nodes(rmaib_coll_t *c);
int rmaib_coll_dpml(rmaib_coll_t *c, void *rbuf, size_t count, coll_red_t *red);

/* c->tmp with at least n bytes, or NULL. */
void *rmaib_coll_scratch(rmaib_coll_t *c, size_t n);

#endif
