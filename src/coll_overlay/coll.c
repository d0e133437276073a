/*
 * The collective window of a communicator and the notified message every
 * collective algorithm is made of (see coll_impl.h for the protocol).
 *
 * The window is an allocated rmaib window: its memory holds two slots per sender,
 * its control block's notification area one signal line per sender.  Data moves
 * through the peer's transport (shm: memcpy into the mapped segment; ofi: an RDMA
 * write), the flag through rmaib_ctrl_store, which the transport orders after the
 * data (shm: a release store; ofi: behind the write, or after a flush where the
 * provider does not order writes).  Flags are read with loads of our own control
 * block, as the fence and PSCW signals are.
 */
#include <stdlib.h>
#include <string.h>
#include "coll_impl.h"
#include "rma/rma_impl.h"
#include "base/config.h"
#include "base/reduce.h"
#include "rmaib_host.h"

/* ---------------------------------------------------------------- configuration */

static int word_index(const char *w, const char *const *names)
{
    int i = 0;
    while (strcmp(w, names[i]) != 0)
        i++;
    return i;
}

int rmaib_coll_config(const rmaib_coll_config_t **out)
{
    static const char *const onoff[] = { "on", "off", NULL };
    static const char *const ar[] = { "auto", "flat", "rd", "rsag", "dpml", "dissem", "single-copy",
        NULL };
    static const char *const ag[] = { "auto", "ring", "rd", "bruck", NULL };
    static const char *const a2a[] = { "auto", "direct", "bruck", NULL };
    static rmaib_coll_config_t cfg;
    static int state;           /* 0 unread, 1 good, -1 bad */
    if (state == 0) {
        const char *e = rmaib_env_word("RMAIB_COLL", onoff);
        const char *r = rmaib_env_word("RMAIB_COLL_ALLREDUCE", ar);
        const char *g = rmaib_env_word("RMAIB_COLL_ALLGATHER", ag);
        const char *t = rmaib_env_word("RMAIB_COLL_ALLTOALL", a2a);
        cfg.queue = rmaib_env_int("RMAIB_COLL_QUEUE", 256);
        cfg.window_kib = rmaib_env_int("RMAIB_COLL_WINDOW", 2048);
        cfg.cma_min = rmaib_env_int("RMAIB_COLL_CMA", RMAIB_COLL_CMA_DEFAULT);
        if (cfg.queue < 1 || cfg.window_kib < 1) {
            rmaib_host_say("RMAIB_COLL_QUEUE=%d and RMAIB_COLL_WINDOW=%d must be positive",
                           cfg.queue, cfg.window_kib);
            e = NULL;
        }
        if (cfg.cma_min < 0) {
            rmaib_host_say("RMAIB_COLL_CMA=%d must not be negative", cfg.cma_min);
            e = NULL;
        }
        cfg.dissem_radix = rmaib_env_int("RMAIB_COLL_DISSEM_RADIX", 3);
        if (cfg.dissem_radix < 2) {
            rmaib_host_say("RMAIB_COLL_DISSEM_RADIX=%d must be at least 2", cfg.dissem_radix);
            e = NULL;
        }
        state = e && r && g && t ? 1 : -1;
        if (state == 1) {
            cfg.enabled = strcmp(e, "on") == 0;
            cfg.allreduce = word_index(r, ar);
            cfg.allgather = word_index(g, ag);
            cfg.alltoall = word_index(t, a2a);
        }
    }
    *out = &cfg;
    return state == 1 ? RMAIB_OK : RMAIB_ERR_ARG;
}

/* ---------------------------------------------------------------- the window */

/* Slots shrink as the group grows, so the window stays near RMAIB_COLL_WINDOW
 * (2 MiB) a rank; it is never below two 4 KiB slots a peer. */
static size_t slot_size(int nranks, int window_kib)
{
    size_t s = (size_t) window_kib * 1024 / 2 / (size_t) nranks;
    s = s > 65536 ? 65536 : s < 4096 ? 4096 : s;
    return s & ~(size_t) (RMAIB_CACHELINE - 1);
}

/* Notification words before the first cache-line boundary of the area, so that
 * each sender's signal line is a line of its own. */
static int sig_skip(int nranks)
{
    size_t off = rmaib_ctrl_notify_off(nranks, 0);
    return (int) (((RMAIB_CACHELINE - off % RMAIB_CACHELINE) % RMAIB_CACHELINE) / 8);
}

static void free_parts(rmaib_coll_t *c)
{
    free(c->local);
    free(c->leaders);
    free(c->sent);
    free(c->recvd);
    free(c->acked);
    free(c->steps);
    free(c->q);
    free(c->tmp);
    free(c->cma_addr);
    free(c);
}

int rmaib_coll_create(void *hcomm, int rank, int nranks, rmaib_coll_t **out)
{
    rmaib_coll_t *c = calloc(1, sizeof *c);
    *out = NULL;
    if (!c)
        return RMAIB_ERR_NO_MEM;
    c->rank = rank;
    c->nranks = nranks;
    rmaib_coll_config(&c->cfg);
    c->slot = slot_size(nranks, c->cfg->window_kib);
    c->last_alg = "none";
    int skip = sig_skip(nranks);
    c->sig0 = rmaib_ctrl_notify_off(nranks, skip);
    c->sent = calloc((size_t) nranks, sizeof *c->sent);
    c->recvd = calloc((size_t) nranks, sizeof *c->recvd);
    c->acked = calloc((size_t) nranks, sizeof *c->acked);
    c->cap_steps = rmaib_sched_max_steps(nranks);
    c->steps = malloc(sizeof *c->steps * (size_t) c->cap_steps);
    c->qcap = c->cfg->queue;
    c->q = malloc(sizeof *c->q * (size_t) c->qcap);
    c->cma_addr = calloc((size_t) nranks, sizeof *c->cma_addr);
    atomic_flag_clear(&c->busy);
    rmaib_win_args_t a = {
        .flavor = RMAIB_FLAVOR_ALLOCATE, .hcomm = hcomm, .rank = rank, .nranks = nranks,
        .size = 2 * c->slot * (size_t) nranks, .disp_unit = 1,
        .lock_alg = RMAIB_LOCKALG_TAS, .max_notify = skip + nranks * RMAIB_CACHELINE / 8,
        .cma_peers = c->cfg->cma_min > 0,
    };
    /* Even a rank short of memory joins the creation (it is collective); it then
     * frees the window with the others. */
    int rc = rmaib_win_create(&a, &c->win);
    if (rc == RMAIB_OK)
        rmaib_coll_cma_init(c);         /* collective: before any rank may leave */
    if (rc == RMAIB_OK && (!c->sent || !c->recvd || !c->acked || !c->steps || !c->q || !c->cma_addr
                           || rmaib_coll_nodes(c) != RMAIB_OK))
        rc = rmaib_first_error(RMAIB_ERR_NO_MEM, rmaib_win_free(c->win));
    if (rc != RMAIB_OK) {
        free_parts(c);
        return rc;
    }
    c->mapped = c->win->nnodes == 1;    /* (only node-local peers are ever mapped) */
    for (int i = 0; c->mapped && i < c->win->nlocal; i++)
        c->mapped &= rmaib_peer(c->win, c->win->local_ranks[i])->ctrl_mapped != NULL;
    rmaib_sched_enrol(c);
    *out = c;
    return RMAIB_OK;
}

/* Collective: calls still queued (their requests freed, say) finish first, as
 * MPI_Comm_free lets them. */
int rmaib_coll_free(rmaib_coll_t *c)
{
    if (!c)
        return RMAIB_OK;
    RMAIB_BACKOFF(bo);
    while (rmaib_coll_pending(c))
        if (!rmaib_coll_progress(c))
            rmaib_backoff(&bo);
    rmaib_sched_leave(c);
    int rc = rmaib_win_free(c->win);
    free_parts(c);
    return rc;
}

const char *rmaib_coll_last_alg(const rmaib_coll_t *c)
{
    return c->last_alg;
}

void *rmaib_coll_scratch(rmaib_coll_t *c, size_t n)
{
    if (n > c->tmp_cap) {
        void *t = realloc(c->tmp, n);
        if (!t)
            return NULL;
        c->tmp = t;
        c->tmp_cap = n;
    }
    return c->tmp;
}

/* ---------------------------------------------------------------- messages */

/* Word w (0, 1: flags; 2: acknowledgement) of sender peer's line in our block. */
static const uint64_t *my_word(const rmaib_coll_t *c, int peer, int w)
{
    return (const uint64_t *) ((const char *) c->win->my_ctrl + c->sig0
                               + (size_t) peer * RMAIB_CACHELINE) + w;
}

/* Our line in peer's block, word w. */
static size_t peer_word_off(const rmaib_coll_t *c, int w)
{
    return c->sig0 + (size_t) c->rank * RMAIB_CACHELINE + (size_t) w * 8;
}

static size_t slot_off(const rmaib_coll_t *c, int sender, uint64_t k)
{
    return ((size_t) sender * 2 + (size_t) (k & 1)) * c->slot;
}

/* A message of a few bytes to a peer whose control block we map travels in the
 * signal line itself (words 3-4 or 5-6, by k & 1), so the receiver takes one
 * cache line, not two: the 8-byte allreduce's whole critical path. */
#define INLINE_MAX 16

static int inline_to(const rmaib_coll_t *c, int peer, size_t len)
{
    return len <= INLINE_MAX && rmaib_peer(c->win, peer)->ctrl_mapped;
}

int rmaib_coll_try_send(rmaib_coll_t *c, int peer, const void *buf, size_t len, int *rc)
{
    rmaib_win_t *w = c->win;
    uint64_t k = c->sent[peer] + 1;
    if (k > 2 && c->acked[peer] < k - 2
        && (c->acked[peer] = rmaib_load(my_word(c, peer, 2))) < k - 2) {
        c->nwait++;             /* its slot is not free again yet */
        c->wait_word = my_word(c, peer, 2);
        c->wait_k = k - 2;
        return 0;
    }
    c->sent[peer] = k;
    const rmaib_tp_ops_t *tp = rmaib_peer(w, peer)->tp;
    *rc = RMAIB_OK;
    if (inline_to(c, peer, len)) {
        /* Plain stores; the flag's release store below publishes them. */
        memcpy(rmaib_peer(w, peer)->ctrl_mapped + peer_word_off(c, 3 + 2 * (int) (k & 1)), buf, len);
    } else if (len) {
        *rc = tp->put(w, peer, slot_off(c, c->rank, k), buf, len);
        /* The caller may change buf as soon as we return (a reduction into it). */
        if (*rc == RMAIB_OK)
            *rc = tp->flush_local(w, peer);
    }
    if (*rc == RMAIB_OK)
        *rc = rmaib_ctrl_store(w, peer, peer_word_off(c, (int) (k & 1)), k);
    return 1;
}

const void *rmaib_coll_try_peek(rmaib_coll_t *c, int peer, size_t len)
{
    uint64_t k = c->recvd[peer] + 1;
    if (rmaib_load(my_word(c, peer, (int) (k & 1))) < k) {
        c->nwait++;
        c->wait_word = my_word(c, peer, (int) (k & 1));
        c->wait_k = k;
        return NULL;
    }
    /* The acknowledgement shares the flag's line, which we now hold: read it
     * here rather than miss on it when we next send. */
    c->acked[peer] = rmaib_load(my_word(c, peer, 2));
    if (inline_to(c, peer, len))
        return my_word(c, peer, 3 + 2 * (int) (k & 1));
    return (const char *) c->win->base + slot_off(c, peer, k);
}

/* The release store orders our reads of the slot before the sender's next write. */
int rmaib_coll_recv_done(rmaib_coll_t *c, int peer)
{
    uint64_t k = ++c->recvd[peer];
    return rmaib_ctrl_store(c->win, peer, peer_word_off(c, 2), k);
}

void rmaib_coll_consume(void *dst, void *slot, size_t n, const coll_red_t *red)
{
    if (!red) {
        memcpy(dst, slot, n);
    } else if (red->mine_first) {
        rmaib_reduce(red->b, red->op, dst, slot, n / red->esize);
    } else {
        /* The slot is ours until acknowledged: reduce into it, theirs first. */
        rmaib_reduce(red->b, red->op, slot, dst, n / red->esize);
        memcpy(dst, slot, n);
    }
}

/* Move a message step as far as it goes: chunk i is received only after chunk i
 * is sent, because sbuf and rbuf may be one buffer. */
int rmaib_coll_run_msg(rmaib_coll_t *c, coll_step_t *s, int *moved)
{
    size_t chunk = rmaib_coll_chunk(c, s->has_red ? &s->red : NULL);
    int rc = RMAIB_OK;
    for (;;) {
        int step = 0;
        if (s->soff < s->slen) {
            size_t n = s->slen - s->soff < chunk ? s->slen - s->soff : chunk;
            if (rmaib_coll_try_send(c, s->dst, s->sbuf + s->soff, n, &rc)) {
                s->soff += n;
                step = 1;
            }
        }
        if (rc == RMAIB_OK && s->roff < s->rlen && (s->roff < s->soff || s->soff >= s->slen)) {
            size_t n = s->rlen - s->roff < chunk ? s->rlen - s->roff : chunk;
            void *in = (void *) rmaib_coll_try_peek(c, s->src, n);
            if (in) {
                rmaib_coll_consume(s->rbuf + s->roff, in, n, s->has_red ? &s->red : NULL);
                rc = rmaib_coll_recv_done(c, s->src);
                s->roff += n;
                step = 1;
            }
        }
        *moved |= step;
        if (rc != RMAIB_OK || !step)
            break;
    }
    s->done = s->soff >= s->slen && s->roff >= s->rlen;
    return rc;
}
