/*
 * Alltoall on the collective window.
 *  - direct: in step i each rank sends its block for rank + i into that rank's
 *    slot, with notification, and takes the block of rank - i from its own, so
 *    every pair exchanges exactly once (p - 1 messages a rank).
 *  - bruck, for small blocks: log2 p steps, each moving about half the blocks,
 *    packed into one message, in a rotated scratch copy.
 * The blocks pass through the receiver's window slots (copy in, copy out).
 * Direct needs a channel for every pair: a group whose channels are only its
 * algorithms' partners (coll.c), across nodes beyond RMAIB_COLL_DENSE ranks, runs
 * Bruck at every block size, log2 p rounds of about half the blocks (p/2 log2 p
 * blocks moved a rank, where direct moves p - 1), within the 1 MiB bound.
 */
#include <string.h>
#include "coll_impl.h"

/* Blocks up to this size go by Bruck on groups of at least BRUCK_MIN_RANKS. */
#define BRUCK_MAX_BYTES 256
#define BRUCK_MIN_RANKS 4

/* Bruck's scratch: t holds block (me + i) % p at i; pk packs the blocks of one
 * step out, un the same blocks in (s->sbuf: t; s->rlen: bytes; s->dst: d). */
static void pack(rmaib_coll_t *c, const coll_step_t *s)
{
    char *t = (char *) s->sbuf, *pk = t + (size_t) c->nranks * s->rlen;
    size_t n = 0, bytes = s->rlen;
    for (int i = s->dst; i < c->nranks; i++)
        if (i & s->dst)
            memcpy(pk + n++ * bytes, t + (size_t) i * bytes, bytes);
}

static void unpack(rmaib_coll_t *c, const coll_step_t *s)
{
    int p = c->nranks;
    char *t = (char *) s->sbuf, *un = t + (size_t) p * s->rlen + (size_t) (p / 2 + 1) * s->rlen;
    size_t n = 0, bytes = s->rlen;
    for (int i = s->dst; i < p; i++)
        if (i & s->dst)
            memcpy(t + (size_t) i * bytes, un + n++ * bytes, bytes);
}

static void unrotate(rmaib_coll_t *c, const coll_step_t *s)
{
    int p = c->nranks, me = c->rank;
    size_t bytes = s->rlen;
    for (int i = 0; i < p; i++)
        memcpy(s->rbuf + (size_t) ((me - i + p) % p) * bytes, s->sbuf + (size_t) i * bytes,
               bytes);
}

/* A round per distance d: pack, exchange, unpack, chained. */
static int bruck(rmaib_coll_t *c, const char *s, char *r, size_t bytes)
{
    int p = c->nranks, me = c->rank;
    size_t all = (size_t) p * bytes, half = (size_t) (p / 2 + 1) * bytes;
    char *t = rmaib_coll_scratch(c, all + 2 * half);
    if (!t)
        return RMAIB_ERR_NO_MEM;
    char *pk = t + all, *un = pk + half;
    for (int i = 0; i < p; i++)
        rmaib_sched_pre(c, t + (size_t) i * bytes, s + (size_t) ((me + i) % p) * bytes,
                        bytes);
    c->fam = FAM_DIST;
    for (int d = 1; d < p; d *= 2) {
        size_t n = 0;
        for (int i = d; i < p; i++)
            n += (i & d) != 0;
        rmaib_sched_fn(c, pack, t, NULL, bytes)->dst = d;
        rmaib_sched_msg(c, (me + d) % p, pk, n * bytes, (me - d + p) % p, un, n * bytes,
                        NULL)->chain = 1;
        coll_step_t *u = rmaib_sched_fn(c, unpack, t, NULL, bytes);
        u->dst = d;
        u->chain = 1;
        rmaib_sched_round(c);
    }
    rmaib_sched_fn(c, unrotate, t, r, bytes);
    return RMAIB_OK;
}

/* Direct: every pair exchanges once, all in one round, each block taken as it
 * arrives. */
int rmaib_coll_build_alltoall(rmaib_coll_t *c, const coll_call_t *call)
{
    int p = c->nranks, me = c->rank;
    size_t bytes = call->n, all = (size_t) p * bytes;
    const char *s = call->sbuf;
    char *r = call->rbuf;
    int a = c->cfg->alltoall;
    if (rmaib_coll_cma_use(c, bytes))
        return rmaib_coll_cma_build(c, call);   /* within one node: cma.c */
    if (a == RMAIB_A2A_AUTO)
        a = bytes <= BRUCK_MAX_BYTES && p >= BRUCK_MIN_RANKS ? RMAIB_A2A_BRUCK : RMAIB_A2A_DIRECT;
    if (a == RMAIB_A2A_DIRECT && (!c->all_pairs || !rmaib_sched_fits(c, p)))
        a = RMAIB_A2A_BRUCK;    /* direct pairs every two ranks: a channel each */
    c->last_alg = a == RMAIB_A2A_BRUCK ? "bruck" : "direct";
    if (bytes == 0)
        return RMAIB_OK;
    if (a == RMAIB_A2A_BRUCK)   /* reads all of sbuf (or rbuf, in place) before writing rbuf */
        return bruck(c, s ? s : r, r, bytes);
    if (!s) {                   /* in place: blocks still to send would be overwritten */
        char *t = rmaib_coll_scratch(c, all);
        if (!t)
            return RMAIB_ERR_NO_MEM;
        rmaib_sched_pre(c, t, r, all);
        s = t;
    }
    rmaib_sched_pre(c, r + (size_t) me * bytes, s + (size_t) me * bytes, bytes);
    c->fam = FAM_LOCAL;
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, dst, s + (size_t) dst * bytes, bytes, src, r + (size_t) src * bytes,
                        bytes, NULL);
    }
    return RMAIB_OK;
}
