/*
 * Allgather on the collective window.
 *  - ring: p - 1 steps, each passing one block to the right; every byte crosses
 *    one link per step, the large-message choice.
 *  - rd, recursive doubling (powers of two): log2 p exchanges of the blocks
 *    gathered so far, which sit side by side in the result.
 *  - bruck: log2 p steps for any p, in a rotated scratch copy that is turned
 *    round at the end.
 */
#include <string.h>
#include "coll_impl.h"

/* Below this many bytes gathered, the log-step algorithms win; and whatever p,
 * the ring takes only blocks of RING_MIN_BLOCK or more: below, rd and Bruck were
 * faster at every block measured, on 8 and 16 ranks (docs/performance-coll.md). */
#define LOG_MAX_BYTES 65536
#define RING_MIN_BLOCK 65536

static void ring(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank;
    int right = (me + 1) % p, left = (me + p - 1) % p;
    c->fam = FAM_DIST;
    for (int s = 0; s < p - 1; s++) {
        size_t sb = (size_t) ((me - s + p) % p), rb = (size_t) ((me - s - 1 + 2 * p) % p);
        rmaib_sched_msg(c, right, rbuf + sb * bytes, bytes, left, rbuf + rb * bytes, bytes, NULL);
        rmaib_sched_round(c);
    }
}

static void rd(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank;
    c->fam = FAM_RD;            /* bit i's partner: the same as rd_group's (p = 2^k) */
    c->fam_id = 0;
    for (int mask = 1; mask < p; mask <<= 1, c->fam_id++) {
        int peer = me ^ mask;
        size_t mine = (size_t) (me & ~(mask - 1)), theirs = (size_t) (peer & ~(mask - 1));
        rmaib_sched_msg(c, peer, rbuf + mine * bytes, (size_t) mask * bytes, peer,
                        rbuf + theirs * bytes, (size_t) mask * bytes, NULL);
        rmaib_sched_round(c);
    }
}

/* Bruck's last step: scratch block i (s->sbuf) is rank (me + i)'s. */
static void unrotate(rmaib_coll_t *c, const coll_step_t *s)
{
    int p = c->nranks, me = c->rank;
    size_t bytes = s->rlen;
    for (int i = 1; i < p; i++)
        memcpy(s->rbuf + (size_t) ((me + i) % p) * bytes, s->sbuf + (size_t) i * bytes, bytes);
}

static int bruck(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank;
    char *t = rmaib_coll_scratch(c, (size_t) p * bytes);
    if (!t)
        return RMAIB_ERR_NO_MEM;
    rmaib_sched_pre(c, t, rbuf + (size_t) me * bytes, bytes);
    c->fam = FAM_DIST;
    for (int d = 1; d < p; d *= 2) {
        size_t n = (size_t) (d < p - d ? d : p - d) * bytes;
        rmaib_sched_msg(c, (me - d + p) % p, t, n, (me + d) % p, t + (size_t) d * bytes, n, NULL);
        rmaib_sched_round(c);
    }
    rmaib_sched_fn(c, unrotate, t, rbuf, bytes);
    return RMAIB_OK;
}

int rmaib_coll_build_allgather(rmaib_coll_t *c, const coll_call_t *call)
{
    static const char *const names[] = { "auto", "ring", "rd", "bruck" };
    int p = c->nranks, pow2 = (p & (p - 1)) == 0;
    size_t bytes = call->n;
    int a = c->cfg->allgather;
    if (rmaib_coll_cma_use(c, bytes))
        return rmaib_coll_cma_build(c, call);   /* within one node: cma.c */
    if (a == RMAIB_AG_AUTO)
        a = (size_t) p * bytes >= LOG_MAX_BYTES && bytes >= RING_MIN_BLOCK ? RMAIB_AG_RING
            : pow2 ? RMAIB_AG_RD : RMAIB_AG_BRUCK;
    if (a == RMAIB_AG_RING && !rmaib_sched_fits(c, p))
        a = pow2 ? RMAIB_AG_RD : RMAIB_AG_BRUCK;        /* p - 1 rounds: not beyond the cap */
    if (a == RMAIB_AG_RD && !pow2)
        a = RMAIB_AG_BRUCK;     /* rd pairs ranks by bits: powers of two only */
    c->last_alg = names[a];
    if (bytes == 0)
        return RMAIB_OK;
    char *r = call->rbuf;
    if (call->sbuf)
        rmaib_sched_pre(c, r + (size_t) c->rank * bytes, call->sbuf, bytes);
    if (p == 1)
        return RMAIB_OK;
    if (a == RMAIB_AG_RING)
        ring(c, r, bytes);
    else if (a == RMAIB_AG_RD)
        rd(c, r, bytes);
    else
        return bruck(c, r, bytes);
    return RMAIB_OK;
}
