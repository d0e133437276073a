/*
 * Single-copy allreduce within a node (RMAIB_COLL_ALLREDUCE=single-copy, or auto
 * from CMA_AR_MIN_BYTES): a reduce-scatter in which rank i reads block i of every
 * peer's input straight from the peer with process_vm_readv, then an allgather in
 * which every rank reads block i straight from rank i's result.  Each byte crosses
 * between processes once in each half, where the window path (rsag) copies it
 * into a slot and out again, twice.
 *
 * Round 1: send every peer the address of our input (sbuf, or rbuf in place).
 * Round 2: reduce our block, chunk by chunk so each chunk's operands stay in
 *   cache, folding the p operands in rank order 0 .. p-1 (as flat does): one rank
 *   reduces each block, so every rank ends with the same bits.
 * Round 3: send every peer the address of our result, which also tells it we no
 *   longer read its input; once a peer's is in, read its block into ours.  In
 *   place, block j of our rbuf is rank j's operand, so it is overwritten only
 *   after rank j's message says it has read it.
 * Round 4: tell the owners we read from that we are done, and wait for our own
 *   readers, so the call returns only when no peer reads our buffers any more.
 * All are schedule steps (sched.c): MPI_Iallreduce takes this path too.  The
 * conditions are cma.c's (one node over shm, the probe at creation succeeded).
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/uio.h>
#include "coll_impl.h"
#include "base/reduce.h"
#include "transport/transport.h"

/* Bytes of one chunk of the reduction: two of them (accumulator, operand) fit
 * in L2 with room to spare, and a read of it costs far more than the syscall. */
#define CHUNK 65536

/* Read n bytes at address addr of peer src into dst; a failure is kept for the
 * call to report (the later rounds still run, so every peer is released). */
static void rd(rmaib_coll_t *c, int src, uint64_t addr, void *dst, size_t n)
{
    struct iovec l = { dst, n }, r = { (void *) (uintptr_t) addr, n };
    int rc = rmaib_shm_pvm(rmaib_peer(c->win, src)->pid, 0, &l, 1, &r, 1);
    if (rc != RMAIB_OK && c->late_err == RMAIB_OK)
        c->late_err = rc;
}

/* Round 2: reduce bytes s->rlen of our block at offset s->slen of every input
 * into s->rbuf; s->sbuf is our own input's block, c->tmp two chunks of scratch. */
static void reduce_block(rmaib_coll_t *c, const coll_step_t *s)
{
    int p = c->nranks, me = c->rank;
    const coll_red_t *red = &s->red;
    size_t ch = CHUNK - CHUNK % red->esize;
    char *acc_tmp = c->tmp, *op = c->tmp + ch;
    for (size_t o = 0; o < s->rlen; o += ch) {
        size_t n = s->rlen - o < ch ? s->rlen - o : ch;
        const char *own = s->sbuf + o;
        char *out = s->rbuf + o;
        /* In place our operand lives where the result goes: accumulate aside
         * unless ours is the first operand anyway. */
        char *acc = own == out && me != 0 ? acc_tmp : out;
        if (me == 0)
            memmove(acc, own, n);
        else
            rd(c, 0, c->cma_addr[0] + s->slen + o, acc, n);
        for (int r = 1; r < p; r++) {
            const char *in = own;
            if (r != me) {
                rd(c, r, c->cma_addr[r] + s->slen + o, op, n);
                in = op;
            }
            rmaib_reduce(red->b, red->op, acc, in, n / red->esize);
        }
        if (acc != out)
            memcpy(out, acc, n);
    }
}

int rmaib_coll_cma_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                             const coll_red_t *red)
{
    int p = c->nranks, me = c->rank;
    size_t es = red->esize, f, n;
    const char *in = sbuf ? sbuf : rbuf;
    char *out = rbuf;
    if (!rmaib_coll_scratch(c, 2 * (size_t) CHUNK))
        return RMAIB_ERR_NO_MEM;
    c->cma_mine = (uintptr_t) in;
    c->cma_res = (uintptr_t) out;
    c->fam = FAM_LOCAL;         /* one node: every pair has one */
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, dst, &c->cma_mine, sizeof c->cma_mine, src, &c->cma_addr[src],
                        sizeof c->cma_mine, NULL);
    }
    rmaib_sched_round(c);
    rmaib_coll_block(count, p, me, &f, &n);
    coll_step_t *s = rmaib_sched_fn(c, reduce_block, in + f * es, out + f * es, n * es);
    s->red = *red;
    s->has_red = 1;
    s->slen = f * es;
    rmaib_sched_round(c);
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, dst, &c->cma_res, sizeof c->cma_res, src, &c->cma_addr[src],
                        sizeof c->cma_mine, NULL);
        rmaib_coll_block(count, p, src, &f, &n);
        rmaib_sched_read(c, src, f * es, out + f * es, n * es)->chain = 1;
    }
    rmaib_sched_round(c);
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, src, &c->token, 1, dst, &c->token, 1, NULL);
    }
    return RMAIB_OK;
}
