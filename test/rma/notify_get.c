/*
 * MPIX_Get_notify and MPIX_Get_notify_local, 8 bytes to 1 MiB, from every rank to
 * every rank (itself included), on an allocated and on a created window:
 *  - a get grows the TARGET's counter idx = origin by one: the target waits for the
 *    count of gets aimed at it, and after a barrier the counter is exactly that;
 *  - a local get grows the CALLER's counter idx = np + target by one, possibly after
 *    it returned (over ofi on completion), and when it has grown the data is in the
 *    caller's buffer (the reader waits for the count, then checks every byte);
 *  - the two kinds never touch each other's counters.
 */
#include "notify_windows.h"

static void run(int created)
{
    static const size_t sz[] = { 8, 100, 4096, 65536 + 5, 1 << 20 };
    enum { NSZ = sizeof sz / sizeof sz[0], REPS = 3 };
    size_t wsize = sz[NSZ - 1];
    MPI_Win win;
    unsigned char *base = notify_win(created, wsize, 2 * np, 2 * np, &win);
    unsigned char *dst = malloc(wsize);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    for (size_t i = 0; i < wsize; i++)
        base[i] = bpat(me, 0, (long) i);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int rep = 0; rep < REPS; rep++)
        for (int s = 0; s < NSZ; s++)
            for (int k = 0; k < np; k++) {
                int t = (me + k) % np, local = (rep + s + k) % 2;
                size_t off = (size_t) (t * 977 + s * 31) % (wsize - sz[s] + 1);
                MPI_Count before = counter(win, np + t);
                memset(dst, SENT_BYTE, sz[s]);
                int rc = local
                    ? MPIX_Get_notify_local(dst, (int) sz[s], MPI_BYTE, t, (MPI_Aint) off,
                                            (int) sz[s], MPI_BYTE, np + t, win)
                    : MPIX_Get_notify(dst, (int) sz[s], MPI_BYTE, t, (MPI_Aint) off, (int) sz[s],
                                      MPI_BYTE, me, win);
                TAP_CHECK(rc == MPI_SUCCESS, "%zu B %s get from %d returned %d", sz[s],
                          local ? "local-notified" : "notified", t, rc);
                MPI_Count after = counter(win, np + t);
                if (local && after == before)
                    MPIX_Win_wait_notify_value(win, np + t, before + 1, &after);
                TAP_CHECK(after == before + local, "%zu B get from %d: own counter %d went "
                          "%lld -> %lld", sz[s], t, np + t, (long long) before, (long long) after);
                if (!local)     /* our own counters are the target's business only */
                    continue;
                for (size_t i = 0; i < sz[s]; i++)
                    if (dst[i] != bpat(t, 0, (long) (off + i))) {
                        TAP_CHECK(0, "%zu B local get from %d: counter grew, byte %zu is %#x",
                                  sz[s], t, i, dst[i]);
                        break;
                    }
            }
    /* The gets aimed at us that notify us: origin o chose them by (rep + s + k) even,
     * its k being our distance from it. */
    for (int o = 0; o < np; o++) {
        int k = (me - o + np) % np;
        MPI_Count want = 0;
        for (int rep = 0; rep < REPS; rep++)
            for (int s = 0; s < NSZ; s++)
                want += (rep + s + k) % 2 == 0;
        MPI_Count v = -1;
        int rc = MPIX_Win_wait_notify_value(win, o, want, &v);
        TAP_CHECK(rc == MPI_SUCCESS && v >= want, "wait for %lld gets by %d: rc %d, counter %lld",
                  (long long) want, o, rc, (long long) v);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < np; o++) {
        int k = (me - o + np) % np;
        MPI_Count want = 0, want_local = 0;
        for (int rep = 0; rep < REPS; rep++)
            for (int s = 0; s < NSZ; s++) {
                want += (rep + s + k) % 2 == 0;
                want_local += (rep + s + (o - me + np) % np) % 2 == 1;
            }
        TAP_CHECK(counter(win, o) == want, "target counter of origin %d is %lld, want %lld", o,
                  (long long) counter(win, o), (long long) want);
        TAP_CHECK(counter(win, np + o) == want_local, "local counter of target %d is %lld, "
                  "want %lld", o, (long long) counter(win, np + o), (long long) want_local);
    }
    tap_ok("%s: notified gets count at the target, local ones at the reader with the data "
           "in place", flavor_name[created]);
    free(dst);
    notify_win_free(created, base, &win);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    run(0);
    run(1);
    return tap_done();
}
