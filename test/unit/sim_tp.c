/*
 * The counting transport (see sim_host.h): a network backend that moves nothing,
 * counts every call, and answers control-block atomics from a model of the words
 * the calls touched, with virtual peers mirroring this rank's signals.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib_win.h"
#include "sim_host.h"

const char *const sim_tp_kind_name[SIM_NKINDS] = {
    "put", "get", "putv", "getv", "ctrl_atomic", "ctrl_store", "ctrl_read",
    "flush", "flush(-1)", "flush_local", "data_atomic", "data_cas", "win_init", "win_fini",
};

sim_tp_count_t sim_tp_count;

/* Static and generation-stamped: a reset is O(1), and neither table allocates, so
 * the heap deltas sim_scale takes are rmaib's alone.  The model holds the words
 * of the peers an epoch touches (a handful each); the peer set the distinct peers
 * of one synchronisation call. */
enum { MODEL_CAP = 1 << 16, PSET_CAP = 1 << 20 };

typedef struct model_word {
    const void *win;
    uint64_t key;               /* peer << 32 | offset */
    uint64_t val;
    uint32_t gen;
} model_word_t;

static model_word_t model[MODEL_CAP];
static uint32_t model_gen = 1, model_n;

static struct {
    int peer;
    uint32_t gen;
} pset[PSET_CAP];
static uint32_t pset_gen = 1;

static uint64_t mix(uint64_t x)
{
    x = (x ^ (x >> 33)) * UINT64_C(0xff51afd7ed558ccd);
    x = (x ^ (x >> 33)) * UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

/* The modelled word at (win, peer, off), zero until written. */
static uint64_t *model_word(const rmaib_win_t *w, int peer, size_t off)
{
    uint64_t key = (uint64_t) (unsigned) peer << 32 | (uint64_t) off;
    size_t i = mix(key ^ (uint64_t) (uintptr_t) w) & (MODEL_CAP - 1);
    for (;; i = (i + 1) & (MODEL_CAP - 1)) {
        model_word_t *m = &model[i];
        if (m->gen != model_gen) {
            if (++model_n > MODEL_CAP / 2) {    /* a harness bug: epochs touch few words */
                fprintf(stderr, "sim_tp: the word model is full\n");
                abort();
            }
            *m = (model_word_t) { w, key, 0, model_gen };
            return &m->val;
        }
        if (m->win == w && m->key == key)
            return &m->val;
    }
}

static void touch(int peer)
{
    if (peer < 0)
        return;
    size_t i = mix((uint64_t) (unsigned) peer) & (PSET_CAP - 1);
    for (;; i = (i + 1) & (PSET_CAP - 1)) {
        if (pset[i].gen != pset_gen) {
            if (sim_tp_count.peers >= PSET_CAP / 2) {
                sim_tp_count.peers_overflow = 1;
                return;
            }
            pset[i].peer = peer;
            pset[i].gen = pset_gen;
            sim_tp_count.peers++;
            return;
        }
        if (pset[i].peer == peer)
            return;
    }
}

static void count(int kind, int peer)
{
    sim_tp_count.calls[kind]++;
    touch(peer);
}

/* The signal a virtual peer sends us back: a store of ours into peer's control
 * block at off is taken as peer's same store into ours.  Fence flags sit at the same
 * offset; a PSCW sequence word names its writer, so ours in peer's block (index
 * me) mirrors as peer's in ours (index peer); a post into peer's queue is peer's
 * post into ours, in the next slot of our queue. */
static void mirror_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    size_t moff = off;
    if (w->pscw_mode == RMAIB_PSCW_WORDS) {
        size_t lo = rmaib_ctrl_seq_off(w->nranks, RMAIB_SEQ_POST, 0);
        size_t hi = rmaib_ctrl_seq_off(w->nranks, 2, 0);
        if (off >= lo && off < hi) {
            size_t idx = (off - lo) / sizeof(uint64_t);
            moff = rmaib_ctrl_seq_off(w->nranks, (int) (idx / (size_t) w->nranks), peer);
        }
    } else if (w->pscw_mode == RMAIB_PSCW_QUEUE && off >= RMAIB_POSTQ_OFF(slot)
               && off < RMAIB_POSTQ_OFF(slot[RMAIB_POSTQ_SLOTS])) {
        rmaib_postq_t *q = rmaib_ctrl_postq(w->my_ctrl);
        uint64_t i = __atomic_fetch_add(&q->tail, 1, __ATOMIC_RELAXED);
        uint64_t n = (uint64_t) w->postq_slots;
        moff = RMAIB_POSTQ_OFF(slot[i % n]);
        value = (i / n + 1) << 32 | (uint64_t) (unsigned) peer;
    }
    __atomic_store_n((uint64_t *) ((char *) w->my_ctrl + moff), value, __ATOMIC_RELEASE);
}

/* The same for atomics on a peer's post queue: a complete added to its count is its
 * complete added to ours, and its head is always its tail (it drains at once). */
static void mirror_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                          uint64_t operand, uint64_t *old)
{
    if (w->pscw_mode != RMAIB_PSCW_QUEUE || peer == w->rank)
        return;
    if (off == RMAIB_POSTQ_OFF(done) && op == RMAIB_AOP_FADD)
        __atomic_fetch_add(&rmaib_ctrl_postq(w->my_ctrl)->done, operand,
                           __ATOMIC_RELEASE);
    else if (off == RMAIB_POSTQ_OFF(head) && op == RMAIB_AOP_READ)
        *old = *model_word(w, peer, RMAIB_POSTQ_OFF(tail));
}

/* The window whose fences the virtual peers answer (one at a time in sim_scale). */
static rmaib_win_t *fence_win;

static int tp_win_init(rmaib_win_t *w)
{
    fence_win = w;
    sim_tp_count.calls[SIM_WIN_INIT]++;
    return RMAIB_OK;
}

static void tp_win_fini(rmaib_win_t *w)
{
    if (fence_win == w)
        fence_win = NULL;
    sim_tp_count.calls[SIM_WIN_FINI]++;
}

static int tp_put(rmaib_win_t *w, int peer, uint64_t roff, const void *src, size_t len)
{
    (void) w, (void) roff, (void) src;
    count(SIM_PUT, peer);
    sim_tp_count.put_bytes += len;
    return RMAIB_OK;
}

static int tp_get(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len)
{
    (void) w, (void) roff;
    count(SIM_GET, peer);
    memset(dst, 0, len);
    return RMAIB_OK;
}

static int tp_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    (void) w;
    count(SIM_PUTV, peer);
    for (size_t i = 0; i < n; i++)
        sim_tp_count.put_bytes += segs[i].len;
    return RMAIB_OK;
}

static int tp_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    (void) w;
    count(SIM_GETV, peer);
    for (size_t i = 0; i < n; i++)
        memset(segs[i].laddr, 0, segs[i].len);
    return RMAIB_OK;
}

/* Our own words are mapped (atomics_on_cpu), so they reach here only if a caller
 * insists; they then take the CPU atomic on the real word. */
static uint64_t apply(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op, uint64_t operand,
                      uint64_t compare)
{
    if (peer == w->rank)
        return rmaib_cpu_ctrl_atomic((char *) w->my_ctrl + off, op, operand, compare);
    uint64_t *word = model_word(w, peer, off), old = *word;
    switch (op) {
    case RMAIB_AOP_READ:
        break;
    case RMAIB_AOP_WRITE:
        *word = operand;
        break;
    case RMAIB_AOP_FADD:
        *word += operand;
        break;
    case RMAIB_AOP_SWAP:
        *word = operand;
        break;
    case RMAIB_AOP_CAS:
        if (old == compare)
            *word = operand;
        break;
    }
    return old;
}

static int tp_ctrl_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                          uint64_t operand, uint64_t compare, uint64_t *result)
{
    count(SIM_CTRL_ATOMIC, peer);
    uint64_t old = apply(w, peer, off, op, operand, compare);
    mirror_atomic(w, peer, off, op, operand, &old);
    if (result)
        *result = old;
    return RMAIB_OK;
}

static int tp_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    count(SIM_CTRL_STORE, peer);
    *model_word(w, peer, off) = value;
    mirror_store(w, peer, off, value);
    return RMAIB_OK;
}

/* A peer's attach table (the only bulk read) is ours: it attached what we did. */
static int tp_ctrl_read(rmaib_win_t *w, int peer, size_t off, void *dst, size_t len)
{
    count(SIM_CTRL_READ, peer);
    memcpy(dst, (char *) w->my_ctrl + off, len);
    return RMAIB_OK;
}

/* No native accumulates: the accumulate family takes the locked path, whose words
 * the model serves. */
static int tp_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op)
{
    (void) w, (void) peer, (void) roff, (void) b, (void) op;
    return 0;
}

static int tp_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n)
{
    (void) w, (void) roff, (void) b, (void) op, (void) operand, (void) fetch, (void) n;
    count(SIM_DATA_ATOMIC, peer);
    return RMAIB_OK;
}

static int tp_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result)
{
    (void) w, (void) roff, (void) compare, (void) swap;
    count(SIM_DATA_CAS, peer);
    memset(result, 0, size);
    return RMAIB_OK;
}

static int tp_flush(rmaib_win_t *w, int peer)
{
    (void) w;
    count(peer < 0 ? SIM_FLUSH_ALL : SIM_FLUSH, peer);
    return RMAIB_OK;
}

static int tp_flush_local(rmaib_win_t *w, int peer)
{
    (void) w;
    count(SIM_FLUSH_LOCAL, peer);
    return RMAIB_OK;
}

/* Like a software provider's: peers' atomics on our words are CPU atomics here, so
 * the core takes our own words with CPU atomics and only peers' reach the model. */
static int tp_atomics_on_cpu(void)
{
    return 1;
}

/* The virtual peers' part of a fence that no store of ours mirrors: where P is not a
 * power of two, our extra rank's arrival (or, were we one, our partner's word back)
 * is there whenever we poll for it. */
static void tp_progress(void)
{
    rmaib_win_t *w = fence_win;
    if (!w)
        return;
    for (int k = RMAIB_FENCE_PRE; k <= RMAIB_FENCE_POST; k++)
        __atomic_store_n(&w->my_ctrl->fence_flag[k], w->fence_epoch, __ATOMIC_RELEASE);
}

const rmaib_tp_ops_t sim_tp_ops = {
    .name = "sim",
    .reach = RMAIB_TP_NET,
    .complete_at_issue = 0,
    .atomics_on_cpu = tp_atomics_on_cpu,
    .win_init = tp_win_init,
    .win_fini = tp_win_fini,
    .put = tp_put,
    .get = tp_get,
    .putv = tp_putv,
    .getv = tp_getv,
    .ctrl_atomic = tp_ctrl_atomic,
    .ctrl_store = tp_ctrl_store,
    .acc_native = tp_acc_native,
    .data_atomic = tp_data_atomic,
    .data_cas = tp_data_cas,
    .ctrl_read = tp_ctrl_read,
    .flush = tp_flush,
    .flush_local = tp_flush_local,
    .progress = tp_progress,
};

int sim_tp_setup(void)
{
    memset(model, 0, sizeof model);     /* resident now, not during a measurement */
    memset(pset, 0, sizeof pset);
    return rmaib_transport_set_net_for_test(&sim_tp_ops);
}

void sim_tp_reset(void)
{
    memset(&sim_tp_count, 0, sizeof sim_tp_count);
    pset_gen++;
}

void sim_tp_model_clear(void)
{
    model_gen++;
    model_n = 0;
}

uint64_t sim_tp_calls(void)
{
    uint64_t n = 0;
    for (int k = 0; k < SIM_NKINDS; k++)
        if (k != SIM_WIN_INIT && k != SIM_WIN_FINI)
            n += sim_tp_count.calls[k];
    return n;
}
