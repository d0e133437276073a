/*
 * Allreduce on the collective window: five algorithms, all giving every rank the
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
 *  - dissem (dissem.c), n-way dissemination in ceil(log_m p) rounds: only when
 *    forced (measured against rd and flat in docs/performance.md).
 * Each builds its steps into the schedule (sched.c); the builder runs when the
 * call reaches the head of its communicator's queue, so it may copy locally.
 */
#include <string.h>
#include "coll_impl.h"
#include "base/reduce.h"

/* Below this many bytes (and at most this many ranks) the flat algorithm wins. */
#define FLAT_MAX_BYTES 2048
#define FLAT_MAX_RANKS 8
/* From this many bytes on, rsag moves less than rd. */
#define RSAG_MIN_BYTES 65536
/* From this many bytes on, within a node, single copy beats the window path
 * (docs/performance.md, "single-copy allreduce"). */
#define SCOPY_MIN_BYTES 65536

/* One round: the sends, and the folds chained in rank order. */
static int flat(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes, coll_red_t *red)
{
    int p = c->nranks, me = c->rank;
    const void *mine = sbuf;
    if (!mine) {                /* in place: rbuf is overwritten before we fold ours in */
        if (!(mine = rmaib_coll_scratch(c, bytes)))
            return RMAIB_ERR_NO_MEM;
        rmaib_sched_pre(c, (void *) mine, rbuf, bytes);
    }
    c->fam = FAM_LOCAL;         /* (every pair: only chosen where every pair has one) */
    for (int i = 1; i < p; i++)
        rmaib_sched_msg(c, (me + i) % p, mine, bytes, 0, NULL, 0, NULL);
    for (int r = 0; r < p; r++) {
        coll_step_t *s;
        if (r == me)
            s = r == 0 ? rmaib_sched_copy(c, rbuf, mine, bytes)
                : rmaib_sched_reduce(c, red, rbuf, mine, bytes);
        else
            s = rmaib_sched_msg(c, 0, NULL, 0, r, rbuf, bytes, r == 0 ? NULL : red);
        if (r > 0 && s->chain != 2)
            s->chain = 1;
    }
    return RMAIB_OK;
}

/* Group index of new index nr in recursive doubling over p2, rem of them folded. */
static int rd_index(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

/* The fold's channel is bit lg's (no bit reaches it), bit i's is i. */
void rmaib_coll_rd_group(rmaib_coll_t *c, int leaders, int p, int me, void *rbuf,
                         size_t bytes, coll_red_t *red)
{
    int p2 = 1, fold = leaders ? c->lgl : c->lg;
    c->fam = leaders ? FAM_RDL : FAM_RD;
    c->fam_id = fold;
#define RANK(i) (leaders ? rmaib_coll_leader_rank(c, i) : (i))
    while (p2 * 2 <= p)
        p2 *= 2;
    int rem = p - p2, nr;
    /* Fold: even indices below 2 rem hand their vector to the odd one above. */
    if (me < 2 * rem && me % 2 == 0) {
        rmaib_sched_msg(c, RANK(me + 1), rbuf, bytes, 0, NULL, 0, red);
        nr = -1;
    } else if (me < 2 * rem) {
        red->mine_first = 0;
        rmaib_sched_msg(c, 0, NULL, 0, RANK(me - 1), rbuf, bytes, red);
        nr = me / 2;
    } else {
        nr = me - rem;
    }
    rmaib_sched_round(c);
    for (int mask = 1, bit = 0; nr >= 0 && mask < p2; mask <<= 1, bit++) {
        int peer = rd_index(nr ^ mask, rem);
        c->fam_id = bit;
        red->mine_first = me < peer;
        rmaib_sched_msg(c, RANK(peer), rbuf, bytes, RANK(peer), rbuf, bytes, red);
        rmaib_sched_round(c);
    }
    c->fam_id = fold;
    if (me < 2 * rem && me % 2)
        rmaib_sched_msg(c, RANK(me - 1), rbuf, bytes, 0, NULL, 0, NULL);
    else if (me < 2 * rem)
        rmaib_sched_msg(c, 0, NULL, 0, RANK(me + 1), rbuf, bytes, NULL);
    rmaib_sched_round(c);
#undef RANK
}

void rmaib_coll_block(size_t count, int p, int i, size_t *first, size_t *n)
{
    size_t q = count / (size_t) p, r = count % (size_t) p, ui = (size_t) i;
    *first = ui * q + (ui < r ? ui : r);
    *n = q + (ui < r);
}

/* sbuf (NULL: in place) is read directly for block me, the first one sent, so only
 * the other blocks are copied into rbuf first. */
static void rsag(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count, coll_red_t *red)
{
    int p = c->nranks, me = c->rank;
    int right = (me + 1) % p, left = (me + p - 1) % p;
    size_t es = red->esize, sf, sn, rf, rn;
    char *v = rbuf;
    const char *in = sbuf ? sbuf : rbuf;
    rmaib_coll_block(count, p, me, &sf, &sn);
    if (sbuf) {
        rmaib_sched_pre(c, v, in, sf * es);
        rmaib_sched_pre(c, v + (sf + sn) * es, in + (sf + sn) * es, (count - sf - sn) * es);
    }
    red->mine_first = 1;
    c->fam = FAM_DIST;
    /* After step s we hold the partial sum of block (me - s - 1) over s + 2 ranks. */
    for (int s = 0; s < p - 1; s++) {
        rmaib_coll_block(count, p, (me - s + 2 * p) % p, &sf, &sn);
        rmaib_coll_block(count, p, (me - s - 1 + 2 * p) % p, &rf, &rn);
        rmaib_sched_msg(c, right, (s ? v : in) + sf * es, sn * es, left, v + rf * es, rn * es,
                        red);
        rmaib_sched_round(c);
    }
    /* Now block me + 1 is complete here: pass the complete blocks round. */
    for (int s = 0; s < p - 1; s++) {
        rmaib_coll_block(count, p, (me + 1 - s + 2 * p) % p, &sf, &sn);
        rmaib_coll_block(count, p, (me - s + 2 * p) % p, &rf, &rn);
        rmaib_sched_msg(c, right, v + sf * es, sn * es, left, v + rf * es, rn * es, NULL);
        rmaib_sched_round(c);
    }
}

static int choose(const rmaib_coll_t *c, size_t count, size_t bytes)
{
    int a = c->cfg->allreduce, p = c->nranks;
    int rsag_fits = rmaib_sched_fits(c, 2L * p);
    if (a == RMAIB_AR_FLAT && (bytes > c->slot || !c->all_pairs || !rmaib_sched_fits(c, 2L * p)))
        a = RMAIB_AR_AUTO;      /* flat sends the vector as one message, to every peer */
    if (a == RMAIB_AR_DISSEM && (!c->all_pairs || p > 64))
        a = RMAIB_AR_AUTO;      /* its partners are any ranks; its steps grow with p */
    if (a == RMAIB_AR_RSAG && !rsag_fits)
        a = RMAIB_AR_AUTO;      /* 2 (p - 1) rounds */
    if (a == RMAIB_AR_DPML && !rmaib_sched_fits(c, 2L * c->nlocal + 2L * c->lgl + 8))
        a = RMAIB_AR_AUTO;
    if (a == RMAIB_AR_DPML && !c->node_uniform)
        a = RMAIB_AR_AUTO;      /* DPML pairs the i-th rank of every node */
    if (a == RMAIB_AR_SCOPY && (!c->cma || !rmaib_sched_fits(c, 3L * p)))
        a = RMAIB_AR_AUTO;      /* not one node over shm, or the probe was refused */
    if (a != RMAIB_AR_AUTO)
        return a;
    if (bytes <= FLAT_MAX_BYTES && c->nranks <= FLAT_MAX_RANKS && c->all_pairs)
        return RMAIB_AR_FLAT;
    if (c->nnodes > 1 && c->node_uniform && count >= (size_t) c->nlocal
        && rmaib_sched_fits(c, 2L * c->nlocal + 2L * c->lgl + 8))
        return RMAIB_AR_DPML;
    if (bytes >= SCOPY_MIN_BYTES && count >= (size_t) c->nranks
        && rmaib_coll_cma_use(c, bytes / (size_t) c->nranks))
        return RMAIB_AR_SCOPY;
    return bytes >= RSAG_MIN_BYTES && count >= (size_t) c->nranks && rsag_fits ? RMAIB_AR_RSAG
        : RMAIB_AR_RD;
}

int rmaib_coll_build_allreduce(rmaib_coll_t *c, const coll_call_t *call)
{
    static const char *const names[] = { "auto", "flat", "rd", "rsag", "dpml", "dissem",
        "single-copy" };
    coll_red_t red = { call->b, call->op, rmaib_basic_size(call->b), 1 };
    size_t count = call->n, bytes = count * red.esize;
    const void *sbuf = call->sbuf;
    void *rbuf = call->rbuf;
    int a = choose(c, count, bytes);
    c->last_alg = names[a];
    if (bytes == 0)
        return RMAIB_OK;
    if (c->nranks > 1 && a == RMAIB_AR_FLAT)
        return flat(c, sbuf, rbuf, bytes, &red);
    if (c->nranks > 1 && a == RMAIB_AR_DISSEM)
        return rmaib_coll_dissem(c, sbuf, rbuf, bytes, &red);
    if (c->nranks > 1 && a == RMAIB_AR_SCOPY)
        return rmaib_coll_cma_allreduce(c, sbuf, rbuf, count, &red);
    if (sbuf && (c->nranks == 1 || a != RMAIB_AR_RSAG))
        rmaib_sched_pre(c, rbuf, sbuf, bytes);
    if (c->nranks == 1)
        return RMAIB_OK;
    if (a == RMAIB_AR_DPML)
        rmaib_coll_dpml(c, rbuf, count, &red);
    else if (a == RMAIB_AR_RD)
        rmaib_coll_rd_group(c, 0, c->nranks, c->rank, rbuf, bytes, &red);
    else
        rsag(c, sbuf, rbuf, count, &red);
    return RMAIB_OK;
}
