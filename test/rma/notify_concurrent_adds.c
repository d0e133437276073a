/*
 * Counters under contention (8 ranks on 2 cores in the suite):
 *  - every rank sends M notified accumulates (MPI_SUM of 1 into one word) and M
 *    notified puts to rank 0, all on counter 0: no update is lost, the counter
 *    ends at 2 * M * np and the word at M * np, which it already holds when rank 0
 *    sees the counter get there;
 *  - every rank notifies every other rank M times, on a few counters, while each
 *    rank keeps taking its counters with MPIX_Win_reset_notify_value as they grow:
 *    what the resets took, plus what is left at the end, is exactly what was sent
 *    to that rank and counter (each notification taken once, none lost, none twice),
 *    with all np ranks consuming at once.
 * On an allocated window (accumulates by CPU atomics on shm) and a created one (the
 * accumulate lock).
 */
#include "notify_windows.h"

enum { M = 300, NC = 4 };

static void one_index(int created)
{
    MPI_Win win;
    unsigned char *base = notify_win(created, 8 * (size_t) np + 8, 1, 1, &win);
    int64_t one = 1, *word = (int64_t *) base;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    memset(base, 0, 8 * (size_t) np + 8);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int j = 0; j < M; j++) {
        int64_t v = j;
        int rc = MPIX_Accumulate_notify(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM, 0,
                                        win);
        TAP_CHECK(rc == MPI_SUCCESS, "accumulate %d returned %d", j, rc);
        rc = MPIX_Put_notify(&v, 1, MPI_INT64_T, 0, (MPI_Aint) (8 + 8 * me), 1, MPI_INT64_T, 0,
                             win);
        TAP_CHECK(rc == MPI_SUCCESS, "put %d returned %d", j, rc);
    }
    if (me == 0) {      /* the last notification seen: every update is in place */
        MPI_Count c = -1;
        int rc = MPIX_Win_wait_notify_value(win, 0, 2 * M * np, &c);
        TAP_CHECK(rc == MPI_SUCCESS && c == 2 * M * np, "wait: rc %d, counter %lld", rc,
                  (long long) c);
        TAP_CHECK(*word == (int64_t) M * np, "counter at %lld, sum word only %lld", (long long) c,
                  (long long) *word);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        TAP_CHECK(counter(win, 0) == 2 * M * np, "counter 0 is %lld, want %d",
                  (long long) counter(win, 0), 2 * M * np);
        TAP_CHECK(*word == (int64_t) M * np, "sum word is %lld, want %d", (long long) *word, M * np);
        for (int o = 0; o < np; o++)
            TAP_CHECK(word[1 + o] == M - 1, "last put of %d holds %lld", o, (long long) word[1 + o]);
        MPI_Win_unlock(0, win);
    }
    tap_ok("%s: %d ranks x %d notified accumulates and puts on one counter lose nothing",
           flavor_name[created], np, M);
    notify_win_free(created, base, &win);
}

/* Take whatever counter c holds now. */
static MPI_Count take(MPI_Win win, int c)
{
    MPI_Count v = -1;
    int rc = MPIX_Win_reset_notify_value(win, c, &v);
    TAP_CHECK(rc == MPI_SUCCESS && v >= 0, "reset of %d returned %d, value %lld", c, rc,
              (long long) v);
    return v < 0 ? 0 : v;
}

static void reset_races(int created)
{
    MPI_Win win;
    unsigned char *base = notify_win(created, 8, NC, NC, &win);
    MPI_Count taken[NC] = { 0 }, want[NC] = { 0 };
    int64_t v = 0;
    MPI_Win_lock_all(0, win);
    for (int j = 0; j < M; j++) {
        for (int k = 1; k < np; k++) {
            int t = (me + k) % np;
            int rc = MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, (j + k) % NC, win);
            TAP_CHECK(rc == MPI_SUCCESS, "put %d to %d returned %d", j, t, rc);
        }
        if (j % 3 == 0)
            for (int c = 0; c < NC; c++)
                taken[c] += take(win, c);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int c = 0; c < NC; c++)
        taken[c] += take(win, c);
    for (int j = 0; j < M; j++)
        for (int k = 1; k < np; k++)
            want[(j + k) % NC]++;       /* origin me - k sent this to us with (j + k) */
    for (int c = 0; c < NC; c++) {
        TAP_CHECK(taken[c] == want[c], "counter %d: took %lld in all, %lld were sent", c,
                  (long long) taken[c], (long long) want[c]);
        TAP_CHECK(counter(win, c) == 0, "counter %d not zero after the last reset", c);
    }
    tap_ok("%s: resets racing %d senders take each notification exactly once",
           flavor_name[created], np - 1);

    notify_win_free(created, base, &win);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    for (int created = 0; created < 2; created++) {
        one_index(created);
        reset_races(created);
    }
    return tap_done();
}
