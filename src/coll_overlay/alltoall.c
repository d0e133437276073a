/*
 * Alltoall on the collective window, direct: in step i each rank sends its block
 * for rank + i into that rank's slot, with notification, and takes the block of
 * rank - i from its own, so every pair exchanges exactly once.  The blocks pass
 * through the receiver's window slots (copy in, copy out).
 */
#include <string.h>
#include "coll_impl.h"

int rmaib_coll_alltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    int p = c->nranks, me = c->rank, rc = RMAIB_OK;
    size_t all = (size_t) p * bytes;
    char *r = rbuf;
    c->last_alg = "direct";
    if (bytes == 0)
        return RMAIB_OK;
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
