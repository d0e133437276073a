/*
 * MPIX_Get_notify_local with many reads in flight at once (over ofi it returns with
 * its read posted, the counter growing on completion), on an allocated and a
 * created window, 8 B to 3 MiB (several network pieces), from every rank:
 *  - one counter per read: as MPIX_Win_notify_waitsome hands each one over, that
 *    read's bytes are all in place (checked then, before any other wait);
 *  - one counter for all: MPIX_Win_wait_notify_value(N) and every buffer is whole;
 *  - MPI_Win_flush_local_all, and then MPI_Win_unlock_all, complete reads still in
 *    flight: the counter is whole right after either, with no wait.
 */
#include "notify_windows.h"

enum { NREADS = 24 };

static size_t rsize(int k)
{
    static const size_t sz[] = { 8, 64, 1000, 4096, 65536 + 8, 300000, 3u << 20 };
    return sz[k % (int) (sizeof sz / sizeof sz[0])];
}

static size_t roff(int k, size_t wsize)
{
    return ((size_t) k * 7919u) % (wsize - rsize(k) + 1);
}

static int check(const unsigned char *dst, int t, size_t off, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (dst[i] != bpat(t, 0, (long) (off + i)))
            return 0;
    return 1;
}

static void post_all(MPI_Win win, unsigned char **dst, size_t wsize, int per_read)
{
    for (int k = 0; k < NREADS; k++) {
        int t = (me + k) % np;
        memset(dst[k], SENT_BYTE, rsize(k));
        int rc = MPIX_Get_notify_local(dst[k], (int) rsize(k), MPI_BYTE, t,
                                       (MPI_Aint) roff(k, wsize), (int) rsize(k), MPI_BYTE,
                                       per_read ? k : NREADS, win);
        TAP_CHECK(rc == MPI_SUCCESS, "read %d returned %d", k, rc);
    }
}

static void check_all(unsigned char **dst, size_t wsize, const char *when)
{
    for (int k = 0; k < NREADS; k++)
        TAP_CHECK(check(dst[k], (me + k) % np, roff(k, wsize), rsize(k)),
                  "%s: read %d (%zu B) not in place", when, k, rsize(k));
}

static void run(int created)
{
    size_t wsize = 3u << 20;
    MPI_Win win;
    unsigned char *base = notify_win(created, wsize, NREADS + 1, NREADS + 1, &win), *dst[NREADS];
    for (int k = 0; k < NREADS; k++)
        dst[k] = malloc(rsize(k));
    for (size_t i = 0; i < wsize; i++)
        base[i] = bpat(me, 0, (long) i);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);

    post_all(win, dst, wsize, 1);
    for (int left = NREADS; left > 0; left--) {
        int idx = -1;
        MPI_Count v = 0;
        MPIX_Win_notify_waitsome(win, 0, NREADS, &idx);
        MPIX_Win_reset_notify_value(win, idx, &v);
        TAP_CHECK(idx >= 0 && idx < NREADS && v == 1, "waitsome gave %d, count %lld", idx,
                  (long long) v);
        if (idx >= 0 && idx < NREADS)
            TAP_CHECK(check(dst[idx], (me + idx) % np, roff(idx, wsize), rsize(idx)),
                      "read %d (%zu B): counter grew before its data", idx, rsize(idx));
    }
    tap_ok("%s: each of %d reads in flight is in place when waitsome hands it over",
           flavor_name[created], NREADS);

    MPI_Count v = -1;
    post_all(win, dst, wsize, 0);
    if (me == 0)        /* not a check: how many had completed when the calls returned */
        printf("# %s: %lld of %d reads complete right after posting\n", flavor_name[created],
               (long long) counter(win, NREADS), NREADS);
    MPIX_Win_wait_notify_value(win, NREADS, NREADS, &v);
    TAP_CHECK(v == NREADS, "one counter for %d reads reached %lld", NREADS, (long long) v);
    check_all(dst, wsize, "wait_notify_value");
    MPIX_Win_reset_notify_value(win, NREADS, &v);
    tap_ok("%s: %d reads on one counter add up, every byte in place", flavor_name[created],
           NREADS);

    post_all(win, dst, wsize, 0);
    MPI_Win_flush_local_all(win);
    TAP_CHECK(counter(win, NREADS) == NREADS, "after flush_local_all the counter is %lld",
              (long long) counter(win, NREADS));
    check_all(dst, wsize, "flush_local_all");
    MPIX_Win_reset_notify_value(win, NREADS, &v);
    post_all(win, dst, wsize, 0);
    MPI_Win_unlock_all(win);
    TAP_CHECK(counter(win, NREADS) == NREADS, "after unlock_all the counter is %lld",
              (long long) counter(win, NREADS));
    check_all(dst, wsize, "unlock_all");
    tap_ok("%s: flush_local_all and unlock_all complete the reads in flight",
           flavor_name[created]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NREADS; k++)
        free(dst[k]);
    notify_win_free(created, base, &win);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    run(0);
    run(1);
    return tap_done();
}
