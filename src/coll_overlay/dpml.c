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
#include <stdint.h>
#include "coll_impl.h"

/* Group index of new index nr in recursive doubling over p2, rem of them folded
 * (as allreduce.c's rd_index). */
static int rd_index(int nr, int rem)
{
    return nr < rem ? 2 * nr + 1 : nr + rem;
}

/* The leader-group indices recursive doubling pairs us with (rd_group's). */
static int leader_partners(int p, int me, int *idx)
{
    int p2 = 1, n = 0;
    while (p2 * 2 <= p)
        p2 *= 2;
    int rem = p - p2, nr = me < 2 * rem ? (me % 2 ? me / 2 : -1) : me - rem;
    if (me < 2 * rem)
        idx[n++] = me % 2 ? me - 1 : me + 1;
    for (int mask = 1; nr >= 0 && mask < p2; mask <<= 1)
        idx[n++] = rd_index(nr ^ mask, rem);
    return n;
}

/* O(P) time, and kept: our node's ranks and the ranks of our few leader partners. */
int rmaib_coll_nodes(rmaib_coll_t *c, const int32_t *node, int nnodes)
{
    int p = c->nranks, mynode = node[c->rank];
    int *per = calloc((size_t) nnodes, sizeof *per);
    if (!per)
        return RMAIB_ERR_NO_MEM;
    c->nnodes = nnodes;
    c->nlocal = 0;
    for (int r = 0; r < p; r++)
        c->nlocal += node[r] == mynode;
    free(c->local);
    if (!(c->local = malloc(sizeof *c->local * (size_t) c->nlocal))) {
        free(per);
        return RMAIB_ERR_NO_MEM;
    }
    c->nlocal = 0;
    for (int r = 0; r < p; r++) {
        if (node[r] == mynode) {
            if (r == c->rank)
                c->lidx = c->nlocal;
            c->local[c->nlocal++] = r;
        }
        per[node[r]]++;
    }
    c->node_uniform = 1;
    c->lmax = 0;
    for (int n = 0; n < nnodes; n++) {
        c->node_uniform &= per[n] == c->nlocal;
        c->lmax = per[n] > c->lmax ? per[n] : c->lmax;
    }
    /* Leaders: the lidx-th rank of every node, in the order those ranks come. */
    c->nleaders = 0;
    for (int pass = 0; pass < 2 && c->node_uniform; pass++) {
        for (int n = 0; n < nnodes; n++)
            per[n] = 0;
        int nl = 0;
        for (int r = 0; r < p; r++) {
            if (per[node[r]]++ != c->lidx)
                continue;
            if (pass == 0 && r == c->rank)
                c->nidx = nl;
            for (int i = 0; pass == 1 && i < c->nlpart; i++)
                if (c->lpart_idx[i] == nl)
                    c->lpart_rank[i] = r;
            nl++;
        }
        if (pass == 0) {
            c->nleaders = nl;
            c->nlpart = leader_partners(nl, c->nidx, c->lpart_idx);
        }
    }
    free(per);
    return RMAIB_OK;
}

int rmaib_coll_leader_rank(const rmaib_coll_t *c, int i)
{
    for (int k = 0; k < c->nlpart; k++)
        if (c->lpart_idx[k] == i)
            return c->lpart_rank[k];
    return -1;                  /* not a partner: the step's link fails the schedule */
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
    c->fam = FAM_LOCAL;
    for (int i = 1; i < k; i++) {
        int to = (j + i) % k, from = (j - i + k) % k;
        rmaib_coll_block(count, k, to, &sf, &sn);
        rmaib_sched_msg(c, c->local[to], v + sf * es, sn * es, c->local[from], v + f * es,
                        n * es, red);
        rmaib_sched_round(c);
    }
    /* 2: the leaders of partition j, one per node. */
    if (c->nleaders > 1 && n)
        rmaib_coll_rd_group(c, 1, c->nleaders, c->nidx, v + f * es, n * es, red);
    /* 3: partition j to every local rank, theirs from each: copies, one round. */
    c->fam = FAM_LOCAL;
    for (int i = 1; i < k; i++) {
        int to = (j + i) % k, from = (j - i + k) % k;
        rmaib_coll_block(count, k, from, &sf, &sn);
        rmaib_sched_msg(c, c->local[to], v + f * es, n * es, c->local[from], v + sf * es,
                        sn * es, NULL);
    }
    rmaib_sched_round(c);
}
