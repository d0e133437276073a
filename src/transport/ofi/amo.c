/*
 * The ofi backend's mailbox traffic: an origin's requests (issue, await, collect the
 * answers), a target's service of them (serve, answer, resend what the provider
 * would not take yet), and the runs of window data.  The wire format and the checks
 * are mailbox.c's; ofi.c tells the protocol.
 */
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_rma.h>
#include "ofi_impl.h"
#include "base/reduce.h"
#include "rmaib_host.h"

/* The answered requests in flight from this process, whose answers each reaper looks
 * for; a request is listed before it is sent and unlisted when its answer is found. */
typedef struct amo_awaited {
    ofi_win_t *o;
    int target, slot;
    uint32_t tag;
} amo_awaited_t;
static amo_awaited_t *awaited;
static size_t nawaited, awaited_cap;
static _Atomic size_t awaited_count;    /* nawaited, read without the lock */
static pthread_mutex_t awaited_lock = PTHREAD_MUTEX_INITIALIZER;

/* Windows with a mailbox, by the number peers name them with (22 bits): open
 * addressing from the number's slot, which the CQ readers probe without a lock up
 * to an empty slot.  A window gone leaves AMO_GONE, which a later one may take, so
 * no slot on a live window's path ever empties again. */
enum { AMO_GONE = UINT32_MAX, AMO_ID_END = 1u << 22 };
static _Atomic uint32_t amo_ids[AMO_MAX_WINS];
static _Atomic(ofi_win_t *) amo_wins[AMO_MAX_WINS];
static pthread_mutex_t amo_wins_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t amo_next_local = AMO_LOCAL_ID0;

/* The slot of window id, or -1. */
static long amo_slot(uint32_t id)
{
    for (uint32_t n = 0, i = id; n < AMO_MAX_WINS; n++, i++) {
        uint32_t x = atomic_load_explicit(&amo_ids[i % AMO_MAX_WINS], memory_order_acquire);
        if (x == id)
            return (long) (i % AMO_MAX_WINS);
        if (x == 0)
            break;
    }
    return -1;
}

/* want: the window's serial, else 0 for a number of the process's own.  0: every
 * slot is taken (or want is, which a serial never is). */
uint32_t rmaib_ofi_amo_win_add(ofi_win_t *o, uint32_t want)
{
    uint32_t id = want;
    pthread_mutex_lock(&amo_wins_lock);
    for (uint32_t n = 0; !want && n < AMO_MAX_WINS + 1 && !id; n++) {
        id = amo_next_local;
        amo_next_local = amo_next_local + 1 < AMO_ID_END ? amo_next_local + 1 : AMO_LOCAL_ID0;
        if (amo_slot(id) >= 0)
            id = 0;
    }
    if (id && amo_slot(id) >= 0)
        id = 0;
    uint32_t i = id, n = 0;
    for (; id && n < AMO_MAX_WINS; n++, i++) {
        uint32_t x = atomic_load_explicit(&amo_ids[i % AMO_MAX_WINS], memory_order_relaxed);
        if (x == 0 || x == AMO_GONE)
            break;
    }
    if (id && n < AMO_MAX_WINS) {
        atomic_store_explicit(&amo_wins[i % AMO_MAX_WINS], o, memory_order_release);
        atomic_store_explicit(&amo_ids[i % AMO_MAX_WINS], id, memory_order_release);
    } else {
        id = 0;
    }
    pthread_mutex_unlock(&amo_wins_lock);
    return id;
}

void rmaib_ofi_amo_win_remove(ofi_win_t *o)
{
    pthread_mutex_lock(&amo_wins_lock);
    long s = o->wid ? amo_slot(o->wid) : -1;
    if (s >= 0) {
        atomic_store_explicit(&amo_ids[s], AMO_GONE, memory_order_release);
        atomic_store_explicit(&amo_wins[s], NULL, memory_order_release);
    }
    pthread_mutex_unlock(&amo_wins_lock);
    o->wid = 0;
}

/* The kinds of mailbox message with remote CQ data (answers have none). */
enum { AMO_REFUSED = 0, AMO_REQUEST = 1, AMO_ONE_WAY = 2 };
/* In the slot byte of an AMO_REFUSED answer: the refused request was one-way.  Nobody
 * waits on its slot, which the next answered request frees as for any one-way; the
 * origin keeps the error for its next flush to this target. */
enum { AMO_ONE_WAY_REFUSED = 0x80 };

/* The remote CQ data of a mailbox message: kind, the receiver's number for the
 * window, the sender's rank in it, the slot. */
static uint64_t amo_data(unsigned kind, uint32_t wid, int rank, int slot)
{
    return (uint64_t) kind << 62 | (uint64_t) (wid & 0x3fffff) << 40
        | (uint64_t) (uint32_t) rank << 8 | (uint64_t) slot;
}

/* A mailbox holds, for each peer rank, its requests to us and our answers from it
 * side by side: a process that works with its neighbours touches a page or so of
 * each window's mailbox, not a page of requests and another of answers. */
enum {
    AMO_PEER_BYTES = RMAIB_AMO_SLOTS * (sizeof(rmaib_amo_req_t) + sizeof(rmaib_amo_ans_t))
};

/* Where the request from rank origin in slot lies in a mailbox. */
static size_t amo_req_off(int origin, int slot)
{
    return (size_t) origin * AMO_PEER_BYTES + (size_t) slot * sizeof(rmaib_amo_req_t);
}

/* Where the answer from rank target to our request in slot lies in our mailbox. */
static size_t amo_ans_off(int target, int slot)
{
    return (size_t) target * AMO_PEER_BYTES + RMAIB_AMO_SLOTS * sizeof(rmaib_amo_req_t)
        + (size_t) slot * sizeof(rmaib_amo_ans_t);
}

/* Each origin's stage in a target's mailbox, for runs of elements.  Every rank
 * computes the same size from the window's: 16 KiB an origin, at most 1 MiB a
 * window, 256 bytes at least (32 elements of 8 bytes). */
size_t rmaib_ofi_amo_stage_bytes(int nranks)
{
    size_t b = ((size_t) 1 << 20) / (size_t) nranks;
    b = b > 16384 ? 16384 : b < 256 ? 256 : b;
    return b & ~(size_t) 63;
}

/* Where origin's stage starts in the mailbox (origin == nranks: its end). */
size_t rmaib_ofi_amo_stage_off(const ofi_win_t *o, int origin)
{
    size_t base = (size_t) o->nranks * AMO_PEER_BYTES;
    base = (base + 63) & ~(size_t) 63;
    return base + (size_t) origin * o->stage_bytes;
}

/* Answers the provider would not take yet (-FI_EAGAIN), sent by the next reaper;
 * touched only under reap_lock.  data 0: an answer the origin looks for (no
 * completion); else the refusal of a one-way request, which nobody looks for: its
 * remote CQ data tells the origin. */
typedef struct amo_unsent {
    fi_addr_t addr;
    uint64_t raddr, key, data;
    rmaib_amo_ans_t ans;
} amo_unsent_t;
static amo_unsent_t *amo_queue;
static size_t amo_nqueued, amo_queue_cap;

static int amo_send_answer(const amo_unsent_t *a)
{
    ssize_t r = a->data
        ? fi_inject_writedata(ofi.ep, &a->ans.value, sizeof a->ans.value, a->data, a->addr,
                              a->raddr, a->key)
        : fi_inject_write(ofi.ep, &a->ans, sizeof a->ans, a->addr, a->raddr, a->key);
    if (r == -FI_EAGAIN)
        return 0;
    if (r != 0)
        rmaib_ofi_post_failed("a control atomic's answer", r);
    return 1;
}

void rmaib_ofi_amo_resend(void)
{
    size_t sent = 0;
    while (sent < amo_nqueued && amo_send_answer(&amo_queue[sent]))
        sent++;
    if (sent) {
        memmove(amo_queue, amo_queue + sent, (amo_nqueued - sent) * sizeof *amo_queue);
        amo_nqueued -= sent;
    }
}

/* Answer origin's request tagged tag in slot with its old value, or refuse it;
 * one_way: refuse a one-way request, by remote CQ data. */
static void amo_answer(ofi_win_t *o, int origin, int slot, int refused, int one_way,
                       uint32_t tag, uint64_t value)
{
    /* From the columns: serving a request makes no record of its origin. */
    uint32_t wid = (uint32_t) rmaib_ofi_col(o, OFI_COL_BOX_WID, origin);
    amo_unsent_t a = {
        (fi_addr_t) rmaib_ofi_col(o, OFI_COL_AV, origin),
        rmaib_ofi_col(o, OFI_COL_BOX_RADDR, origin) + amo_ans_off(o->rank, slot),
        rmaib_ofi_col(o, OFI_COL_BOX_KEY, origin),
        one_way ? amo_data(AMO_REFUSED, wid, o->rank, slot | AMO_ONE_WAY_REFUSED) : 0,
        { 0, 0, 0 },
    };
    rmaib_amo_answer_fill(&a.ans, tag, refused, value);
    if (amo_nqueued == 0 && amo_send_answer(&a))
        return;
    if (amo_nqueued == amo_queue_cap) {
        size_t cap = amo_queue_cap ? 2 * amo_queue_cap : 64;
        amo_unsent_t *q = realloc(amo_queue, cap * sizeof *q);
        if (!q) {               /* the origin would wait forever: say so */
            rmaib_host_say("rmaib: out of memory queueing a control atomic's answer");
            return;
        }
        amo_queue = q;
        amo_queue_cap = cap;
    }
    amo_queue[amo_nqueued++] = a;
}

/* A malformed request is refused, not guessed at: the answer says so and the
 * origin's call fails, rather than returning a value nobody computed. */
static void amo_serve(ofi_win_t *o, int origin, int slot, int one_way)
{
    const rmaib_amo_req_t *q = (const rmaib_amo_req_t *) (o->box + amo_req_off(origin, slot));
    uint64_t old;
    int rc = rmaib_amo_apply(q, o->ctrl, o->ctrl_size, o->data, o->data_size,
                             o->box + rmaib_ofi_amo_stage_off(o, origin), o->stage_bytes, &old);
    atomic_fetch_add_explicit(&o->served, 1, memory_order_release);
    if (rc != RMAIB_OK && !atomic_exchange(&ofi.said_error, 1))
        rmaib_host_say("rmaib: refused a malformed mailbox atomic from rank %d "
                       "(offset %llu, op %#x)", origin, (unsigned long long) q->off, q->op);
    if (!one_way)
        amo_answer(o, origin, slot, rc != RMAIB_OK, 0, q->tag, old);
    else if (rc != RMAIB_OK)
        amo_answer(o, origin, slot, 1, 1, q->tag, 0);
}

/* Our request in slot came back with value (refused: the target did not apply it):
 * hand value over, and free the slot and every one-way slot sent before it (the
 * target served those first). */
static void amo_answered(ofi_win_t *o, int target, int slot, int refused, uint64_t value)
{
    ofi_peer_t *p = rmaib_ofi_peer_find(o, target);
    ofi_peer_amo_t *m = p ? atomic_load_explicit(&p->amo, memory_order_acquire) : NULL;
    if (!m)
        return;
    pthread_mutex_lock(&m->amo_lock);
    amo_slot_t *a = &m->amo[slot];
    ofi_waiter_t *wt = a->wt;
    if (!(m->amo_busy >> slot & 1) || !wt) {
        pthread_mutex_unlock(&m->amo_lock);
        return;
    }
    if (refused)
        atomic_store_explicit(&wt->err, 1, memory_order_relaxed);
    else if (a->result)
        *a->result = value;
    for (int i = 0; i < RMAIB_AMO_SLOTS; i++)
        if ((m->amo_busy >> i & 1) && (i == slot || (!m->amo[i].wt && m->amo[i].seq < a->seq)))
            m->amo_busy &= ~(1u << i);
    pthread_mutex_unlock(&m->amo_lock);
    atomic_fetch_sub_explicit(&wt->pending, 1, memory_order_release);
}

/* Room for one more awaited answer (the caller holds awaited_lock). */
static int awaited_room(void)
{
    if (nawaited < awaited_cap)
        return RMAIB_OK;
    size_t cap = awaited_cap ? 2 * awaited_cap : 64;
    amo_awaited_t *a = realloc(awaited, cap * sizeof *a);
    if (!a)
        return RMAIB_ERR_NO_MEM;
    awaited = a;
    awaited_cap = cap;
    return RMAIB_OK;
}

/* The list made with the first mailbox, at a window's creation (where a failure is
 * agreed on), not by the first request, whose failure should leave nothing made. */
int rmaib_ofi_amo_reserve(void)
{
    pthread_mutex_lock(&awaited_lock);
    int rc = awaited_room();
    pthread_mutex_unlock(&awaited_lock);
    return rc;
}

static int amo_await(ofi_win_t *o, int target, int slot, uint32_t tag)
{
    pthread_mutex_lock(&awaited_lock);
    if (awaited_room() != RMAIB_OK) {
        pthread_mutex_unlock(&awaited_lock);
        return RMAIB_ERR_NO_MEM;
    }
    awaited[nawaited++] = (amo_awaited_t) { o, target, slot, tag };
    atomic_store_explicit(&awaited_count, nawaited, memory_order_relaxed);
    pthread_mutex_unlock(&awaited_lock);
    return RMAIB_OK;
}

/* Take entry i off the list (the caller holds awaited_lock). */
static void amo_unlist(size_t i)
{
    awaited[i] = awaited[--nawaited];
    atomic_store_explicit(&awaited_count, nawaited, memory_order_relaxed);
}

static void amo_unawait(ofi_win_t *o, int target, int slot)
{
    pthread_mutex_lock(&awaited_lock);
    for (size_t i = 0; i < nawaited; i++)
        if (awaited[i].o == o && awaited[i].target == target && awaited[i].slot == slot) {
            amo_unlist(i);
            break;
        }
    pthread_mutex_unlock(&awaited_lock);
}

/* Look for the answers awaited; the caller holds reap_lock and has just read the CQ,
 * which is what places them.  Answers found are handed over after the list's lock is
 * released (amo_answered takes the slot's). */
int rmaib_ofi_amo_collect(void)
{
    if (atomic_load_explicit(&awaited_count, memory_order_relaxed) == 0)
        return 0;
    struct answer_found {
        ofi_win_t *o;
        int target, slot, refused;
        uint64_t value;
    } found[32];
    int n = 0;
    pthread_mutex_lock(&awaited_lock);
    for (size_t i = 0; i < nawaited && n < 32;) {
        amo_awaited_t *w = &awaited[i];
        const volatile rmaib_amo_ans_t *ans = (const volatile rmaib_amo_ans_t *) (w->o->box
            + amo_ans_off(w->target, w->slot));
        uint64_t value = 0;
        int got = rmaib_amo_answer_read(ans, w->tag, &value);
        if (got) {
            found[n++] = (struct answer_found) { w->o, w->target, w->slot, got < 0, value };
            amo_unlist(i);
        } else {
            i++;
        }
    }
    pthread_mutex_unlock(&awaited_lock);
    atomic_thread_fence(memory_order_acquire);
    for (int i = 0; i < n; i++)
        amo_answered(found[i].o, found[i].target, found[i].slot, found[i].refused,
                     found[i].value);
    return n;
}

/* Answered requests in flight: their answers come with no completion to wake on. */
size_t rmaib_ofi_amo_awaited(void)
{
    return atomic_load_explicit(&awaited_count, memory_order_relaxed);
}

/* A mailbox message with remote CQ data: a request, or the refusal of a one-way one. */
void rmaib_ofi_amo_incoming(uint64_t data)
{
    unsigned kind = (unsigned) (data >> 62), wid = (unsigned) (data >> 40) & 0x3fffff;
    uint32_t rank = (uint32_t) (data >> 8);
    int slot = (int) (data & 0xff & ~AMO_ONE_WAY_REFUSED);
    long s = wid ? amo_slot(wid) : -1;
    ofi_win_t *o = s >= 0 ? atomic_load_explicit(&amo_wins[s], memory_order_acquire) : NULL;
    if (!o || rank >= (uint32_t) o->nranks || slot >= RMAIB_AMO_SLOTS || kind > AMO_ONE_WAY
        || (kind == AMO_REFUSED && !(data & AMO_ONE_WAY_REFUSED))) {
        if (!atomic_exchange(&ofi.said_error, 1))
            rmaib_host_say("rmaib: a mailbox message for no window (data %#llx)",
                           (unsigned long long) data);
        return;
    }
    if (kind == AMO_REFUSED) {
        ofi_peer_t *p = rmaib_ofi_peer_find(o, (int) rank);   /* we sent it: made */
        if (p) {
            atomic_store_explicit(&p->err, FI_EINVAL, memory_order_relaxed);
            rmaib_ofi_touch(p);
        }
    } else
        amo_serve(o, (int) rank, slot, kind == AMO_ONE_WAY);
}

/* Send one request; wt NULL makes it one-way, which needs two slots left over for
 * the answered requests that free it (else AMO_FULL).  An answered request waits
 * for a free slot; its waiter's pending count already includes it. */
int rmaib_ofi_amo_issue(ofi_win_t *o, int peer, uint64_t off, uint32_t op, uint64_t operand,
                        uint64_t compare, uint64_t *result, ofi_waiter_t *wt)
{
    ofi_peer_t *p = ofi_peer(o, peer);
    ofi_peer_amo_t *m = p ? rmaib_ofi_peer_amo(p) : NULL;
    int slot = -1;
    if (!m)
        return RMAIB_ERR_NO_MEM;
    uint64_t seq = 0;
    RMAIB_BACKOFF(bo);
    /* Held while waiting for a slot: the waits serve the CQ, which frees slots. */
    pthread_mutex_lock(&m->send_lock);
    for (;;) {
        pthread_mutex_lock(&m->amo_lock);
        slot = rmaib_amo_pick_slot(m->amo_busy, wt != NULL);
        if (slot >= 0) {
            m->amo_busy |= 1u << slot;
            seq = ++m->amo_seq;
            m->amo[slot] = (amo_slot_t) { wt, result, seq };
        }
        pthread_mutex_unlock(&m->amo_lock);
        if (slot >= 0)
            break;
        if (!wt) {
            pthread_mutex_unlock(&m->send_lock);
            return AMO_FULL;
        }
        rmaib_backoff(&bo);
    }
    rmaib_amo_req_t q = { off, operand, compare, op, (uint32_t) seq };
    uint64_t raddr = p->box_raddr + amo_req_off(o->rank, slot);
    uint64_t data = amo_data(wt ? AMO_REQUEST : AMO_ONE_WAY, p->box_wid, o->rank, slot);
    ssize_t r = wt ? amo_await(o, peer, slot, q.tag) : RMAIB_OK;
    if (r == RMAIB_OK)
        RETRY(r, fi_inject_writedata(ofi.ep, &q, sizeof q, data, p->addr, raddr, p->box_key));
    pthread_mutex_unlock(&m->send_lock);
    if (r != 0) {
        if (wt)
            amo_unawait(o, peer, slot);
        pthread_mutex_lock(&m->amo_lock);
        m->amo_busy &= ~(1u << slot);
        pthread_mutex_unlock(&m->amo_lock);
        return r == RMAIB_ERR_NO_MEM ? (int) r : rmaib_ofi_post_failed("control atomic", r);
    }
    if (!wt)                    /* its slot stays busy until a later answer */
        rmaib_ofi_touch(p);
    return RMAIB_OK;
}

int rmaib_ofi_amo_blocking(ofi_win_t *o, int peer, uint64_t off, uint32_t op,
                           uint64_t operand, uint64_t compare, uint64_t *result)
{
    ofi_waiter_t wt = { 1, 0 };
    uint64_t ignored;
    int rc = rmaib_ofi_amo_issue(o, peer, off, op, operand, compare, result ? result : &ignored,
                                 &wt);
    return rc != RMAIB_OK ? rc : wait_for(&wt);
}

/* Window free: our one-way requests to p are served before the barrier that lets
 * the target drop its mailbox.  An answered read sent after them shows it. */
int rmaib_ofi_amo_quiesce(ofi_win_t *o, ofi_peer_t *p)
{
    ofi_peer_amo_t *m = atomic_load_explicit(&p->amo, memory_order_acquire);
    if (!m)
        return RMAIB_OK;
    pthread_mutex_lock(&m->amo_lock);
    uint32_t busy = m->amo_busy;
    pthread_mutex_unlock(&m->amo_lock);
    return busy ? rmaib_ofi_amo_blocking(o, p->rank, 0, RMAIB_AOP_READ, 0, 0, NULL) : RMAIB_OK;
}

/* n elements of window data in runs: each run's operands are put into our stage at
 * the target, one request has the target apply them all, and after its answer the
 * old values wait in the stage to be read.  The request must not overtake the put:
 * one stream per peer places them in order, elsewhere the put is flushed first. */
int rmaib_ofi_amo_runs(rmaib_win_t *w, ofi_win_t *o, int peer, uint64_t roff, rmaib_basic_t b,
                       rmaib_op_t op, const char *operand, char *fetch, size_t n)
{
    ofi_peer_t *p = ofi_peer(o, peer);
    ofi_peer_amo_t *m = p ? rmaib_ofi_peer_amo(p) : NULL;
    if (!m)
        return RMAIB_ERR_NO_MEM;
    size_t es = rmaib_basic_size(b), per = o->stage_bytes / es;
    uint64_t stage = p->box_raddr + rmaib_ofi_amo_stage_off(o, o->rank);
    int rc = RMAIB_OK;
    /* Held while the run's requests are answered: the waits serve the CQ themselves,
     * and a second thread's run would overwrite the operands in the stage. */
    pthread_mutex_lock(&m->stage_lock);
    for (size_t done = 0; done < n && rc == RMAIB_OK; done += per) {
        size_t k = n - done < per ? n - done : per;
        if (operand) {
            rc = rmaib_ofi_write_copied(w, p, stage, p->box_key, operand + done * es, k * es);
            if (rc == RMAIB_OK && k * es > ofi.waw_size)
                rc = rmaib_ofi_flush_peer(w, p);
        }
        if (rc == RMAIB_OK)
            rc = rmaib_ofi_amo_blocking(o, peer, roff + done * es, rmaib_amo_data_run(b, op), k,
                                        0, NULL);
        if (rc == RMAIB_OK && fetch)
            rc = rmaib_ofi_read_blocking(p, fetch + done * es, k * es, stage, p->box_key);
    }
    pthread_mutex_unlock(&m->stage_lock);
    return rc;
}
