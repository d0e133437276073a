/*
 * The MCS queue lock for exclusive access (seed 002 §4.3.2), selected per window with
 * info rmaib_lock=mcs.  Writers queue in FIFO order on the target's tail word and a
 * releasing holder hands over with one remote write into its successor's node.
 *
 * Shared locks stay on the reader-writer word: the queue head takes the word's writer
 * bit, and the bit passes down the queue with the handover, so readers see one long
 * writer until the queue empties and the last holder clears it.
 *
 * Each process has a pool of queue nodes (struct rmaib_ctrl), one for each target it
 * holds or waits for an exclusive lock on, so the control block does not grow with
 * P; a queue names a node by rank and node (queue_id).  A process that holds as many
 * exclusive locks on one window as it has nodes takes the next by test-and-set on
 * the writer bit, which the queue's head takes the same way: mutual exclusion holds,
 * only that lock's place in the queue's order is lost.
 */
#include "rma/rma_impl.h"
#include "base/config.h"

static size_t node_off(rmaib_win_t *w, int node, int field)
{
    return rmaib_ctrl_mcs_off(w->ctrl_pscw, node) + (size_t) field * sizeof(uint64_t);
}

enum { NEXT = 0, LOCKED = 1 };

/* Tail and next words: node << 32 | rank + 1; 0 is nobody. */
static uint64_t queue_id(int rank, int node)
{
    return (uint64_t) node << 32 | (uint64_t) (rank + 1);
}

static int id_rank(uint64_t id)
{
    return (int) (uint32_t) id - 1;
}

static int id_node(uint64_t id)
{
    return (int) (id >> 32);
}

static int node_take(rmaib_win_t *w)
{
    uint64_t f = atomic_load_explicit(&w->mcs_free, memory_order_relaxed);
    while (f && !atomic_compare_exchange_weak_explicit(&w->mcs_free, &f, f & (f - 1),
                                                       memory_order_acquire,
                                                       memory_order_relaxed))
        ;
    return f ? __builtin_ctzll(f) : -1;
}

/* RMAIB_TEST_MCS_NODES=n leaves n nodes in the pool (tests: a process holding more
 * exclusive locks than it has nodes). */
void rmaib_mcs_pool_init(rmaib_win_t *w)
{
    static int nodes = -1;
    if (nodes < 0) {
        int n = rmaib_env_int("RMAIB_TEST_MCS_NODES", RMAIB_MCS_NODES);
        nodes = n < 0 ? 0 : n > RMAIB_MCS_NODES ? RMAIB_MCS_NODES : n;
    }
    atomic_init(&w->mcs_free, nodes ? ~UINT64_C(0) >> (64 - nodes) : 0);
}

static void node_give(rmaib_win_t *w, int node)
{
    atomic_fetch_or_explicit(&w->mcs_free, UINT64_C(1) << node, memory_order_release);
}

int rmaib_mcs_acquire(rmaib_win_t *w, int target)
{
    rmaib_peer_ent_t *e = rmaib_peer_ent(w, target);
    int node = node_take(w);
    e->mcs_node = (int8_t) node;
    if (node < 0)
        return rmaib_tas_acquire_exclusive(w, target);
    uint64_t me = queue_id(w->rank, node), pred;
    int rc = rmaib_ctrl_op(w, w->rank, node_off(w, node, NEXT), RMAIB_AOP_WRITE, 0, 0, NULL);
    if (rc == RMAIB_OK)
        rc = rmaib_ctrl_op(w, w->rank, node_off(w, node, LOCKED), RMAIB_AOP_WRITE, 1, 0, NULL);
    if (rc == RMAIB_OK)
        rc = rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(mcs_tail), RMAIB_AOP_SWAP, me, 0, &pred);
    if (rc != RMAIB_OK) {
        node_give(w, node);
        e->mcs_node = -1;
        return rc;
    }
    if (pred == 0) {
        /* Head of an empty queue: take the writer bit from the readers, with one CAS
         * when there are none.  No other writer can hold it: writers come through the
         * queue, and a releasing head that just left it drops the bit soon after. */
        return rmaib_tas_acquire_exclusive(w, target);
    }
    rc = rmaib_ctrl_op(w, id_rank(pred), node_off(w, id_node(pred), NEXT), RMAIB_AOP_WRITE, me,
                       0, NULL);
    if (rc != RMAIB_OK)
        return rc;
    const uint64_t *locked = (const uint64_t *) ((char *) w->my_ctrl + node_off(w, node, LOCKED));
    RMAIB_BACKOFF(bo);
    while (rmaib_load(locked))
        rmaib_backoff(&bo);
    return RMAIB_OK;
}

static int mcs_release(rmaib_win_t *w, int target, int node);

int rmaib_mcs_release(rmaib_win_t *w, int target)
{
    rmaib_peer_ent_t *e = rmaib_peer_ent(w, target);
    int node = e->mcs_node;
    if (node < 0)
        return rmaib_tas_release(w, target, RMAIB_LOCK_EXCLUSIVE);
    e->mcs_node = -1;
    int rc = mcs_release(w, target, node);
    node_give(w, node);
    return rc;
}

/* The node goes back to the pool once no peer can still write into it: after the
 * tail no longer names it, or after the handover to the successor that linked it. */
static int mcs_release(rmaib_win_t *w, int target, int node)
{
    uint64_t me = queue_id(w->rank, node), old;
    const uint64_t *next = (const uint64_t *) ((char *) w->my_ctrl + node_off(w, node, NEXT));
    uint64_t succ = rmaib_load(next);
    int rc;
    if (succ == 0) {
        rc = rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(mcs_tail), RMAIB_AOP_CAS, 0, me, &old);
        if (rc != RMAIB_OK)
            return rc;
        if (old == me)          /* no one queued: the word goes back to the readers */
            return rmaib_ctrl_op(w, target, RMAIB_CTRL_OFF(lock), RMAIB_AOP_FADD,
                                 -RMAIB_LOCK_WRITER, 0, NULL);
        /* A successor swapped itself into the tail but has not linked its node to
         * ours yet; it will, since it knows us as its predecessor. */
        RMAIB_BACKOFF(bo);
        while ((succ = rmaib_load(next)) == 0)
            rmaib_backoff(&bo);
    }
    /* Handover: the writer bit stays set and now belongs to the successor. */
    return rmaib_ctrl_op(w, id_rank(succ), node_off(w, id_node(succ), LOCKED), RMAIB_AOP_WRITE,
                         0, 0, NULL);
}
