/*
 * MPIX_Win_notify_waitsome (and MPIX_Win_wait_notify_value) as consumers use them:
 *  - every rank notifies every other rank T times on counter idx = origin of 64,
 *    and meanwhile consumes its own: waitsome over all 64 returns an index whose
 *    counter is not zero, the reset takes it, and in the end each origin's counter
 *    gave exactly T and the unused ones nothing;
 *  - waitsome over a sub-range returns only an index inside it, even with counters
 *    outside it set, and blocks until a notification arrives inside it;
 *  - wait_notify_value returns at its threshold, not before.
 */
#include "notify_windows.h"

enum { NCOUNT = 64, T = 200 };

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    MPI_Win win;
    unsigned char *base = notify_win(0, 8, NCOUNT, NCOUNT, &win);
    int64_t v = 1;
    MPI_Count taken[NCOUNT] = { 0 }, total = 0, want_total = (MPI_Count) T * (np - 1);
    int outside = 0;

    MPI_Win_lock_all(0, win);
    for (int j = 0; j < T || total < want_total; j++) {
        for (int k = 1; j < T && k < np; k++) {
            int rc = MPIX_Put_notify(&v, 1, MPI_INT64_T, (me + k) % np, 0, 1, MPI_INT64_T, me,
                                     win);
            TAP_CHECK(rc == MPI_SUCCESS, "put %d returned %d", j, rc);
        }
        if (j % 4 && j < T)
            continue;       /* let some pile up */
        int idx = -1;
        MPI_Count c = 0;
        if (total == want_total)
            continue;
        int rc = MPIX_Win_notify_waitsome(win, 0, NCOUNT, &idx);
        TAP_CHECK(rc == MPI_SUCCESS && idx >= 0 && idx < NCOUNT, "waitsome: rc %d, idx %d", rc, idx);
        if (rc != MPI_SUCCESS || idx < 0 || idx >= NCOUNT)
            break;
        MPIX_Win_reset_notify_value(win, idx, &c);
        TAP_CHECK(c > 0, "waitsome returned %d, whose counter was %lld", idx, (long long) c);
        outside += idx >= np || idx == me;
        taken[idx] += c;
        total += c;
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < NCOUNT; i++)
        TAP_CHECK(taken[i] + counter(win, i) == (i < np && i != me ? T : 0),
                  "counter %d gave %lld (+%lld left)", i, (long long) taken[i],
                  (long long) counter(win, i));
    TAP_CHECK(outside == 0, "waitsome returned %d unused counters", outside);
    tap_ok("waitsome over %d counters takes each origin's %d notifications", NCOUNT, T);

    /* A sub-range: [32, 48) while counter 3 is set.  Rank 1 notifies rank 0's
     * counter 3, then (after a barrier) counter 40, which rank 0 may already be
     * waiting for. */
    MPIX_Win_set_num_notify(win, MPI_INFO_NULL, NCOUNT);
    MPI_Win_lock_all(0, win);
    if (me == 1)
        MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 3, win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1)
        MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 40, win);
    if (me == 0) {
        int idx = -1;
        int rc = MPIX_Win_notify_waitsome(win, 32, 16, &idx);
        TAP_CHECK(rc == MPI_SUCCESS && idx == 40, "waitsome(32, 16): rc %d, idx %d", rc, idx);
        TAP_CHECK(counter(win, 3) == 1, "counter 3 is %lld", (long long) counter(win, 3));
        rc = MPIX_Win_notify_waitsome(win, 0, 8, &idx);
        TAP_CHECK(rc == MPI_SUCCESS && idx == 3, "waitsome(0, 8): rc %d, idx %d", rc, idx);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    tap_ok("waitsome over a sub-range answers only inside it");

    /* Threshold: rank 1 sends one notification to rank 0's counter 7 in each of
     * three rounds; rank 0 sees 1, then 2, and waiting for 3 returns with 3. */
    MPIX_Win_set_num_notify(win, MPI_INFO_NULL, NCOUNT);
    MPI_Win_lock_all(0, win);
    for (int round = 0; round < 3; round++) {
        if (me == 1)
            MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, 7, win);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0 && round < 2) {
            MPI_Count c = counter(win, 7);
            TAP_CHECK(c == round + 1, "round %d: counter 7 is %lld", round, (long long) c);
        }
        MPI_Barrier(MPI_COMM_WORLD);    /* read before rank 1 sends again */
    }
    if (me == 0) {
        MPI_Count c = -1;
        int rc = MPIX_Win_wait_notify_value(win, 7, 3, &c);
        TAP_CHECK(rc == MPI_SUCCESS && c == 3, "wait for 3: rc %d, value %lld", rc, (long long) c);
    }
    MPI_Win_unlock_all(win);
    tap_ok("wait_notify_value returns at its threshold");
    notify_win_free(0, base, &win);
    return tap_done();
}
