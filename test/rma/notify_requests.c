/*
 * MPIX_Rput_notify and MPIX_Rget_notify return host requests that mix with
 * ordinary ones: each round every rank issues, to every rank (itself included), a
 * notified Rput, a notified Rget, a plain MPI_Rput, and an Isend/Irecv pair, and
 * completes them all in one MPI_Waitall (even rounds) or an MPI_Waitsome loop (odd
 * rounds).  Each Rget's data is checked as its request completes; in the end every
 * target's counter idx = origin counts the Rputs, idx = np + origin the Rgets, and
 * the window holds the last round's data.
 */
#include "notify_windows.h"

enum { ROUNDS = 6, K = 5, W = 16 };   /* requests per target; ints per slot */
_Static_assert(sizeof(int) == 4, "displacements are in bytes of 4-byte ints");

static int val(int o, int t, int r, int j)
{
    return pat(o, t, r, j);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    /* slots per origin: [0] notified Rput, [1] plain Rput, [2] what Rgets read */
    MPI_Win win;
    int *base = (int *) notify_win(0, (size_t) np * 3 * W * sizeof(int), 2 * np, 2 * np, &win);
    int *put = malloc((size_t) np * W * sizeof(int)), *get = malloc((size_t) np * W * sizeof(int));
    int *sbuf = malloc((size_t) np * W * sizeof(int)), *rbuf = malloc((size_t) np * W * sizeof(int));
    MPI_Request *req = malloc((size_t) np * K * sizeof(MPI_Request));
    MPI_Status *st = malloc((size_t) np * K * sizeof(MPI_Status));
    int *idx = malloc((size_t) np * K * sizeof(int));
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    for (int o = 0; o < np; o++)
        for (int j = 0; j < W; j++)
            base[(o * 3 + 2) * W + j] = val(o, me, 99, j);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int r = 0; r < ROUNDS; r++) {
        for (int t = 0; t < np; t++) {
            for (int j = 0; j < W; j++) {
                put[t * W + j] = val(me, t, r, j);
                get[t * W + j] = SENT_INT;
                sbuf[t * W + j] = val(me, t, 500 + r, j);
            }
            MPI_Request *q = req + t * K;
            int rc = MPIX_Rput_notify(put + t * W, W, MPI_INT, t, (MPI_Aint) (me * 3 * W * 4), W,
                                      MPI_INT, me, win, &q[0]);
            TAP_CHECK(rc == MPI_SUCCESS, "Rput_notify to %d returned %d", t, rc);
            rc = MPIX_Rget_notify(get + t * W, W, MPI_INT, t, (MPI_Aint) ((me * 3 + 2) * W * 4), W,
                                  MPI_INT, np + me, win, &q[1]);
            TAP_CHECK(rc == MPI_SUCCESS, "Rget_notify from %d returned %d", t, rc);
            rc = MPI_Rput(put + t * W, W, MPI_INT, t, (MPI_Aint) ((me * 3 + 1) * W * 4), W, MPI_INT,
                          win, &q[2]);
            TAP_CHECK(rc == MPI_SUCCESS, "MPI_Rput to %d returned %d", t, rc);
            MPI_Irecv(rbuf + t * W, W, MPI_INT, t, 5, MPI_COMM_WORLD, &q[3]);
            MPI_Isend(sbuf + t * W, W, MPI_INT, t, 5, MPI_COMM_WORLD, &q[4]);
        }
        int n = np * K, left = n, outc;
        if (r % 2 == 0) {
            MPI_Waitall(n, req, st);
        } else {
            while (left > 0) {
                MPI_Waitsome(n, req, &outc, idx, st);
                if (outc == MPI_UNDEFINED)
                    break;
                for (int k = 0; k < outc; k++)
                    if (idx[k] % K == 1) {      /* an Rget: its data is here now */
                        int t = idx[k] / K;
                        for (int j = 0; j < W; j++)
                            TAP_CHECK(get[t * W + j] == val(me, t, 99, j),
                                      "round %d: Rget from %d done, int %d is %#x", r, t, j,
                                      (unsigned) get[t * W + j]);
                    }
                left -= outc;
            }
            TAP_CHECK(left == 0, "round %d: MPI_Waitsome left %d requests", r, left);
        }
        for (int i = 0; i < n; i++)
            TAP_CHECK(req[i] == MPI_REQUEST_NULL, "round %d: request %d still active", r, i);
        for (int t = 0; t < np; t++)
            for (int j = 0; j < W; j++) {
                TAP_CHECK(get[t * W + j] == val(me, t, 99, j), "round %d: Rget from %d int %d",
                          r, t, j);
                TAP_CHECK(rbuf[t * W + j] == val(t, me, 500 + r, j), "round %d: message from %d",
                          r, t);
            }
        MPI_Barrier(MPI_COMM_WORLD);    /* the next round overwrites the slots */
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int o = 0; o < np; o++) {
        TAP_CHECK(counter(win, o) == ROUNDS, "Rput_notify counter of %d is %lld", o,
                  (long long) counter(win, o));
        TAP_CHECK(counter(win, np + o) == ROUNDS, "Rget_notify counter of %d is %lld", o,
                  (long long) counter(win, np + o));
        for (int j = 0; j < W; j++) {
            TAP_CHECK(base[o * 3 * W + j] == val(o, me, ROUNDS - 1, j), "notified slot of %d", o);
            TAP_CHECK(base[(o * 3 + 1) * W + j] == val(o, me, ROUNDS - 1, j), "plain slot of %d", o);
        }
    }
    tap_ok("notified Rput/Rget mixed with MPI_Rput and Isend/Irecv in Waitall and Waitsome");
    free(put);
    free(get);
    free(sbuf);
    free(rbuf);
    free(req);
    free(st);
    free(idx);
    notify_win_free(0, (unsigned char *) base, &win);
    return tap_done();
}
