/*
 * MPIX_Put_notify: counters count exactly, and the data is there when they say so.
 *  - sizes from 1 byte to 4 MiB (1 MiB above 4 ranks): every rank puts into its slot
 *    at every other rank, notifying the target's counter idx = origin; the target
 *    waits for the counter and at once checks every byte of the slot (no flush, no
 *    barrier in between);
 *  - 200 notified puts of 8 bytes from every rank to every other: each counter ends
 *    at exactly 200, and the slot holds the last value;
 *  - one notified put per epoch around a ring, in fence, post/start/complete/wait
 *    and lock epochs (FENCE_EPOCHS, PSCW_EPOCHS, default 10,000 and 2,000): the
 *    counter ends at the number of epochs.
 * The first two on an allocated and on a created window, the epochs on an allocated one.
 */
#include "notify_windows.h"

static unsigned char round_byte(int o, int t, long i, int r)
{
    return bpat(o, t, i + (long) r * 1000003L);
}

static void sizes(int created)
{
    static const size_t sz[] = { 1, 7, 64, 4096, 65536 + 3, 1 << 20, 4 << 20 };
    int nsz = sizeof sz / sizeof sz[0] - (np > 4);
    size_t slot = sz[nsz - 1];
    MPI_Win win;
    unsigned char *base = notify_win(created, slot * (size_t) np, np, np, &win);
    unsigned char *src = malloc(slot);
    for (int r = 0; r < nsz; r++) {
        MPI_Win_lock_all(0, win);
        for (int k = 1; k < np; k++) {
            int t = (me + k) % np;
            for (size_t i = 0; i < sz[r]; i++)
                src[i] = round_byte(me, t, (long) i, r);
            int rc = MPIX_Put_notify(src, (int) sz[r], MPI_BYTE, t, (MPI_Aint) (slot * (size_t) me),
                                     (int) sz[r], MPI_BYTE, me, win);
            TAP_CHECK(rc == MPI_SUCCESS, "%zu B put to %d returned %d", sz[r], t, rc);
        }
        for (int k = 1; k < np; k++) {
            int o = (me + np - k) % np;
            MPI_Count v = -1;
            int rc = MPIX_Win_wait_notify_value(win, o, r + 1, &v);
            TAP_CHECK(rc == MPI_SUCCESS && v == r + 1, "%zu B: wait for origin %d returned %d "
                      "with counter %lld, want %d", sz[r], o, rc, (long long) v, r + 1);
            const unsigned char *p = base + slot * (size_t) o;
            for (size_t i = 0; i < sz[r]; i++)
                if (p[i] != round_byte(o, me, (long) i, r)) {
                    TAP_CHECK(0, "%zu B from %d: counter %lld seen but byte %zu is %#x, want %#x",
                              sz[r], o, (long long) v, i, p[i], round_byte(o, me, (long) i, r));
                    break;
                }
        }
        MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);    /* the next round overwrites the slots */
    }
    TAP_CHECK(counter(win, me) == 0, "own counter moved to %lld", (long long) counter(win, me));
    tap_ok("%s: data is in place when the counter says so, 1 B to %zu B",
           flavor_name[created], slot);

    enum { N = 200 };
    MPIX_Win_set_num_notify(win, MPI_INFO_NULL, np);
    MPI_Win_lock_all(0, win);
    for (int j = 0; j < N; j++)
        for (int k = 1; k < np; k++) {
            int64_t val = (int64_t) me * 1000 + j;
            int t = (me + k) % np;
            int rc = MPIX_Put_notify(&val, 8, MPI_BYTE, t, (MPI_Aint) (slot * (size_t) me), 8,
                                     MPI_BYTE, me, win);
            TAP_CHECK(rc == MPI_SUCCESS, "small put %d to %d returned %d", j, t, rc);
        }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < np; o++) {
        MPI_Count v = counter(win, o), want = o == me ? 0 : N;
        TAP_CHECK(v == want, "counter of origin %d is %lld, want %lld", o, (long long) v,
                  (long long) want);
        int64_t last;
        memcpy(&last, base + slot * (size_t) o, 8);
        TAP_CHECK(o == me || last == (int64_t) o * 1000 + N - 1, "slot of %d holds %lld", o,
                  (long long) last);
    }
    tap_ok("%s: %d notified puts from every rank count exactly %d", flavor_name[created], N, N);
    free(src);
    notify_win_free(created, base, &win);
}

enum { E_FENCE, E_PSCW, E_LOCK };
static const char *const epoch_name[] = { "fence", "post/start/complete/wait", "lock" };

static void epochs(int created, int kind, int n)
{
    MPI_Win win;
    unsigned char *base = notify_win(created, 8, 1, 1, &win);
    int right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Group world, gr, gl;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &gr);
    MPI_Group_incl(world, 1, &left, &gl);
    if (kind == E_FENCE)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (int e = 0; e < n; e++) {
        int64_t val = e;
        if (kind == E_PSCW) {
            MPI_Win_post(gl, 0, win);
            MPI_Win_start(gr, 0, win);
        } else if (kind == E_LOCK) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
        }
        int rc = MPIX_Put_notify(&val, 8, MPI_BYTE, right, 0, 8, MPI_BYTE, 0, win);
        TAP_CHECK(rc == MPI_SUCCESS, "epoch %d: put returned %d", e, rc);
        if (kind == E_PSCW) {
            MPI_Win_complete(win);
            MPI_Win_wait(win);
        } else if (kind == E_LOCK) {
            MPI_Win_unlock(right, win);
        } else {
            MPI_Win_fence(e == n - 1 ? MPI_MODE_NOSUCCEED : 0, win);
        }
        if (rc != MPI_SUCCESS)
            break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t last;
    memcpy(&last, base, 8);
    TAP_CHECK(counter(win, 0) == n, "counter is %lld after %d epochs", (long long) counter(win, 0), n);
    TAP_CHECK(last == n - 1, "word holds %lld after %d epochs", (long long) last, n);
    tap_ok("%s: %d %s epochs of one notified put each", flavor_name[created], n, epoch_name[kind]);
    MPI_Group_free(&gr);
    MPI_Group_free(&gl);
    MPI_Group_free(&world);
    notify_win_free(created, base, &win);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    sizes(0);
    sizes(1);
    /* The epochs are the same on either flavor: the allocated window only. */
    epochs(0, E_FENCE, tap_env_int("FENCE_EPOCHS", 10000));
    epochs(0, E_PSCW, tap_env_int("PSCW_EPOCHS", 2000));
    epochs(0, E_LOCK, tap_env_int("PSCW_EPOCHS", 2000));
    return tap_done();
}
