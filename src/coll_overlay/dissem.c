/*
 * The n-way dissemination allreduce (seed 003 §4, research/collectives.md) for
 * small vectors, in a form that gives every rank the same bits: ceil(log_m p)
 * rounds for radix m = n + 1 (RMAIB_COLL_DISSEM_RADIX), in each of which a rank
 * sends its partial result to n peers at distances j m^r and folds in n others.
 *
 * The paper's cyclic version leaves rank q with the boxes [q - m^r + 1, q] (mod
 * p), so each rank brackets the p vectors differently (and, when p is not a power
 * of m, counts some twice, which its last-round adaptation takes out again): right
 * for integers, not bitwise equal for floats.  Here a partial result is tagged by
 * the aligned rank range it covers: after round r, rank q holds V(r, b), the
 * reduction of ranks [b m^r, (b + 1) m^r) clipped to p, b = q / m^r, defined as
 * the left fold in rank order of the m ranges of round r - 1 it is made of.  In
 * round r a rank receives its m - 1 sibling ranges, one from a holder of each,
 * and folds all m in rank order, so the whole bracketing is fixed by p and m: the
 * same bits everywhere, no range twice, any p, no fold-in step.
 *
 * Only the group's last range may be short (s < m^r ranks): a receiver at offset
 * t takes it from its rank t mod s, so those ranks send to more than n peers.
 * m = 2 is recursive doubling's bracketing; m >= p is the flat algorithm.
 */
#include "coll_impl.h"

/* Ranks in range b of width u, clipped to p (0: none). */
static int width(int p, int b, int u)
{
    long lo = (long) b * u, hi = lo + u;
    return lo >= p ? 0 : (int) ((hi < p ? hi : p) - lo);
}

/* Whether rank q's range is alone in its group in the round of width u (the
 * last ranks' may be for a while): then that round has nothing to do. */
static int alone(int p, int m, int q, int u)
{
    int b = q / u;
    return b % m == 0 && width(p, b + 1, u) == 0;
}

int rmaib_coll_dissem(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                      coll_red_t *red)
{
    int p = c->nranks, me = c->rank, m = c->cfg->dissem_radix;
    if (m > p)
        m = p;
    char *tmp = rmaib_coll_scratch(c, 2 * bytes);
    if (!tmp)
        return RMAIB_ERR_NO_MEM;
    const char *cur = sbuf;
    if (!cur) {                 /* in place: rbuf is written before round 0 has sent */
        cur = tmp + bytes;
        rmaib_sched_pre(c, tmp + bytes, rbuf, bytes);
    }
    /* Rounds write rbuf and tmp by turns, the last one rbuf. */
    int left = 0;
    for (long u = 1; u < p; u *= m)
        left += !alone(p, m, me, (int) u);
    red->mine_first = 1;
    c->fam = FAM_LOCAL;         /* any pair: only where every pair has a channel */
    for (long lu = 1; lu < p; lu *= m) {
        int u = (int) lu, b = me / u, g = b / m * m, d = b - g, off = me % u;
        int sd = width(p, b, u);
        if (alone(p, m, me, u))
            continue;
        char *nxt = left-- % 2 ? rbuf : tmp;
        /* Ours to every rank of a sibling range that takes it from us. */
        for (int j = 0; j < m; j++) {
            int sj = width(p, g + j, u);
            for (int t = off; j != d && t < sj; t += sd)
                rmaib_sched_msg(c, (g + j) * u + t, cur, bytes, 0, NULL, 0, NULL);
        }
        /* The fold, in rank order of the ranges, chained. */
        for (int j = 0, first = 1; j < m; j++) {
            int sj = width(p, g + j, u);
            coll_step_t *s;
            if (sj == 0)
                break;
            if (j == d)
                s = first ? rmaib_sched_copy(c, nxt, cur, bytes)
                    : rmaib_sched_reduce(c, red, nxt, cur, bytes);
            else
                s = rmaib_sched_msg(c, 0, NULL, 0, (g + j) * u + off % sj, nxt, bytes,
                                    first ? NULL : red);
            if (!first && s->chain != 2)
                s->chain = 1;
            first = 0;
        }
        rmaib_sched_round(c);
        cur = nxt;
    }
    return RMAIB_OK;
}
