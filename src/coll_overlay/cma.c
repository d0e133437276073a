/*
 * Single copy within a node: allgather and alltoall whose blocks each rank reads
 * straight from the owner's buffer into its result with process_vm_readv
 * (cross-memory attach), where the window path copies every block twice (into
 * the receiver's window slot, then out of it).
 *
 * Round 1: every rank sends each peer, as an inline message, the address it
 * reads from (its send buffer; in place, its own block of rbuf, or for alltoall
 * a scratch copy), and as soon as a peer's address is in, reads its block.
 * Round 2: every rank tells the owners it read from that it is done, and waits
 * for its own readers, so a call returns only when no peer reads its buffers any
 * more.  Both rounds are steps of the schedule (sched.c): the non-blocking forms
 * take this path too.  Channel order keeps calls apart: a peer's done for call N
 * comes before its address for call N + 1.
 *
 * A group takes it only if all its ranks share one node, reach each other by shm
 * and each could read a word of every peer when the communicator's collective
 * state was made (under Yama the window names the launcher as ptracer:
 * cma_peers).  The ranks agree on that, so all choose alike.  RMAIB_COLL_CMA is
 * the smallest block that goes this way (0: none).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "coll_impl.h"
#include "base/config.h"
#include "rmaib_host.h"
#include "transport/transport.h"

#define PROBE_MAGIC 0x434d4150524f4245ull      /* "CMAPROBE" */

/* Can this rank read every peer's probe word (addresses in c->cma_addr)?  0, or
 * the errno the kernel gave and the peer in *who. */
static int probe(rmaib_coll_t *c, int *who)
{
    const rmaib_win_t *w = c->win;
    *who = -1;
    if (rmaib_env_int("RMAIB_TEST_CMA_REFUSE", -1) == c->rank)
        return EPERM;           /* tests: as if Yama or a seccomp filter said no */
    for (int r = 0; r < c->nranks; r++) {
        if (r == c->rank)
            continue;
        uint64_t v = 0;
        struct iovec l = { &v, sizeof v }, rem = { (void *) (uintptr_t) c->cma_addr[r], sizeof v };
        ssize_t n;
        do
            n = process_vm_readv(rmaib_peer(w, r)->pid, &l, 1, &rem, 1, 0);
        while (n < 0 && errno == EINTR);
        *who = r;
        if (n < 0)
            return errno;
        if (n != (ssize_t) sizeof v || v != (PROBE_MAGIC ^ (uint64_t) r))
            return EIO;
    }
    return 0;
}

void rmaib_coll_cma_init(rmaib_coll_t *c)
{
    const rmaib_win_t *w = c->win;
    c->cma = 0;
    if (c->cfg->cma_min == 0 || c->nranks < 2 || w->nnodes > 1)
        return;                 /* alike on every rank (all see one node map) */
    if (rmaib_host_agree(w->hcomm, c->nranks, c->cma_addr ? RMAIB_OK : RMAIB_ERR_NO_MEM)
        != RMAIB_OK)
        return;
    c->cma_probe = PROBE_MAGIC ^ (uint64_t) c->rank;
    uint64_t mine = (uintptr_t) &c->cma_probe;
    if (rmaib_host_allgather(w->hcomm, &mine, c->cma_addr, sizeof mine) != RMAIB_OK)
        return;
    int local = 1, who = -1, err = 0;
    for (int r = 0; local && r < c->nranks; r++)
        local = rmaib_peer(w, r)->ctrl_mapped != NULL;
    if (local && (err = probe(c, &who)) != 0 && rmaib_config.verbose)
        rmaib_host_say("rmaib: process_vm_readv of rank %d refused (%s%s): collectives copy "
                       "twice within the node", who < 0 ? c->rank : who, strerror(err),
                       who < 0 ? ", RMAIB_TEST_CMA_REFUSE" : "");
    c->cma = rmaib_host_agree(w->hcomm, c->nranks,
                              local && !err ? RMAIB_OK : RMAIB_ERR_TRANSPORT) == RMAIB_OK;
}

/* (Its schedules take up to 3 p steps: not beyond the cap.) */
int rmaib_coll_cma_use(const rmaib_coll_t *c, size_t bytes)
{
    return c->cma && bytes >= (size_t) c->cfg->cma_min && rmaib_sched_fits(c, 3L * c->nranks);
}

int rmaib_coll_cma_build(rmaib_coll_t *c, const coll_call_t *call)
{
    int p = c->nranks, me = c->rank, a2a = call->kind == COLL_ALLTOALL;
    size_t bytes = call->n;
    const char *s = call->sbuf;
    char *r = call->rbuf;
    c->last_alg = "single-copy";
    if (a2a && !s) {            /* in place: our reads would overwrite what peers read */
        char *t = rmaib_coll_scratch(c, (size_t) p * bytes);
        if (!t)
            return RMAIB_ERR_NO_MEM;
        rmaib_sched_pre(c, t, r, (size_t) p * bytes);
        s = t;
    }
    if (a2a)
        rmaib_sched_pre(c, r + (size_t) me * bytes, s + (size_t) me * bytes, bytes);
    else if (s)
        rmaib_sched_pre(c, r + (size_t) me * bytes, s, bytes);
    else
        s = r + (size_t) me * bytes;
    c->cma_mine = (uintptr_t) s;
    c->fam = FAM_LOCAL;         /* one node: every pair has one */
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, dst, &c->cma_mine, sizeof c->cma_mine, src, &c->cma_addr[src],
                        sizeof c->cma_mine, NULL);
        rmaib_sched_read(c, src, a2a ? (size_t) me * bytes : 0, r + (size_t) src * bytes,
                         bytes)->chain = 1;
    }
    rmaib_sched_round(c);
    for (int i = 1; i < p; i++) {
        int dst = (me + i) % p, src = (me - i + p) % p;
        rmaib_sched_msg(c, src, &c->token, 1, dst, &c->token, 1, NULL);
    }
    return RMAIB_OK;
}

/* A failed read still lets the owner go (round 2 runs); the call reports it. */
int rmaib_coll_run_read(rmaib_coll_t *c, coll_step_t *s, int *moved)
{
    struct iovec l = { s->rbuf, s->rlen };
    struct iovec r = { (void *) (uintptr_t) (c->cma_addr[s->src] + s->slen), s->rlen };
    int rc = rmaib_shm_pvm(rmaib_peer(c->win, s->src)->pid, 0, &l, 1, &r, 1);
    if (rc != RMAIB_OK && c->late_err == RMAIB_OK)
        c->late_err = rc;
    s->done = 1;
    *moved = 1;
    return RMAIB_OK;
}
