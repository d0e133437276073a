/*
 * Alltoall on the collective window.
 *  - direct: in step i each rank sends its block for rank + i into that rank's
 *    slot, with notification, and takes the block of rank - i from its own, so
 *    every pair exchanges exactly once (p - 1 messages a rank).
 *  - bruck, for small blocks: log2 p steps, each moving about half the blocks,
 *    packed into one message, in a rotated scratch copy.
 * The blocks pass through the receiver's window slots (copy in, copy out).
 */
#include <string.h>
#include "coll_impl.h"

/* Blocks up to this size go by Bruck on groups of at least BRUCK_MIN_RANKS. */
#define BRUCK_MAX_BYTES 256
#define BRUCK_MIN_RANKS 4

/* Scratch: t holds block (me + i) % p at i; pk packs the blocks of one step out,
 * un the same blocks in. */
static int bruck(rmaib_coll_t *c, const char *s, char *r, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    size_t all = (size_t) p * bytes, half = (size_t) (p / 2 + 1) * bytes;
    char *t = rmaib_coll_scratch(c, all + 2 * half);
    if (!t)
        return RMAIB_ERR_NO_MEM;
    char *pk = t + all, *un = pk + half;
    for (int i = 0; i < p; i++)
        memcpy(t + (size_t) i * bytes, s + (size_t) ((me + i) % p) * bytes, bytes);
    for (int d = 1; d < p && rc == RMAIB_OK; d *= 2) {
        size_t n = 0;
        for (int i = d; i < p; i++)
            if (i & d)
                memcpy(pk + n++ * bytes, t + (size_t) i * bytes, bytes);
        rc = rmaib_coll_sendrecv(c, (me + d) % p, pk, n * bytes, (me - d + p) % p, un,
                                 n * bytes, NULL);
        n = 0;
        for (int i = d; i < p && rc == RMAIB_OK; i++)
            if (i & d)
                memcpy(t + (size_t) i * bytes, un + n++ * bytes, bytes);
    }
    for (int i = 0; i < p && rc == RMAIB_OK; i++)
        memcpy(r + (size_t) ((me - i + p) % p) * bytes, t + (size_t) i * bytes, bytes);
    return rc;
}

int rmaib_coll_alltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    size_t all = (size_t) p * bytes;
    char *r = rbuf;
    int a = c->cfg->alltoall;
    if (a == RMAIB_A2A_AUTO)
        a = bytes <= BRUCK_MAX_BYTES && p >= BRUCK_MIN_RANKS ? RMAIB_A2A_BRUCK : RMAIB_A2A_DIRECT;
    c->last_alg = a == RMAIB_A2A_BRUCK ? "bruck" : "direct";
    if (bytes == 0)
        return RMAIB_OK;
    if (a == RMAIB_A2A_BRUCK)   /* reads all of sbuf (or rbuf, in place) before writing rbuf */
        return bruck(c, sbuf ? sbuf : rbuf, r, bytes);
    if (!sbuf) {                /* in place: blocks still to send would be overwritten */
        if (!(sbuf = rmaib_coll_scratch(c, all)))
            return RMAIB_ERR_NO_MEM;
        memcpy((void *) sbuf, rbuf, all);
    }
    const char *s = sbuf;
    memcpy(r + (size_t) me * bytes, s + (size_t) me * bytes, bytes);
    for (int i = 1; i < p && rc == RMAIB_OK; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rc = rmaib_coll_sendrecv(c, dst, s + (size_t) dst * bytes, bytes, src,
                                 r + (size_t) src * bytes, bytes, NULL);
    }
    return rc;
}
