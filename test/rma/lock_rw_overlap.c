/*
 * lock_rw_overlap: shared locks admit many readers at once, an exclusive lock admits
 * one writer and nobody else.
 *
 * At target T the window holds three words: INSIDE (the rank+1 of a writer inside
 * its critical section, else 0), READERS (readers inside, kept with MPI_Fetch_and_op
 * because concurrent readers cannot update a word with put) and MAXR (the most
 * readers any reader saw at once, an MPI_MAX accumulate).
 *
 *  - a writer (exclusive lock) checks READERS == 0 and INSIDE == 0 on entry, sets
 *    INSIDE with put+flush, holds a moment, checks again, clears INSIDE and leaves;
 *  - a reader (shared lock) adds itself to READERS and must never see INSIDE set.
 *
 * Readers overlapping is checked when there are at least two readers (>= 3 ranks):
 * in a first phase without writers each reader holds its shared lock until it sees a
 * second reader inside or 20 ms pass, until one of them has seen two; a lock that
 * serialised shared holders would never let that happen.  The mixed phase then runs
 * a few hundred critical sections (time-bounded) with writers 1 and 4.
 * Both lock algorithms, T = rank 0 and T = last rank.
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { INSIDE = 0, READERS = 1, MAXR = 2 };

static const int64_t one = 1, minus_one = -1;

static int is_writer(int r)
{
    return r == 1 || (r == 4 && tap_size >= 6);
}

static int64_t fetch(MPI_Win win, int t, int disp)
{
    int64_t v = -1, dummy = 0;
    MPI_Fetch_and_op(&dummy, &v, MPI_INT64_T, t, disp, MPI_NO_OP, win);
    MPI_Win_flush(t, win);
    return v;
}

static int64_t get_inside(MPI_Win win, int t)
{
    int64_t v = -1;
    MPI_Get(&v, 1, MPI_INT64_T, t, INSIDE, 1, MPI_INT64_T, win);
    MPI_Win_flush(t, win);
    return v;
}

/* One reader critical section; hold_for_peer: stay until a second reader is seen
 * (or 20 ms pass).  Returns the most readers seen inside. */
static int64_t reader(MPI_Win win, int t, int hold_for_peer)
{
    int64_t old = -1, w, c, most;
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock(SHARED)");
    MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, READERS, MPI_SUM, win);
    MPI_Win_flush(t, win);
    most = c = old + 1;
    w = get_inside(win, t);
    TAP_CHECK(w == 0, "reader saw writer %lld inside under its shared lock", (long long) w - 1);
    TAP_CHECK(old >= 0, "reader count was %lld on entry", (long long) old);
    double t0 = now_s();
    do {
        poll_pause();
        c = fetch(win, t, READERS);
        if (c > most)
            most = c;
        w = get_inside(win, t);
        TAP_CHECK(w == 0, "reader saw writer %lld inside under its shared lock",
                  (long long) w - 1);
    } while (hold_for_peer && c < 2 && now_s() - t0 < 0.020);
    MPI_Accumulate(&most, 1, MPI_INT64_T, t, MAXR, 1, MPI_INT64_T, MPI_MAX, win);
    MPI_Accumulate(&minus_one, 1, MPI_INT64_T, t, READERS, 1, MPI_INT64_T, MPI_SUM, win);
    EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock(SHARED)");
    return most;
}

static void writer(MPI_Win win, int t)
{
    int64_t me = tap_rank + 1, zero = 0, r, w;
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), "MPI_Win_lock(EXCLUSIVE)");
    r = fetch(win, t, READERS);
    w = get_inside(win, t);
    TAP_CHECK(r == 0, "writer entered with %lld readers inside", (long long) r);
    TAP_CHECK(w == 0, "writer entered with writer %lld inside", (long long) w - 1);
    MPI_Put(&me, 1, MPI_INT64_T, t, INSIDE, 1, MPI_INT64_T, win);
    MPI_Win_flush(t, win);
    for (int i = 0; i < 3; i++) {
        poll_pause();
        r = fetch(win, t, READERS);
        w = get_inside(win, t);
        TAP_CHECK(r == 0, "%lld readers got in while a writer held the lock", (long long) r);
        TAP_CHECK(w == me, "INSIDE changed to %lld while writer %d held the lock",
                  (long long) w, tap_rank);
    }
    MPI_Put(&zero, 1, MPI_INT64_T, t, INSIDE, 1, MPI_INT64_T, win);
    EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock(EXCLUSIVE)");
}

static void run(const char *alg, int t)
{
    int64_t *base;
    MPI_Win win = win_allocate_zeroed(3 * sizeof(int64_t), sizeof(int64_t), alg, &base);
    int nreaders = 0;
    for (int r = 0; r < tap_size; r++)
        nreaders += !is_writer(r);

    /* Phase 1: readers only, until one of them has seen two readers inside. */
    int64_t most = 0, gmost = 0;
    if (nreaders >= 2) {
        if (!is_writer(tap_rank)) {
            for (int i = 0; i < 30; i++) {
                int64_t m = reader(win, t, 1);
                if (m > most)
                    most = m;
                MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
                int64_t g = fetch(win, t, MAXR);
                MPI_Win_unlock(t, win);
                if (g >= 2)
                    break;
            }
        }
        MPI_Allreduce(&most, &gmost, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        TAP_CHECK(gmost >= 2, "shared locks never overlapped: at most %lld reader inside",
                  (long long) gmost);
        tap_ok("%s lock, target %d: readers hold the shared lock together (max %lld of %d)",
               alg, t, (long long) gmost, nreaders);
    } else {
        tap_skip("readers hold the shared lock together", "needs at least 3 ranks");
    }

    /* Phase 2: readers and writers mixed, time-bounded. */
    MPI_Barrier(MPI_COMM_WORLD);
    int iters = is_writer(tap_rank) ? 40 : 80, done = 0;
    double end = now_s() + 1.0;
    int64_t most2 = 0;
    for (; done < iters && now_s() < end; done++) {
        if (is_writer(tap_rank)) {
            writer(win, t);
        } else {
            int64_t m = reader(win, t, 0);
            if (m > most2)
                most2 = m;
        }
        sched_yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == t) {
        TAP_CHECK(load64(base + INSIDE) == 0, "INSIDE is %lld at the end",
                  (long long) load64(base + INSIDE));
        TAP_CHECK(load64(base + READERS) == 0, "READERS is %lld at the end",
                  (long long) load64(base + READERS));
    }
    int total = 0, gm2 = 0, m2 = (int) most2;
    MPI_Allreduce(&done, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&m2, &gm2, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TAP_DIAG("%s, target %d: %d critical sections in the mixed phase, most readers seen "
           "together %d", alg, t, total, gm2);
    tap_ok("%s lock, target %d: no writer overlaps a reader or another writer", alg, t);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int a = 0; a < NLOCK_ALGS; a++) {
        run(lock_algs[a], 0);
        run(lock_algs[a], tap_size - 1);
    }
    return tap_done();
}
