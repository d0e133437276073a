/*
 * The collective window of a communicator and the notified message every
 * collective algorithm is made of (see coll_impl.h for the protocol).
 *
 * The window is an allocated rmaib window: its memory holds two slots per channel,
 * its control block's notification area one signal line per channel, and nothing
 * per rank (no lock or PSCW words: it takes neither).  Data moves
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
        cfg.window_kib = rmaib_env_int("RMAIB_COLL_WINDOW", RMAIB_COLL_SLOTS_KIB);
        cfg.dense_max = rmaib_env_int("RMAIB_COLL_DENSE", 64);
        cfg.cma_min = rmaib_env_int("RMAIB_COLL_CMA", RMAIB_COLL_CMA_DEFAULT);
        if (cfg.queue < 1 || cfg.window_kib < 1) {
            rmaib_host_say("RMAIB_COLL_QUEUE=%d and RMAIB_COLL_WINDOW=%d must be positive",
                           cfg.queue, cfg.window_kib);
            e = NULL;
        }
        if (cfg.cma_min < 0 || cfg.dense_max < 0) {
            rmaib_host_say("RMAIB_COLL_CMA=%d and RMAIB_COLL_DENSE=%d must not be negative",
                           cfg.cma_min, cfg.dense_max);
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

/* ---------------------------------------------------------------- channels
 *
 * A group of at most RMAIB_COLL_DENSE ranks, or within one node, gives every peer
 * a channel (by rank): any algorithm may pair any two ranks.  A larger group
 * gives only the partners the algorithms talk to, in families at fixed bases, so
 * that a sender computes its channel at the receiver and each channel keeps one
 * writer for the communicator's life (its counts then only grow, as the protocol
 * needs): node-local peers by local index (lmax of them), peers at distance 2^i
 * and p - 2^i (ring, Bruck, the barrier: 2 ceil(log2 p)), recursive doubling's
 * partner of bit i and its fold over the group (ceil(log2 p) + 1) and over DPML's
 * leaders.  A pair may have channels in several families: each is its own
 * sequence.  Slots shrink as channels grow, so the window stays within
 * RMAIB_COLL_WINDOW; the rest of the state is a few hundred bytes a channel. */

static int ceil_log2(long p)
{
    int l = 0;
    while ((1L << l) < p)
        l++;
    return l;
}

/* 2^i -> i, else p - 2^j -> lg + j, else -1: the distance class of d in 1 .. p-1. */
static int dist_class(const rmaib_coll_t *c, long d)
{
    if ((d & (d - 1)) == 0)
        return ceil_log2(d);
    d = c->nranks - d;
    return (d & (d - 1)) == 0 ? c->lg + ceil_log2(d) : -1;
}

/* Index of rank r among our node's ranks (ascending), or -1. */
static int local_index(const rmaib_coll_t *c, int r)
{
    int lo = 0, hi = c->nlocal - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (c->local[mid] == r)
            return mid;
        if (c->local[mid] < r)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int rmaib_coll_link(const rmaib_coll_t *c, int peer, int *there, int *here)
{
    int p = c->nranks, me = c->rank;
    *there = *here = -1;
    if (c->dense) {
        *there = me;
        *here = peer;
    } else if (c->fam == FAM_LOCAL) {
        *there = c->lidx;
        *here = local_index(c, peer);
    } else if (c->fam == FAM_DIST) {
        int a = dist_class(c, (me - peer + p) % p), b = dist_class(c, (peer - me + p) % p);
        *there = a < 0 ? -1 : c->dist_base + a;
        *here = b < 0 ? -1 : c->dist_base + b;
    } else {                    /* recursive doubling: bit fam_id's partner is mutual */
        int base = c->fam == FAM_RD ? c->rd_base : c->rdl_base;
        int top = c->fam == FAM_RD ? c->lg : c->lgl;
        if (c->fam_id >= 0 && c->fam_id <= top)
            *there = *here = base + c->fam_id;
    }
    return *there >= 0 && *here >= 0 && *there < c->nch && *here < c->nch ? RMAIB_OK
        : RMAIB_ERR_INTERN;
}

/* The channels of a group whose nodes (nnodes; lmax ranks on the largest, nleaders
 * leaders) are known; sets the families' bases. */
static void plan_channels(rmaib_coll_t *c)
{
    int p = c->nranks;
    c->lg = ceil_log2(p);
    c->lgl = c->nleaders > 1 ? ceil_log2(c->nleaders) : 0;
    if (c->dense) {
        c->nch = p;
    } else {
        c->dist_base = c->lmax;
        c->rd_base = c->dist_base + 2 * c->lg;
        c->rdl_base = c->rd_base + c->lg + 1;
        c->nch = c->rdl_base + c->lgl + 1;
    }
    c->all_pairs = c->dense || c->nnodes == 1;
}

/* Slots shrink as channels grow, so the window stays within RMAIB_COLL_WINDOW
 * (at most RMAIB_COLL_SLOTS_KIB); between 1 and 64 KiB each. */
static size_t slot_size(int nch, int window_kib)
{
    size_t kib = window_kib < RMAIB_COLL_SLOTS_KIB ? (size_t) window_kib : RMAIB_COLL_SLOTS_KIB;
    size_t s = kib * 1024 / 2 / (size_t) nch;
    s = s > 65536 ? 65536 : s < 1024 ? 1024 : s;
    return s & ~(size_t) (RMAIB_CACHELINE - 1);
}

/* Notification words before the first cache-line boundary of the area, so that
 * each channel's signal line is a line of its own (the block keeps no per-rank
 * words: rmaib_win_args_t.no_sync_words). */
static int sig_skip(void)
{
    size_t off = rmaib_ctrl_notify_off(0, 0);
    return (int) (((RMAIB_CACHELINE - off % RMAIB_CACHELINE) % RMAIB_CACHELINE) / 8);
}

/* Collective, before the window (whose size depends on it): every rank's node,
 * from the same keys the window will use.  node: p entries, for the caller to free. */
static int learn_nodes(void *hcomm, int p, int32_t **node, int *nnodes)
{
    uint64_t *keys = malloc(sizeof *keys * (size_t) p);
    *node = malloc(sizeof **node * (size_t) p);
    int rc = rmaib_host_agree(hcomm, p, keys && *node ? RMAIB_OK : RMAIB_ERR_NO_MEM);
    if (rc == RMAIB_OK) {
        uint64_t mine = rmaib_node_key(RMAIB_FLAVOR_ALLOCATE);
        rc = rmaib_host_allgather(hcomm, &mine, keys, sizeof *keys);
    }
    if (rc == RMAIB_OK)
        rc = rmaib_number_nodes(p, (const char *) keys, sizeof *keys, *node, nnodes);
    free(keys);
    return rc;
}

static void free_parts(rmaib_coll_t *c)
{
    free(c->local);
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
    c->last_alg = "none";
    c->dense = nranks <= c->cfg->dense_max;
    int rc = RMAIB_OK, known = 0;
    if (!c->dense) {            /* the channels depend on the nodes: learn them first */
        int32_t *node = NULL;
        int nnodes = 0;
        rc = learn_nodes(hcomm, nranks, &node, &nnodes);
        if (rc == RMAIB_OK)
            rc = rmaib_host_agree(hcomm, nranks, rmaib_coll_nodes(c, node, nnodes));
        free(node);
        c->dense = rc == RMAIB_OK && nnodes == 1 && c->cfg->dense_max > 0;
        known = 1;
        if (rc != RMAIB_OK) {
            free_parts(c);
            return rc;
        }
    }
    plan_channels(c);
    c->slot = slot_size(c->nch, c->cfg->window_kib);
    int skip = sig_skip();
    c->sig0 = rmaib_ctrl_notify_off(0, skip);
    c->sent = calloc((size_t) c->nch, sizeof *c->sent);
    c->recvd = calloc((size_t) c->nch, sizeof *c->recvd);
    c->acked = calloc((size_t) c->nch, sizeof *c->acked);
    c->cap_steps = rmaib_sched_max_steps(nranks);
    c->steps = malloc(sizeof *c->steps * (size_t) c->cap_steps);
    c->qcap = c->cfg->queue;
    c->q = malloc(sizeof *c->q * (size_t) c->qcap);
    atomic_flag_clear(&c->busy);
    rmaib_win_args_t a = {
        .flavor = RMAIB_FLAVOR_ALLOCATE, .hcomm = hcomm, .rank = rank, .nranks = nranks,
        .size = 2 * c->slot * (size_t) c->nch, .disp_unit = 1,
        .lock_alg = RMAIB_LOCKALG_TAS, .max_notify = skip + c->nch * RMAIB_CACHELINE / 8,
        .cma_peers = c->cfg->cma_min > 0, .no_sync_words = 1,
    };
    /* Even a rank short of memory joins the creation (it is collective); it then
     * frees the window with the others. */
    rc = rmaib_win_create(&a, &c->win);
    if (rc == RMAIB_OK && !known) {     /* dense: the window's node map */
        int32_t *node = malloc(sizeof *node * (size_t) nranks);
        for (int r = 0; node && r < nranks; r++)
            node[r] = rmaib_peer_node(c->win, r);
        int nrc = node ? rmaib_coll_nodes(c, node, c->win->nnodes) : RMAIB_ERR_NO_MEM;
        free(node);
        if (nrc != RMAIB_OK)
            c->steps = (free(c->steps), NULL);  /* fails below, collectively */
    }
    if (rc == RMAIB_OK && c->win->nnodes == 1 && nranks > 1 && c->cfg->cma_min > 0)
        c->cma_addr = calloc((size_t) nranks, sizeof *c->cma_addr);
    if (rc == RMAIB_OK)
        rmaib_coll_cma_init(c);         /* collective: before any rank may leave */
    if (rc == RMAIB_OK && (!c->sent || !c->recvd || !c->acked || !c->steps || !c->q))
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

/* The schedule last built points into it: not reused once it is gone. */
void rmaib_coll_scratch_trim(rmaib_coll_t *c)
{
    if (c->tmp_cap <= RMAIB_COLL_SCRATCH_KEEP)
        return;
    free(c->tmp);
    c->tmp = NULL;
    c->tmp_cap = 0;
    c->reusable = 0;
}

/* ---------------------------------------------------------------- messages */

/* Word w (0, 1: flags; 2: acknowledgement) of our channel ch's signal line. */
static const uint64_t *my_word(const rmaib_coll_t *c, int ch, int w)
{
    return (const uint64_t *) ((const char *) c->win->my_ctrl + c->sig0
                               + (size_t) ch * RMAIB_CACHELINE) + w;
}

/* Word w of our channel ch at a peer, in its block. */
static size_t peer_word_off(const rmaib_coll_t *c, int ch, int w)
{
    return c->sig0 + (size_t) ch * RMAIB_CACHELINE + (size_t) w * 8;
}

static size_t slot_off(const rmaib_coll_t *c, int ch, uint64_t k)
{
    return ((size_t) ch * 2 + (size_t) (k & 1)) * c->slot;
}

/* A message of a few bytes to a peer whose control block we map travels in the
 * signal line itself (words 3-4 or 5-6, by k & 1), so the receiver takes one
 * cache line, not two: the 8-byte allreduce's whole critical path. */
#define INLINE_MAX 16

static int inline_to(const rmaib_coll_t *c, int peer, size_t len)
{
    return len <= INLINE_MAX && rmaib_peer(c->win, peer)->ctrl_mapped;
}

int rmaib_coll_try_send(rmaib_coll_t *c, int peer, int there, int here, const void *buf,
                        size_t len, int *rc)
{
    rmaib_win_t *w = c->win;
    uint64_t k = c->sent[here] + 1;
    if (k > 2 && c->acked[here] < k - 2
        && (c->acked[here] = rmaib_load(my_word(c, here, 2))) < k - 2) {
        c->nwait++;             /* its slot is not free again yet */
        c->wait_word = my_word(c, here, 2);
        c->wait_k = k - 2;
        return 0;
    }
    c->sent[here] = k;
    const rmaib_tp_ops_t *tp = rmaib_peer(w, peer)->tp;
    *rc = RMAIB_OK;
    if (inline_to(c, peer, len)) {
        /* Plain stores; the flag's release store below publishes them. */
        memcpy(rmaib_peer(w, peer)->ctrl_mapped + peer_word_off(c, there, 3 + 2 * (int) (k & 1)),
               buf, len);
    } else if (len) {
        *rc = tp->put(w, peer, slot_off(c, there, k), buf, len);
        /* The caller may change buf as soon as we return (a reduction into it). */
        if (*rc == RMAIB_OK)
            *rc = tp->flush_local(w, peer);
    }
    if (*rc == RMAIB_OK)
        *rc = rmaib_ctrl_store(w, peer, peer_word_off(c, there, (int) (k & 1)), k);
    return 1;
}

const void *rmaib_coll_try_peek(rmaib_coll_t *c, int peer, int here, size_t len)
{
    uint64_t k = c->recvd[here] + 1;
    if (rmaib_load(my_word(c, here, (int) (k & 1))) < k) {
        c->nwait++;
        c->wait_word = my_word(c, here, (int) (k & 1));
        c->wait_k = k;
        return NULL;
    }
    /* The acknowledgement shares the flag's line, which we now hold: read it
     * here rather than miss on it when we next send. */
    c->acked[here] = rmaib_load(my_word(c, here, 2));
    if (inline_to(c, peer, len))
        return my_word(c, here, 3 + 2 * (int) (k & 1));
    return (const char *) c->win->base + slot_off(c, here, k);
}

/* The release store orders our reads of the slot before the sender's next write. */
int rmaib_coll_recv_done(rmaib_coll_t *c, int peer, int there, int here)
{
    uint64_t k = ++c->recvd[here];
    return rmaib_ctrl_store(c->win, peer, peer_word_off(c, there, 2), k);
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
            if (rmaib_coll_try_send(c, s->dst, s->dthere, s->dhere, s->sbuf + s->soff, n, &rc)) {
                s->soff += n;
                step = 1;
            }
        }
        if (rc == RMAIB_OK && s->roff < s->rlen && (s->roff < s->soff || s->soff >= s->slen)) {
            size_t n = s->rlen - s->roff < chunk ? s->rlen - s->roff : chunk;
            void *in = (void *) rmaib_coll_try_peek(c, s->src, s->shere, n);
            if (in) {
                rmaib_coll_consume(s->rbuf + s->roff, in, n, s->has_red ? &s->red : NULL);
                rc = rmaib_coll_recv_done(c, s->src, s->sthere, s->shere);
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

/* The state's own allocations (create's sizes). */
static size_t state_bytes(const rmaib_coll_t *c, int cma)
{
    return sizeof *c + 3 * sizeof *c->sent * (size_t) c->nch
        + sizeof *c->steps * (size_t) c->cap_steps + sizeof *c->q * (size_t) c->qcap
        + sizeof *c->local * (size_t) c->nlocal
        + (cma ? sizeof *c->cma_addr * (size_t) c->nranks : 0);
}

/* Counted from the sizes creation allocated (and the peer table's entries), so a
 * test can hold them to the bound. */
void rmaib_coll_footprint(const rmaib_coll_t *c, rmaib_coll_mem_t *m)
{
    const rmaib_win_t *w = c->win;
    m->dense = c->dense;
    m->nnodes = c->nnodes;
    m->lmax = c->lmax;
    m->nlocal = c->nlocal;
    m->nleaders = c->nleaders;
    m->nch = c->nch;
    m->slot = c->slot;
    m->window = w->size;
    m->ctrl = rmaib_win_ctrl_size(w);
    m->state = state_bytes(c, c->cma_addr != NULL);
    m->peers = sizeof(rmaib_peer_ent_t) * rmaib_peer_count(w);
    m->scratch = c->tmp_cap;
    m->total = m->window + m->ctrl + m->state + m->peers + m->scratch;
}

/* What create would keep for a group of p ranks on nnodes nodes (lmax ranks on
 * ours, the largest; nleaders DPML leaders), with the peer entries an upper
 * bound: every node-local rank and one peer a channel (all p within one node). */
void rmaib_coll_plan(int p, int nnodes, int lmax, int nleaders, rmaib_coll_mem_t *m)
{
    rmaib_coll_t c = { .nranks = p, .nnodes = nnodes, .lmax = lmax, .nlocal = lmax,
                       .nleaders = nleaders };
    rmaib_coll_config(&c.cfg);
    c.dense = p <= c.cfg->dense_max || (nnodes == 1 && c.cfg->dense_max > 0);
    plan_channels(&c);
    c.slot = slot_size(c.nch, c.cfg->window_kib);
    c.cap_steps = rmaib_sched_max_steps(p);
    c.qcap = c.cfg->queue;
    m->dense = c.dense;
    m->nnodes = nnodes;
    m->lmax = m->nlocal = lmax;
    m->nleaders = nleaders;
    m->nch = c.nch;
    m->slot = c.slot;
    m->window = 2 * c.slot * (size_t) c.nch;
    m->ctrl = rmaib_ctrl_size(0, sig_skip() + c.nch * RMAIB_CACHELINE / 8, 0);
    m->state = state_bytes(&c, nnodes == 1 && p > 1 && c.cfg->cma_min > 0);
    m->peers = sizeof(rmaib_peer_ent_t) * (size_t) (nnodes == 1 ? p : lmax + c.nch);
    m->scratch = RMAIB_COLL_SCRATCH_KEEP;
    m->total = m->window + m->ctrl + m->state + m->peers + m->scratch;
}
