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

/* Below this many bytes gathered, the log-step algorithms win. */
#define LOG_MAX_BYTES 65536

static int ring(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    int right = (me + 1) % p, left = (me + p - 1) % p;
    for (int s = 0; s < p - 1 && rc == RMAIB_OK; s++) {
        size_t sb = (size_t) ((me - s + p) % p), rb = (size_t) ((me - s - 1 + 2 * p) % p);
        rc = rmaib_coll_sendrecv(c, right, rbuf + sb * bytes, bytes, left, rbuf + rb * bytes,
                                 bytes, NULL);
    }
    return rc;
}

static int rd(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    for (int mask = 1; mask < p && rc == RMAIB_OK; mask <<= 1) {
        int peer = me ^ mask;
        size_t mine = (size_t) (me & ~(mask - 1)), theirs = (size_t) (peer & ~(mask - 1));
        rc = rmaib_coll_sendrecv(c, peer, rbuf + mine * bytes, (size_t) mask * bytes, peer,
                                 rbuf + theirs * bytes, (size_t) mask * bytes, NULL);
    }
    return rc;
}

/* Scratch block i holds rank (me + i)'s block. */
static int bruck(rmaib_coll_t *c, char *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    char *t = rmaib_coll_scratch(c, (size_t) p * bytes);
    if (!t)
        return RMAIB_ERR_NO_MEM;
    memcpy(t, rbuf + (size_t) me * bytes, bytes);
    for (int d = 1; d < p && rc == RMAIB_OK; d *= 2) {
        size_t n = (size_t) (d < p - d ? d : p - d) * bytes;
        rc = rmaib_coll_sendrecv(c, (me - d + p) % p, t, n, (me + d) % p, t + (size_t) d * bytes,
                                 n, NULL);
    }
    for (int i = 1; i < p && rc == RMAIB_OK; i++)
        memcpy(rbuf + (size_t) ((me + i) % p) * bytes, t + (size_t) i * bytes, bytes);
    return rc;
}

int rmaib_coll_allgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    static const char *const names[] = { "auto", "ring", "rd", "bruck" };
    int p = c->nranks, pow2 = (p & (p - 1)) == 0;
    int a = c->cfg->allgather;
    if (a == RMAIB_AG_AUTO)
        a = (size_t) p * bytes >= LOG_MAX_BYTES ? RMAIB_AG_RING : pow2 ? RMAIB_AG_RD
            : RMAIB_AG_BRUCK;
    if (a == RMAIB_AG_RD && !pow2)
        a = RMAIB_AG_BRUCK;     /* rd pairs ranks by bits: powers of two only */
    c->last_alg = names[a];
    if (bytes == 0)
        return RMAIB_OK;
    char *r = rbuf;
    if (sbuf)
        memcpy(r + (size_t) c->rank * bytes, sbuf, bytes);
    return a == RMAIB_AG_RING ? ring(c, r, bytes) : a == RMAIB_AG_RD ? rd(c, r, bytes)
        : bruck(c, r, bytes);
}
