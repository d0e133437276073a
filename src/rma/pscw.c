/*
 * Post/start/complete/wait on RDMA-written bitvectors and counters (seed 002 §3.3.3).
 *
 * post:     flip our bit in each origin's post bitvector: a fetch-add of the bit on
 *           our even posts to that origin, of minus the bit on odd ones (one writer
 *           per bit, so neither carries nor borrows into a neighbour).
 * start:    returns at once; the first operation to a target waits for its bit.
 * complete: wait for the flip of every target in the start group (so no flip carries
 *           over into the next epoch, even for a target that got no operation),
 *           flush, then add 1 to each target's completion counter.
 * wait:     wait for the counter to grow by the post group's size.
 * A target posts again only after its wait, which follows our complete, so we have
 * seen each flip before the next one comes.  Nobody writes to their own words: the
 * flips' parities and the completes already consumed are counted locally, which
 * saves a network round trip to ourselves in each start and each wait when the
 * window's atomics go through the network.
 */
#include <string.h>
#include "rmaib_win.h"

#define POST_ASSERTS (RMAIB_MODE_NOCHECK | RMAIB_MODE_NOSTORE | RMAIB_MODE_NOPUT)
#define START_ASSERTS RMAIB_MODE_NOCHECK

static size_t post_word_off(int rank)
{
    return sizeof(struct rmaib_ctrl) + (size_t) (rank / 64) * sizeof(uint64_t);
}

static uint64_t post_bit(int rank)
{
    return UINT64_C(1) << (rank % 64);
}

int rmaib_post(rmaib_win_t *w, const int *ranks, int n, int assert)
{
    if (assert & ~POST_ASSERTS)
        return RMAIB_ERR_ASSERT;
    if (w->exposure == RMAIB_EXPOSURE_POST
        || (w->exposure == RMAIB_EXPOSURE_FENCE && w->access == RMAIB_ACCESS_FENCE))
        return RMAIB_ERR_RMA_SYNC;
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= w->nranks)
            return RMAIB_ERR_RANK;
    /* NOCHECK: the origins start with NOCHECK too and will not consume a bit. */
    for (int i = 0; i < n && !(assert & RMAIB_MODE_NOCHECK); i++) {
        uint8_t *phase = &w->post_phase[ranks[i]];
        uint64_t flip = *phase & RMAIB_POST_SENT ? -post_bit(w->rank) : post_bit(w->rank);
        int rc = rmaib_ctrl_op(w, ranks[i], post_word_off(w->rank), RMAIB_AOP_FADD, flip, 0, NULL);
        if (rc != RMAIB_OK)
            return rc;
        *phase ^= RMAIB_POST_SENT;
    }
    if (w->access == RMAIB_ACCESS_FENCE_ISSUED)
        w->access = RMAIB_ACCESS_NONE;
    w->npost = n;
    w->exposure = RMAIB_EXPOSURE_POST;
    return RMAIB_OK;
}

int rmaib_start(rmaib_win_t *w, const int *ranks, int n, int assert)
{
    if (assert & ~START_ASSERTS)
        return RMAIB_ERR_ASSERT;
    if (w->access != RMAIB_ACCESS_NONE && w->access != RMAIB_ACCESS_FENCE_ISSUED)
        return RMAIB_ERR_RMA_SYNC;
    if (w->exposure == RMAIB_EXPOSURE_FENCE)
        w->exposure = RMAIB_EXPOSURE_NONE;
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= w->nranks)
            return RMAIB_ERR_RANK;
    for (int i = 0; i < n; i++) {
        w->start_ranks[i] = ranks[i];
        w->start_state[ranks[i]] = assert & RMAIB_MODE_NOCHECK ? RMAIB_START_READY
            : RMAIB_START_WAITING;
    }
    w->nstart = n;
    w->access = RMAIB_ACCESS_START;
    return RMAIB_OK;
}

/* Wait until target's post has flipped its bit in our bitvector. */
int rmaib_pscw_wait_post(rmaib_win_t *w, int target)
{
    const uint64_t *word = (const uint64_t *) ((char *) w->my_ctrl + post_word_off(target));
    uint64_t want = w->post_phase[target] & RMAIB_POST_SEEN ? 0 : post_bit(target);
    RMAIB_BACKOFF(bo);
    while ((rmaib_load(word) & post_bit(target)) != want)
        rmaib_backoff(&bo);
    w->post_phase[target] ^= RMAIB_POST_SEEN;
    w->start_state[target] = RMAIB_START_READY;
    return RMAIB_OK;
}

int rmaib_complete(rmaib_win_t *w)
{
    int rc = RMAIB_OK;
    if (w->access != RMAIB_ACCESS_START)
        return RMAIB_ERR_RMA_SYNC;
    for (int i = 0; rc == RMAIB_OK && i < w->nstart; i++)
        if (w->start_state[w->start_ranks[i]] == RMAIB_START_WAITING)
            rc = rmaib_pscw_wait_post(w, w->start_ranks[i]);
    if (rc == RMAIB_OK)
        rc = rmaib_flush_issued(w);
    for (int i = 0; rc == RMAIB_OK && i < w->nstart; i++)
        rc = rmaib_ctrl_op(w, w->start_ranks[i], RMAIB_CTRL_OFF(complete_count), RMAIB_AOP_FADD,
                           1, 0, NULL);
    for (int i = 0; i < w->nstart; i++)
        w->start_state[w->start_ranks[i]] = RMAIB_START_OUT;
    w->nstart = 0;
    w->access = RMAIB_ACCESS_NONE;
    return rc;
}

static int consume_completes(rmaib_win_t *w)
{
    w->exposure = RMAIB_EXPOSURE_NONE;
    w->completes_seen += (uint64_t) w->npost;
    return RMAIB_OK;
}

int rmaib_wait(rmaib_win_t *w)
{
    if (w->exposure != RMAIB_EXPOSURE_POST)
        return RMAIB_ERR_RMA_SYNC;
    uint64_t want = w->completes_seen + (uint64_t) w->npost;
    RMAIB_BACKOFF(bo);
    while (rmaib_load(&w->my_ctrl->complete_count) < want)
        rmaib_backoff(&bo);
    return consume_completes(w);
}

int rmaib_test(rmaib_win_t *w, int *flag)
{
    *flag = 0;
    if (w->exposure != RMAIB_EXPOSURE_POST)
        return RMAIB_ERR_RMA_SYNC;
    rmaib_transport_progress();
    if (rmaib_load(&w->my_ctrl->complete_count) < w->completes_seen + (uint64_t) w->npost)
        return RMAIB_OK;
    *flag = 1;
    return consume_completes(w);
}
