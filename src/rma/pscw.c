/*
 * Post/start/complete/wait on RDMA-written signals (seed 002 §3.3.3 uses a post
 * bitvector and a completion counter; see below for why these are words).
 *
 * Up to RMAIB_PSCW_DENSE ranks, each rank has, in every other rank's control block,
 * two words it alone writes: how many times it has posted to that rank, and how many
 * completes it has sent it.  Both only grow, and each side counts locally what it has
 * sent and consumed.
 *
 * post:     store our next post number into each origin's post word for us.
 * start:    returns at once; the first operation to a target waits for its post
 *           (any thread's: the epoch is the process's), complete consumes it.
 * complete: wait for the post of every target in the start group (so no post carries
 *           over into the next epoch, even for a target that got no operation),
 *           then store our next complete number into each target, ordered after
 *           our operations on it (see send_complete).
 * wait:     wait until every origin of the post group has completed once more.
 * A target posts again only after its wait, which follows our complete, so a post
 * word is never more than one ahead of what its reader has consumed.
 *
 * Why words and not a bitvector and a counter: those need fetch-adds, and over a
 * software provider an atomic is a request and a response, where a store is one
 * message that nobody waits for.  A post plus a complete went from four messages to
 * two (PSCW+put over tcp;ofi_rxm: see README).  The price is 16 bytes per rank in
 * each control block instead of one bit, and a wait that reads one word per origin.
 *
 * Above RMAIB_PSCW_DENSE ranks that price is the queue's instead (foMPI's, and Open
 * MPI osc/rdma's post_peers; rmaib_postq_t): a post is a fetch-add on the origin's
 * tail and a store of our rank into the slot it gave, which the origin drains into
 * its peers' posts_arrived whenever it waits for a post (a target may post early,
 * for an epoch the origin has not started yet); a complete is a flush and an add to
 * the target's one count of completes.  A queue holds RMAIB_POSTQ_SLOTS posts not
 * drained yet: a post beyond that waits, draining its own queue meanwhile so that
 * two processes posting to each other never wait in a circle.
 */
#include <stdlib.h>
#include <string.h>
#include "rma_impl.h"

#define POST_ASSERTS (RMAIB_MODE_NOCHECK | RMAIB_MODE_NOSTORE | RMAIB_MODE_NOPUT)
#define START_ASSERTS RMAIB_MODE_NOCHECK

static const uint64_t *seq_word(rmaib_win_t *w, int kind, int rank)
{
    return (const uint64_t *) ((char *) w->my_ctrl + rmaib_ctrl_seq_off(w->nranks, kind, rank));
}

/* A group's ranks checked, their entries opened, and a copy kept in *list (grown to
 * *cap entries as groups need). */
static int take_group(rmaib_win_t *w, const int *ranks, int n, int **list, int *cap)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= w->nranks)
            return RMAIB_ERR_RANK;
    for (int i = 0; i < n; i++) {
        rmaib_peer_t *pe;
        int rc = rmaib_peer_open(w, ranks[i], &pe);
        if (rc != RMAIB_OK)
            return rc;
    }
    if (n > *cap) {
        int *l = realloc(*list, sizeof(int) * (size_t) n);
        if (!l)
            return RMAIB_ERR_NO_MEM;
        *list = l;
        *cap = n;
    }
    if (n)
        memcpy(*list, ranks, sizeof(int) * (size_t) n);
    return RMAIB_OK;
}

/* Our queue's posts moved into their ranks' entries (posts_arrived), by one thread at
 * a time; slots go in order, so one claimed but not yet written holds back those
 * after it until its target's store lands, which nothing delays. */
static int postq_drain(rmaib_win_t *w)
{
    if (w->mt && __atomic_exchange_n(&w->postq_draining, 1, __ATOMIC_ACQUIRE))
        return RMAIB_OK;
    rmaib_postq_t *q = rmaib_ctrl_postq(w->my_ctrl);
    uint64_t h = w->postq_head;
    int rc = RMAIB_OK;
    for (;;) {
        uint64_t v = rmaib_load(&q->slot[h % (uint64_t) w->postq_slots]);
        if (v >> 32 != h / (uint64_t) w->postq_slots + 1)
            break;
        int r = (int) (uint32_t) v;
        rmaib_peer_t *pe;
        if (r >= w->nranks)
            rc = RMAIB_ERR_INTERN;
        else
            rc = rmaib_peer_open(w, r, &pe);
        if (rc != RMAIB_OK)
            break;
        __atomic_fetch_add(&rmaib_peer_ent(w, r)->pscw.posts_arrived, 1, __ATOMIC_RELEASE);
        h++;
    }
    if (h != w->postq_head) {   /* the slots are read: their targets may reuse them */
        rc = rmaib_first_error(rc, rmaib_ctrl_op(w, w->rank, RMAIB_POSTQ_OFF(head),
                                                 RMAIB_AOP_FADD, h - w->postq_head, 0, NULL));
        w->postq_head = h;
    }
    if (w->mt)
        __atomic_store_n(&w->postq_draining, 0, __ATOMIC_RELEASE);
    return rc;
}

/* Post to origin through its queue: claim a slot, wait for it to be free if it may
 * not be (c->post_head is what origin's head last said), then name ourselves in it. */
static int postq_post(rmaib_win_t *w, int origin, rmaib_pscw_count_t *c)
{
    uint64_t i, n = (uint64_t) w->postq_slots;
    int rc = rmaib_ctrl_op(w, origin, RMAIB_POSTQ_OFF(tail), RMAIB_AOP_FADD, 1, 0, &i);
    RMAIB_BACKOFF(bo);
    while (rc == RMAIB_OK && i >= c->post_head + n) {
        rc = rmaib_ctrl_op(w, origin, RMAIB_POSTQ_OFF(head), RMAIB_AOP_READ, 0, 0, &c->post_head);
        if (rc == RMAIB_OK && i >= c->post_head + n) {
            rc = postq_drain(w);
            rmaib_backoff(&bo);
        }
    }
    if (rc != RMAIB_OK)
        return rc;
    return rmaib_ctrl_store(w, origin, RMAIB_POSTQ_OFF(slot[i % n]), (i / n + 1) << 32
                            | (uint64_t) w->rank);
}

int rmaib_post(rmaib_win_t *w, const int *ranks, int n, int assert)
{
    if (assert & ~POST_ASSERTS)
        return RMAIB_ERR_ASSERT;
    int exposure = rmaib_exposure(w);
    if (exposure == RMAIB_EXPOSURE_POST
        || (exposure == RMAIB_EXPOSURE_FENCE && rmaib_access(w) == RMAIB_ACCESS_FENCE))
        return RMAIB_ERR_RMA_SYNC;
    int rc = take_group(w, ranks, n, &w->post_ranks, &w->post_cap);
    if (rc != RMAIB_OK)
        return rc;
    /* NOCHECK: the origins start with NOCHECK too and will not consume a post. */
    for (int i = 0; i < n && !(assert & RMAIB_MODE_NOCHECK); i++) {
        rmaib_pscw_count_t *c = &rmaib_peer_ent(w, ranks[i])->pscw;
        rc = w->pscw_mode == RMAIB_PSCW_QUEUE ? postq_post(w, ranks[i], c)
            : rmaib_ctrl_store(w, ranks[i], rmaib_ctrl_seq_off(w->nranks, RMAIB_SEQ_POST, w->rank),
                               c->posts_sent + 1);
        if (rc != RMAIB_OK)
            return rc;
        c->posts_sent++;
    }
    /* What a fence left of the access side goes, unless another thread's start has
     * opened an epoch there meanwhile (and start does the same for us). */
    int fence_issued = RMAIB_ACCESS_FENCE_ISSUED;
    __atomic_compare_exchange_n(&w->access, &fence_issued, RMAIB_ACCESS_NONE, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    w->npost = n;
    rmaib_set_exposure(w, RMAIB_EXPOSURE_POST);
    return RMAIB_OK;
}

int rmaib_start(rmaib_win_t *w, const int *ranks, int n, int assert)
{
    if (assert & ~START_ASSERTS)
        return RMAIB_ERR_ASSERT;
    int access = rmaib_access(w);
    if (access != RMAIB_ACCESS_NONE && access != RMAIB_ACCESS_FENCE_ISSUED)
        return RMAIB_ERR_RMA_SYNC;
    int fence = RMAIB_EXPOSURE_FENCE;
    __atomic_compare_exchange_n(&w->exposure, &fence, RMAIB_EXPOSURE_NONE, 0,
                                __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    int rc = take_group(w, ranks, n, &w->start_ranks, &w->start_cap);
    if (rc != RMAIB_OK)
        return rc;
    for (int i = 0; i < n; i++)
        __atomic_store_n(&rmaib_peer_ent(w, ranks[i])->start_state, assert & RMAIB_MODE_NOCHECK
                         ? RMAIB_START_READY : RMAIB_START_WAITING, __ATOMIC_RELAXED);
    w->start_nocheck = (assert & RMAIB_MODE_NOCHECK) != 0;
    w->nstart = n;
    rmaib_set_access(w, RMAIB_ACCESS_START);
    return RMAIB_OK;
}

/* Wait for target's next post.  Any thread of the epoch may, several at once (the
 * epoch is the process's): the wait only reads, and complete alone consumes the post,
 * so a thread that looks after another saw it sees it too (#52: a waiter that
 * consumed it sent the others waiting for the next post, which never came). */
int rmaib_pscw_wait_post(rmaib_win_t *w, int target)
{
    rmaib_peer_ent_t *e = rmaib_peer_ent(w, target);
    if (__atomic_load_n(&e->start_state, __ATOMIC_ACQUIRE) == RMAIB_START_READY)
        return RMAIB_OK;
    uint64_t seen = e->pscw.posts_seen;
    RMAIB_BACKOFF(bo);
    if (w->pscw_mode == RMAIB_PSCW_QUEUE) {
        while (__atomic_load_n(&e->pscw.posts_arrived, __ATOMIC_ACQUIRE) <= seen) {
            int rc = postq_drain(w);
            if (rc != RMAIB_OK)
                return rc;
            rmaib_backoff(&bo);
        }
    } else {
        const uint64_t *word = seq_word(w, RMAIB_SEQ_POST, target);
        while (rmaib_load(word) <= seen)
            rmaib_backoff(&bo);
    }
    __atomic_store_n(&e->start_state, RMAIB_START_READY, __ATOMIC_RELEASE);
    return RMAIB_OK;
}

/* The complete must land after the epoch's operations on target.  The store's
 * transport orders it after what that transport carried (ctrl_store), so there is no
 * flush and no round trip; accumulates that went through the window's atomics
 * transport instead (a window spanning nodes) are flushed first.  The complete goes
 * even if that flush failed, or the target would wait for it for good; the flush's
 * error is the one returned. */
static int send_complete(rmaib_win_t *w, int target)
{
    int rc = RMAIB_OK;
    rmaib_peer_ent_t *e = rmaib_peer_ent(w, target);
    if (w->atp != e->p.tp)
        rc = w->atp->flush(w, target);
    int rc2;
    if (w->pscw_mode == RMAIB_PSCW_QUEUE) {
        /* An atomic is ordered after nothing: what went before lands first. */
        rc2 = e->p.tp->flush(w, target);
        if (rc2 == RMAIB_OK)
            rc2 = rmaib_ctrl_op(w, target, RMAIB_POSTQ_OFF(done), RMAIB_AOP_FADD, 1, 0, NULL);
    } else {
        rc2 = rmaib_ctrl_store(w, target, rmaib_ctrl_seq_off(w->nranks, RMAIB_SEQ_COMPLETE,
                                                             w->rank),
                               e->pscw.completes_sent + 1);
    }
    e->pscw.completes_sent += rc2 == RMAIB_OK;
    return rmaib_first_error(rc, rc2);
}

int rmaib_complete(rmaib_win_t *w)
{
    int rc = RMAIB_OK;
    if (rmaib_access(w) != RMAIB_ACCESS_START)
        return RMAIB_ERR_RMA_SYNC;
    for (int i = 0; rc == RMAIB_OK && i < w->nstart; i++)
        rc = rmaib_pscw_wait_post(w, w->start_ranks[i]);
    if (rc == RMAIB_OK) {       /* every post seen: each target gets its complete */
        for (int i = 0; i < w->nstart; i++) {
            if (!w->start_nocheck)
                rmaib_peer_ent(w, w->start_ranks[i])->pscw.posts_seen++;
            rc = rmaib_first_error(rc, send_complete(w, w->start_ranks[i]));
        }
    }
    for (int i = 0; i < w->nstart; i++)
        __atomic_store_n(&rmaib_peer_ent(w, w->start_ranks[i])->start_state, RMAIB_START_OUT,
                         __ATOMIC_RELAXED);
    w->nstart = 0;
    rmaib_set_access(w, RMAIB_ACCESS_NONE);
    return rc;
}

/* Has every origin of the post group completed once more?  With the queue, our
 * wait drains it too: an origin of ours may be waiting in its post for room in it
 * before it can start and complete. */
static int all_completed(rmaib_win_t *w, int *rc)
{
    if (w->pscw_mode == RMAIB_PSCW_QUEUE) {
        *rc = postq_drain(w);
        return rmaib_load(&rmaib_ctrl_postq(w->my_ctrl)->done) >= w->postq_completes + (uint64_t) w->npost;
    }
    for (int i = 0; i < w->npost; i++)
        if (rmaib_load(seq_word(w, RMAIB_SEQ_COMPLETE, w->post_ranks[i]))
            <= rmaib_peer_ent(w, w->post_ranks[i])->pscw.completes_seen)
            return 0;
    return 1;
}

static int consume_completes(rmaib_win_t *w)
{
    w->postq_completes += (uint64_t) w->npost;
    for (int i = 0; i < w->npost; i++)
        rmaib_peer_ent(w, w->post_ranks[i])->pscw.completes_seen++;
    rmaib_set_exposure(w, RMAIB_EXPOSURE_NONE);
    return RMAIB_OK;
}

int rmaib_wait(rmaib_win_t *w)
{
    if (rmaib_exposure(w) != RMAIB_EXPOSURE_POST)
        return RMAIB_ERR_RMA_SYNC;
    int rc = RMAIB_OK;
    RMAIB_BACKOFF(bo);
    while (!all_completed(w, &rc) && rc == RMAIB_OK)
        rmaib_backoff(&bo);
    return rc != RMAIB_OK ? rc : consume_completes(w);
}

int rmaib_test(rmaib_win_t *w, int *flag)
{
    *flag = 0;
    if (rmaib_exposure(w) != RMAIB_EXPOSURE_POST)
        return RMAIB_ERR_RMA_SYNC;
    rmaib_transport_progress();
    int rc = RMAIB_OK;
    if (!all_completed(w, &rc) || rc != RMAIB_OK)
        return rc;
    *flag = 1;
    return consume_completes(w);
}
