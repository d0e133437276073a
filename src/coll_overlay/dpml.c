/*
 * DPML allreduce (seed 001, the multi-leader allreduce) for a group spanning nodes
 * of k ranks each:
 *  1. within each node, a reduce-scatter: the vector is cut into k partitions and
 *     local rank j reduces partition j from every local rank (loads and stores in
 *     the node's shared segment);
 *  2. across nodes, k leaders at once: local rank j of every node allreduces
 *     partition j with its counterparts (recursive doubling over the network), so
 *     every rank of a node drives its share of the inter-node traffic;
 *  3. within each node, an allgather of the k finished partitions.
 * Each partition is reduced in one order by one rank per node and then by the
 * pairwise exchange of step 2, which gives both partners the same bits, so every
 * rank ends with the same result.  Nodes of unequal size use rd or rsag instead.
 */
#include <stdlib.h>
#include "coll_impl.h"

int rmaib_coll_nodes(rmaib_coll_t *c)
{
    const rmaib_win_t *w = c->win;
    int p = c->nranks;
    int *per = calloc((size_t) w->nnodes, sizeof *per);
    c->local = malloc(sizeof *c->local * (size_t) p);
    c->leaders = malloc(sizeof *c->leaders * (size_t) w->nnodes);
    if (!per || !c->local || !c->leaders) {
        free(per);
        return RMAIB_ERR_NO_MEM;
    }
    c->nnodes = w->nnodes;
    for (int r = 0; r < p; r++) {
        if (rmaib_peer_node(w, r) == w->mynode) {
            if (r == c->rank)
                c->lidx = c->nlocal;
            c->local[c->nlocal++] = r;
        }
        per[rmaib_peer_node(w, r)]++;
    }
    c->node_uniform = 1;
    for (int n = 0; n < w->nnodes; n++)
        c->node_uniform &= per[n] == c->nlocal;
    /* The lidx-th rank of every node, nodes in the order of their first rank. */
    for (int n = 0; n < w->nnodes; n++)
        per[n] = 0;
    c->nleaders = 0;
    for (int r = 0; c->node_uniform && r < p; r++) {
        int n = rmaib_peer_node(w, r);
        if (per[n]++ == c->lidx) {
            if (r == c->rank)
                c->nidx = c->nleaders;
            c->leaders[c->nleaders++] = r;
        }
    }
    free(per);
    return RMAIB_OK;
}

void rmaib_coll_dpml(rmaib_coll_t *c, void *rbuf, size_t count, coll_red_t *red)
{
    int k = c->nlocal, j = c->lidx;
    size_t es = red->esize, f, n, sf, sn;
    char *v = rbuf;
    rmaib_coll_block(count, k, j, &f, &n);
    /* 1: step i sends partition j + i to its owner and takes partition j's share
     * from local rank j - i, pairing every two local ranks once; a round each, so
     * partition j is reduced in one order. */
    red->mine_first = 1;
    for (int i = 1; i < k; i++) {
        int to = (j + i) % k, from = (j - i + k) % k;
        rmaib_coll_block(count, k, to, &sf, &sn);
        rmaib_sched_msg(c, c->local[to], v + sf * es, sn * es, c->local[from], v + f * es,
                        n * es, red);
        rmaib_sched_round(c);
    }
    /* 2: the leaders of partition j, one per node. */
    if (c->nleaders > 1 && n)
        rmaib_coll_rd_group(c, c->leaders, c->nleaders, c->nidx, v + f * es, n * es, red);
    /* 3: partition j to every local rank, theirs from each: copies, one round. */
    for (int i = 1; i < k; i++) {
        int to = (j + i) % k, from = (j - i + k) % k;
        rmaib_coll_block(count, k, from, &sf, &sn);
        rmaib_sched_msg(c, c->local[to], v + f * es, n * es, c->local[from], v + sf * es,
                        sn * es, NULL);
    }
    rmaib_sched_round(c);
}
