/*
 * The memory a communicator's collective state keeps (issue "Scale", item 5): at
 * most 1 MiB at any P, sized by the partners the algorithms talk to, not by P.
 *
 * 1. On every prefix communicator of 2, 4, ... ranks (and the world), after each
 *    collective has run (small and large, so every algorithm the sizes choose
 *    built its schedule), the bytes the core counts from its own allocations
 *    (rmaib_coll_footprint: window, control block, state, peer entries) are at
 *    most 1 MiB, equal what the planner says creation allocates for that group,
 *    and the channels are the group's (every peer up to RMAIB_COLL_DENSE ranks,
 *    else node-local ranks + 3 ceil(log2 P) + ceil(log2 leaders) + 2).  Results
 *    are checked element by element, and the doubles' bits equal rank 0's.
 * 2. The planner, for P = 2 .. 2^20 and 10^6 on nodes of 1, 8 and 64 ranks: at
 *    most 1 MiB, and what is not the window grows only with the channels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "coll_check.h"
#include "binding/mpi/coll.h"

#define MIB (1024 * 1024)
/* Bytes a channel may cost beyond its slots: its signal line, three counters,
 * and one peer entry (rmaib_peer_ent_t stays below 256 bytes). */
#define PER_CHANNEL 384
/* Bytes beyond the channels: the control block's fixed part, the queue, the
 * steps, the struct. */
#define FIXED (160 * 1024 + RMAIB_COLL_SCRATCH_KEEP)

static int clog2(long p)
{
    int l = 0;
    while ((1L << l) < p)
        l++;
    return l;
}

/* Sum and gather on comm, every element checked; the doubles' bytes equal rank 0's. */
static void run_calls(MPI_Comm comm, int p, int me, size_t n)
{
    double *d = malloc(n * sizeof *d), *dr = malloc(n * sizeof *dr), *d0 = malloc(n * sizeof *d0);
    int *g = malloc((size_t) p * n * sizeof *g), *a = malloc((size_t) p * n * sizeof *a);
    int *ar = malloc((size_t) p * n * sizeof *ar);
    for (size_t i = 0; i < n; i++)
        d[i] = 1.0 / (double) (me + 3) + 1e-9 * (double) i;     /* rounding differs by order */
    MPI_Allreduce(d, dr, (int) n, MPI_DOUBLE, MPI_SUM, comm);
    memcpy(d0, dr, n * sizeof *d0);
    PMPI_Bcast(d0, (int) (n * sizeof *d0), MPI_BYTE, 0, comm);  /* the host's, not ours */
    TAP_CHECK(memcmp(d0, dr, n * sizeof *d0) == 0, "p=%d n=%zu: allreduce bits differ from rank 0",
              p, n);
    double ref = 0;
    for (int r = 0; r < p; r++)
        ref += 1.0 / (double) (r + 3);
    TAP_CHECK(fabs(dr[0] - ref) < 1e-12, "p=%d n=%zu: allreduce %.17g, not %.17g", p, n, dr[0],
              ref);
    int *s = malloc(n * sizeof *s);
    for (size_t i = 0; i < n; i++)
        s[i] = me * 1000003 + (int) i;
    MPI_Allgather(s, (int) n, MPI_INT, g, (int) n, MPI_INT, comm);
    for (int r = 0; r < p; r++)
        for (size_t i = 0; i < n; i++)
            TAP_CHECK(g[(size_t) r * n + i] == r * 1000003 + (int) i,
                      "p=%d n=%zu: allgather block %d [%zu] = %d", p, n, r, i,
                      g[(size_t) r * n + i]);
    for (int r = 0; r < p; r++)
        for (size_t i = 0; i < n; i++)
            a[(size_t) r * n + i] = me * 7919 + r * 31 + (int) i;
    MPI_Alltoall(a, (int) n, MPI_INT, ar, (int) n, MPI_INT, comm);
    for (int r = 0; r < p; r++)
        for (size_t i = 0; i < n; i++)
            TAP_CHECK(ar[(size_t) r * n + i] == r * 7919 + me * 31 + (int) i,
                      "p=%d n=%zu: alltoall block %d [%zu] = %d", p, n, r, i,
                      ar[(size_t) r * n + i]);
    free(s);
    free(d);
    free(dr);
    free(d0);
    free(g);
    free(a);
    free(ar);
}

static void check_comm(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    static const size_t sizes[] = { 1, 37, 3000, 40000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        run_calls(comm, p, me, sizes[k]);
    rmaib_mpi_coll_t *st = rmaib_mpi_coll_find(comm);
    TAP_CHECK(st && st->core, "p=%d: rmaib does not serve the communicator", p);
    if (!st || !st->core)
        return;
    rmaib_coll_mem_t m, plan;
    rmaib_coll_footprint(st->core, &m);
    /* The planner from what the core learnt of the nodes. */
    rmaib_coll_plan(p, m.nnodes, m.lmax, m.nleaders, &plan);
    TAP_CHECK(m.total <= MIB, "p=%d: %zu bytes kept (window %zu, ctrl %zu, state %zu, "
              "peers %zu, scratch %zu), more than 1 MiB", p, m.total, m.window, m.ctrl, m.state,
              m.peers, m.scratch);
    TAP_CHECK(m.scratch <= RMAIB_COLL_SCRATCH_KEEP, "p=%d: %zu bytes of scratch kept", p,
              m.scratch);
    TAP_CHECK(m.nch == plan.nch && m.window == plan.window && m.ctrl == plan.ctrl
              && m.state == plan.state && m.peers <= plan.peers,
              "p=%d: kept (nch %d, window %zu, ctrl %zu, state %zu, peers %zu) is not the "
              "plan (%d, %zu, %zu, %zu, <= %zu)", p, m.nch, m.window, m.ctrl, m.state, m.peers,
              plan.nch, plan.window, plan.ctrl, plan.state, plan.peers);
    int bound = m.dense ? p : m.lmax + 3 * clog2(p) + clog2(m.nleaders) + 2;
    TAP_CHECK(m.nch <= bound, "p=%d: %d channels, more than %d", p, m.nch, bound);
    TAP_CHECK(m.window == 2 * m.slot * (size_t) m.nch && m.slot >= 1024,
              "p=%d: window %zu is not 2 slots of %zu a channel", p, m.window, m.slot);
    TAP_CHECK(m.total - m.window <= FIXED + (size_t) PER_CHANNEL * (size_t) (m.nch + m.nlocal),
              "p=%d: %zu bytes beside the window for %d channels", p, m.total - m.window, m.nch);
    if (me == 0)
        printf("# p=%d %s: %d channels of %zu-byte slots; window %zu + ctrl %zu + state %zu + "
               "peers %zu + scratch %zu = %zu bytes\n", p, m.dense ? "dense" : "sparse", m.nch,
               m.slot, m.window, m.ctrl, m.state, m.peers, m.scratch, m.total);
}

static void check_plan(void)
{
    static const int per_node[] = { 1, 8, 64 };
    long ps[22];
    int np = 0;
    for (long p = 2; p <= (1L << 20); p *= 2)
        ps[np++] = p;
    ps[np++] = 1000000;
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < np; i++) {
            long p = ps[i];
            int lm = per_node[k] < p ? per_node[k] : (int) p, nn = (int) ((p + lm - 1) / lm);
            rmaib_coll_mem_t m;
            rmaib_coll_plan((int) p, nn, lm, nn, &m);
            size_t beside = m.total - m.window;
            int bound = m.dense ? (int) p : lm + 3 * clog2(p) + clog2(nn) + 2;
            TAP_CHECK(m.dense == (p <= 64 || nn == 1) || getenv("RMAIB_COLL_DENSE"),
                      "plan p=%ld, %d a node: dense %d", p, lm, m.dense);
            TAP_CHECK(m.total <= MIB && m.nch <= bound
                      && beside <= FIXED + (size_t) PER_CHANNEL * (size_t) (m.nch + lm),
                      "plan p=%ld, %d a node: %d channels (bound %d), %zu bytes (%zu beside "
                      "the window)", p, lm, m.nch, bound, m.total, beside);
            if (p == 2 || p == 8 || p == 64 || p == 1024 || p == 1000000)
                TAP_DIAG("plan p=%ld, %d a node: %d channels of %zu; %zu bytes", p, lm,
                         m.nch, m.slot, m.total);
        }
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    check_plan();
    tap_ok("planner: at most 1 MiB a communicator, P = 2 .. 10^6, nodes of 1, 8, 64");
    for (int k = 2; k < tap_size; k *= 2) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, tap_rank < k ? 0 : MPI_UNDEFINED, tap_rank, &sub);
        if (sub != MPI_COMM_NULL) {
            check_comm(sub);
            MPI_Comm_free(&sub);
        }
        tap_ok("%d ranks: state within 1 MiB and its plan, results identical", k);
    }
    if (tap_size > 1)
        check_comm(MPI_COMM_WORLD);
    tap_ok("%d ranks (world): state within 1 MiB and its plan, results identical", tap_size);
    return tap_done();
}
