/*
 * lock_mcs_handover: the MCS queue lock (info rmaib_lock=mcs) hands an exclusive lock
 * from holder to successor without losing or duplicating anyone.
 *
 * Handover: rank 0 takes the exclusive lock on target T and proves it holds it (a
 * put + flush of HOLDER); then every other rank asks for the lock (staggered 5 ms
 * apart, so they queue in rank order) while rank 0 keeps it for a while and checks
 * that nobody got in.  Rank 0 releases; each queued rank must get the lock in turn:
 * it finds HOLDER clear, sets it, increments COUNTER, clears HOLDER and leaves.  The
 * COUNTER values read must be 1 .. nprocs-1, each once.  The order is printed as a
 * diagnostic (FIFO is what MCS gives, but the moment a rank joins the queue inside
 * MPI_Win_lock cannot be observed from outside, so it is not asserted).
 * T = last rank, then T = rank 0 (rank 0 locking itself; rank 0 is the holder whose
 * id must not read as "no successor").
 *
 * Race: all ranks, rank 0 included, run many short critical sections back to back,
 * so releases meet enqueues, with an empty lock/unlock epoch every third time; then
 * the same holding exclusive locks on two targets at once (rank 0, then the last
 * rank: a queue node from the pool for each).  Values read must be a permutation.
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { COUNTER = 0, HOLDER = 1 };

static MPI_Win win;
static int64_t *base;

/* Read one word at t and complete the read. */
static int64_t get1(int t, int disp)
{
    int64_t v = -1;
    MPI_Get(&v, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T, win);
    MPI_Win_flush(t, win);
    return v;
}

static void put1(int t, int disp, int64_t v)
{
    MPI_Put(&v, 1, MPI_INT64_T, t, disp, 1, MPI_INT64_T, win);
}

/* Read COUNTER and HOLDER at t, complete the reads. */
static void read_both(int t, int64_t *counter, int64_t *holder)
{
    MPI_Get(counter, 1, MPI_INT64_T, t, COUNTER, 1, MPI_INT64_T, win);
    MPI_Get(holder, 1, MPI_INT64_T, t, HOLDER, 1, MPI_INT64_T, win);
    MPI_Win_flush(t, win);
}

static void handover(int t)
{
    int64_t c = -1, h = -1;
    double called = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock");
        put1(t, HOLDER, 1);
        MPI_Win_flush(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);        /* rank 0 holds the lock from here on */
    if (tap_rank == 0) {
        usleep((useconds_t) (5000 * tap_size + 50000));
        read_both(t, &c, &h);
        TAP_CHECK(c == 0 && h == 1, "while rank 0 held the lock COUNTER became %lld and "
                  "HOLDER %lld", (long long) c, (long long) h - 1);
        put1(t, HOLDER, 0);
        put1(t, COUNTER, 1);
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
        c = 0;
    } else {
        usleep((useconds_t) (5000 * (tap_rank - 1)));
        called = now_s();
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock");
        read_both(t, &c, &h);
        TAP_CHECK(h == 0, "got the lock while rank %lld held it", (long long) h - 1);
        put1(t, HOLDER, tap_rank + 1);
        put1(t, COUNTER, c + 1);
        MPI_Win_flush(t, win);
        poll_pause();
        int64_t h2 = get1(t, HOLDER);
        TAP_CHECK(h2 == tap_rank + 1, "HOLDER changed to %lld inside the critical section",
                  (long long) h2 - 1);
        put1(t, HOLDER, 0);
        EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == t)
        TAP_CHECK(load64(base + COUNTER) == tap_size, "COUNTER is %lld, expected %d",
                  (long long) load64(base + COUNTER), tap_size);

    /* Positions: rank r got the lock as number c (rank 0 as number 0). */
    int64_t *pos = malloc(sizeof(int64_t) * (size_t) tap_size);
    double *calls = malloc(sizeof(double) * (size_t) tap_size);
    MPI_Gather(&c, 1, MPI_INT64_T, pos, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(&called, 1, MPI_DOUBLE, calls, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char *hit = calloc((size_t) tap_size, 1), order[512] = "";
        int *by_pos = malloc(sizeof(int) * (size_t) tap_size), fifo = 1;
        for (int r = 0; r < tap_size; r++) {
            if (pos[r] < 0 || pos[r] >= tap_size || hit[pos[r]]++) {
                tap_fail("rank %d got the lock as number %lld: duplicate or out of range",
                         r, (long long) pos[r]);
                continue;
            }
            by_pos[pos[r]] = r;
        }
        if (!tap_local_fail) {
            for (int p = 0; p < tap_size; p++) {
                size_t l = strlen(order);
                snprintf(order + l, sizeof order - l, "%s%d", p ? " " : "", by_pos[p]);
                if (p >= 2 && calls[by_pos[p]] < calls[by_pos[p - 1]])
                    fifo = 0;
            }
            printf("# target %d: lock order %s (%s the order of the MPI_Win_lock calls)\n",
                   t, order, fifo ? "follows" : "does NOT follow");
        }
        free(hit);
        free(by_pos);
    }
    free(pos);
    free(calls);
    tap_ok("mcs, target %d: rank 0 holds, %d ranks queue, each gets the lock once in turn",
           t, tap_size - 1);
}

/* Many short critical sections on the targets in `ts` (held together, in order). */
static void race(const int *ts, int nt, int iters)
{
    int64_t *seen = malloc(sizeof(int64_t) * (size_t) iters * (size_t) nt);
    int n = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < iters; i++) {
        for (int k = 0; k < nt; k++)
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, ts[k], 0, win), "MPI_Win_lock");
        if (i % 3 != 2) {
            for (int k = 0; k < nt; k++) {
                int64_t c = get1(ts[k], COUNTER);
                seen[n++] = c * nt + k;     /* value and target in one number */
                put1(ts[k], COUNTER, c + 1);
            }
        }
        for (int k = nt - 1; k >= 0; k--)
            EXPECT_OK(MPI_Win_unlock(ts[k], win), "MPI_Win_unlock");
        if (i % 8 == 7)
            sched_yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int per = n, total = 0;
    MPI_Allreduce(&per, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < nt; k++)
        if (tap_rank == ts[k])
            TAP_CHECK(load64(base + COUNTER) == total / nt, "COUNTER at %d is %lld, "
                      "expected %d", ts[k], (long long) load64(base + COUNTER), total / nt);

    int *counts = malloc(sizeof(int) * (size_t) tap_size), *displs = NULL;
    int64_t *all = NULL;
    MPI_Gather(&per, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        displs = malloc(sizeof(int) * (size_t) tap_size);
        for (int r = 0, d = 0; r < tap_size; d += counts[r++])
            displs[r] = d;
        all = malloc(sizeof(int64_t) * (size_t) total);
    }
    MPI_Gatherv(seen, per, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char *hit = calloc((size_t) total, 1);
        for (int i = 0; i < total; i++) {
            int64_t v = all[i];
            if (v < 0 || v >= total || hit[v]++)
                tap_fail("target %d: COUNTER value %lld read twice or out of range",
                         ts[v % nt], (long long) (v / nt));
        }
        free(hit);
        free(all);
        free(displs);
    }
    free(counts);
    free(seen);
    /* Reset for the next case (nobody accesses the window between the barriers). */
    if (tap_rank == ts[0] || tap_rank == ts[nt - 1])
        store64(base + COUNTER, 0);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int iters = tap_env_int("LOCK_MCS_ITERS", 150);
    win = win_allocate_zeroed(2 * sizeof(int64_t), sizeof(int64_t), "mcs", &base);

    handover(tap_size - 1);
    if (tap_rank == tap_size - 1)
        store64(base + COUNTER, 0);
    handover(0);
    if (tap_rank == 0)
        store64(base + COUNTER, 0);

    int last = tap_size - 1, zero = 0, both[2] = { 0, tap_size - 1 };
    race(&zero, 1, iters);
    tap_ok("mcs race: %d ranks x %d short critical sections on rank 0", tap_size, iters);
    race(&last, 1, iters);
    tap_ok("mcs race: %d ranks x %d short critical sections on rank %d", tap_size, iters,
           last);
    race(both, 2, iters / 2);
    tap_ok("mcs race: %d ranks x %d critical sections holding ranks 0 and %d together",
           tap_size, iters / 2, last);

    MPI_Win_free(&win);
    return tap_done();
}
