/*
 * Allreduce on the collective window: four algorithms, all giving every rank the
 * same bits.
 *  - flat (small vectors, small groups): every rank sends its vector to every
 *    other and each folds the p vectors in rank order 0 .. p-1; one message on
 *    the critical path (research/collectives.md §4).
 *  - rd, recursive doubling: log2 p exchanges of the whole vector; a group that is
 *    not a power of two first folds its extra ranks into their neighbours.  Each
 *    pair computes lower rank's operand op higher rank's, so both hold the same.
 *  - rsag, reduce-scatter then allgather, both as rings: each block is reduced
 *    once, by one rank, then copied; about 2 n bytes moved a rank whatever p.
 *  - dpml (dpml.c), for groups spanning nodes of equal size: the automatic choice
 *    there above the flat algorithm's sizes.
 */
#include <string.h>
#include "coll_impl.h"
#include "base/reduce.h"

/* Below this many bytes (and at most this many ranks) the flat algorithm wins. */
#define FLAT_MAX_BYTES 2048
#define FLAT_MAX_RANKS 8
/* From this many bytes on, rsag moves less than rd. */
#define RSAG_MIN_BYTES 65536

static int flat(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count, rmaib_basic_t b,
                rmaib_op_t op, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    const void *mine = sbuf;
    if (!mine) {                /* in place: rbuf is overwritten before we fold ours in */
        if (!(mine = rmaib_coll_scratch(c, bytes)))
            return RMAIB_ERR_NO_MEM;
        memcpy((void *) mine, rbuf, bytes);
    }
    for (int i = 1; i < p && rc == RMAIB_OK; i++)
        rc = rmaib_coll_send_one(c, (me + i) % p, mine, bytes);
    for (int r = 0; r < p && rc == RMAIB_OK; r++) {
        const void *in = r == me ? mine : rmaib_coll_recv_peek(c, r, bytes);
        if (r == 0)
            memcpy(rbuf, in, bytes);
        else
            rmaib_reduce(b, op, rbuf, in, count);
        if (r != me)
            rc = rmaib_coll_recv_done(c, r);
    }
    return rc;
}

/* Group index of new index nr in recursive doubling over p2, rem of them folded. */
static int rd_index(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

int rmaib_coll_rd_group(rmaib_coll_t *c, const int *ranks, int p, int me, void *rbuf,
                        size_t bytes, coll_red_t *red)
{
    int rc = RMAIB_OK, p2 = 1;
#define RANK(i) (ranks ? ranks[i] : (i))
    while (p2 * 2 <= p)
        p2 *= 2;
    int rem = p - p2, nr;
    /* Fold: even indices below 2 rem hand their vector to the odd one above. */
    if (me < 2 * rem && me % 2 == 0) {
        rc = rmaib_coll_send(c, RANK(me + 1), rbuf, bytes, red);
        nr = -1;
    } else if (me < 2 * rem) {
        red->mine_first = 0;
        rc = rmaib_coll_recv(c, RANK(me - 1), rbuf, bytes, red);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    for (int mask = 1; nr >= 0 && mask < p2 && rc == RMAIB_OK; mask <<= 1) {
        int peer = rd_index(nr ^ mask, rem);
        red->mine_first = me < peer;
        rc = rmaib_coll_sendrecv(c, RANK(peer), rbuf, bytes, RANK(peer), rbuf, bytes, red);
    }
    if (rc == RMAIB_OK && me < 2 * rem)
        rc = me % 2 ? rmaib_coll_send(c, RANK(me - 1), rbuf, bytes, NULL)
            : rmaib_coll_recv(c, RANK(me + 1), rbuf, bytes, NULL);
#undef RANK
    return rc;
}

void rmaib_coll_block(size_t count, int p, int i, size_t *first, size_t *n)
{
    size_t q = count / (size_t) p, r = count % (size_t) p, ui = (size_t) i;
    *first = ui * q + (ui < r ? ui : r);
    *n = q + (ui < r);
}

static int rsag(rmaib_coll_t *c, void *rbuf, size_t count, coll_red_t *red)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    int right = (me + 1) % p, left = (me + p - 1) % p;
    size_t es = red->esize, sf, sn, rf, rn;
    char *v = rbuf;
    red->mine_first = 1;
    /* After step s we hold the partial sum of block (me - s - 1) over s + 2 ranks. */
    for (int s = 0; s < p - 1 && rc == RMAIB_OK; s++) {
        rmaib_coll_block(count, p, (me - s + 2 * p) % p, &sf, &sn);
        rmaib_coll_block(count, p, (me - s - 1 + 2 * p) % p, &rf, &rn);
        rc = rmaib_coll_sendrecv(c, right, v + sf * es, sn * es, left, v + rf * es, rn * es, red);
    }
    /* Now block me + 1 is complete here: pass the complete blocks round. */
    for (int s = 0; s < p - 1 && rc == RMAIB_OK; s++) {
        rmaib_coll_block(count, p, (me + 1 - s + 2 * p) % p, &sf, &sn);
        rmaib_coll_block(count, p, (me - s + 2 * p) % p, &rf, &rn);
        rc = rmaib_coll_sendrecv(c, right, v + sf * es, sn * es, left, v + rf * es, rn * es, NULL);
    }
    return rc;
}

static int choose(const rmaib_coll_t *c, size_t count, size_t bytes)
{
    int a = c->cfg->allreduce;
    if (a == RMAIB_AR_FLAT && bytes > c->slot)
        a = RMAIB_AR_AUTO;      /* flat sends the vector as one message */
    if (a == RMAIB_AR_DPML && !c->node_uniform)
        a = RMAIB_AR_AUTO;      /* DPML pairs the i-th rank of every node */
    if (a != RMAIB_AR_AUTO)
        return a;
    if (bytes <= FLAT_MAX_BYTES && c->nranks <= FLAT_MAX_RANKS)
        return RMAIB_AR_FLAT;
    if (c->nnodes > 1 && c->node_uniform && count >= (size_t) c->nlocal)
        return RMAIB_AR_DPML;
    return bytes >= RSAG_MIN_BYTES && count >= (size_t) c->nranks ? RMAIB_AR_RSAG : RMAIB_AR_RD;
}

int rmaib_coll_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                         rmaib_basic_t b, rmaib_op_t op)
{
    static const char *const names[] = { "auto", "flat", "rd", "rsag", "dpml" };
    coll_red_t red = { b, op, rmaib_basic_size(b), 1 };
    size_t bytes = count * red.esize;
    int a = choose(c, count, bytes);
    c->last_alg = names[a];
    if (bytes == 0)
        return RMAIB_OK;
    if (c->nranks == 1 || a == RMAIB_AR_FLAT) {
        if (c->nranks == 1 && sbuf)
            memcpy(rbuf, sbuf, bytes);
        return c->nranks == 1 ? RMAIB_OK : flat(c, sbuf, rbuf, count, b, op, bytes);
    }
    if (sbuf)
        memcpy(rbuf, sbuf, bytes);
    if (a == RMAIB_AR_DPML)
        return rmaib_coll_dpml(c, rbuf, count, &red);
    return a == RMAIB_AR_RD ? rmaib_coll_rd_group(c, NULL, c->nranks, c->rank, rbuf, bytes, &red)
        : rsag(c, rbuf, count, &red);
}
