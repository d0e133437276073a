/*
 * MPI_Rput and MPI_Rget requests, completed every way the standard offers: MPI_Wait,
 * MPI_Test loops, MPI_Waitall, MPI_Testany, MPI_Waitsome, and mixed in one array with
 * ordinary MPI_Isend/MPI_Irecv requests (MPI_Waitall and MPI_Waitsome).
 *
 * Each rank issues an Rput to and an Rget from every rank (itself included) and
 * checks what completion promises:
 *  - an Rget's buffer holds the target's data as soon as its request completes
 *    (checked before any flush);
 *  - an Rput's origin buffer may be reused once its request completes: the test
 *    scribbles over it at once, and after a flush the target must hold the original
 *    values, with the sentinel on both sides of the written range;
 *  - every completed request handle is MPI_REQUEST_NULL, and completes exactly once.
 * Under lock_all, then once more under per-target MPI_Win_lock.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"
#include "wait.h"

#define SLOTN 64                      /* ints per slot */
enum { C_WAIT, C_TEST, C_WAITALL, C_TESTANY, C_WAITSOME, C_MIX_WAITALL, C_MIX_WAITSOME,
       C_LOCK_WAIT, NSUB };
static const char *sub_name[] = {
    "MPI_Wait", "MPI_Test loop", "MPI_Waitall", "MPI_Testany loop", "MPI_Waitsome loop",
    "mixed with Isend/Irecv, MPI_Waitall", "mixed with Isend/Irecv, MPI_Waitsome loop",
    "MPI_Wait under MPI_Win_lock"
};
#define NSLOT (2 * NSUB)               /* sub s puts into slot 2s, gets from slot 2s+1 */

/* Kinds of request, in this order for every target in an array of K per target. */
enum { K_RPUT, K_RGET, K_ISEND, K_IRECV };

static int me, np;
static int *putsrc, *getdst, *sendbuf, *recvbuf;   /* [target][SLOTN] */
static int *done_count;

static int *row(int *a, int t)
{
    return a + (size_t) t * SLOTN;
}

/* Called once per request when it completes. */
static void on_done(int s, int kind, int t)
{
    done_count[t * 4 + kind]++;
    if (kind == K_RPUT) {
        fill_int(row(putsrc, t), SLOTN, -7);          /* the buffer is ours again */
    } else if (kind == K_RGET) {
        const int *g = row(getdst, t);
        for (int j = 0; j < SLOTN; j++)
            TAP_CHECK(g[j] == pat(me, t, 2 * s + 1, j),
                      "%s: Rget from %d complete but int %d is %#x, want %#x", sub_name[s], t,
                      j, (unsigned) g[j], (unsigned) pat(me, t, 2 * s + 1, j));
    } else if (kind == K_ISEND) {
        fill_int(row(sendbuf, t), SLOTN, -9);
    } else {
        const int *g = row(recvbuf, t);
        for (int j = 0; j < SLOTN; j++)
            TAP_CHECK(g[j] == pat(t, me, 1000 - s, j), "%s: message from %d int %d is %#x",
                      sub_name[s], t, j, (unsigned) g[j]);
    }
}

/* Issue K requests per target: Rput, Rget and (if K == 4) Isend, Irecv. */
static void issue(int s, int K, MPI_Win win, MPI_Request *req)
{
    for (int t = 0; t < np; t++) {
        for (int j = 0; j < SLOTN; j++) {
            row(putsrc, t)[j] = pat(me, t, 2 * s, j);
            row(getdst, t)[j] = SENT_INT;
            row(sendbuf, t)[j] = pat(me, t, 1000 - s, j);
            row(recvbuf, t)[j] = SENT_INT;
        }
        MPI_Aint slot = (MPI_Aint) (((size_t) me * NSLOT + 2 * s) * SLOTN);
        int rc = MPI_Rput(row(putsrc, t) + 1, SLOTN - 2, MPI_INT, t, slot + 1, SLOTN - 2,
                          MPI_INT, win, &req[t * K + K_RPUT]);
        TAP_CHECK(rc == MPI_SUCCESS, "%s: MPI_Rput to %d returned %d", sub_name[s], t, rc);
        rc = MPI_Rget(row(getdst, t), SLOTN, MPI_INT, t, slot + SLOTN, SLOTN, MPI_INT, win,
                      &req[t * K + K_RGET]);
        TAP_CHECK(rc == MPI_SUCCESS, "%s: MPI_Rget from %d returned %d", sub_name[s], t, rc);
        if (K == 4) {
            MPI_Irecv(row(recvbuf, t), SLOTN, MPI_INT, t, 77, MPI_COMM_WORLD, &req[t * K + K_IRECV]);
            MPI_Isend(row(sendbuf, t), SLOTN, MPI_INT, t, 77, MPI_COMM_WORLD, &req[t * K + K_ISEND]);
        }
    }
}

static void complete(int s, int K, MPI_Request *req)
{
    /* real status arrays: gcc 12 warns on MPI_STATUSES_IGNORE with MPICH's prototypes */
    static MPI_Status st[4 * 64];
    int n = K * np, left = n, outc, idx[4 * 64], flag;
    memset(done_count, 0, 4 * (size_t) np * sizeof(int));
    switch (s) {
    case C_WAIT:
    case C_LOCK_WAIT:
        for (int i = 0; i < n; i++) {
            MPI_Wait(&req[i], MPI_STATUS_IGNORE);
            on_done(s, i % K, i / K);
        }
        break;
    case C_TEST:
        for (int i = n - 1; i >= 0; i--) {
            for (flag = 0; !flag;) {
                MPI_Test(&req[i], &flag, MPI_STATUS_IGNORE);
                if (!flag)
                    poll_pause();
            }
            on_done(s, i % K, i / K);
        }
        break;
    case C_WAITALL:
    case C_MIX_WAITALL:
        MPI_Waitall(n, req, st);
        for (int i = 0; i < n; i++)
            on_done(s, i % K, i / K);
        break;
    case C_TESTANY:
        while (left > 0) {
            int i;
            MPI_Testany(n, req, &i, &flag, MPI_STATUS_IGNORE);
            if (flag && i == MPI_UNDEFINED) {
                TAP_CHECK(0, "%s: MPI_Testany says no active request with %d left", sub_name[s], left);
                break;
            }
            if (flag) {
                on_done(s, i % K, i / K);
                left--;
            } else {
                poll_pause();
            }
        }
        break;
    case C_WAITSOME:
    case C_MIX_WAITSOME:
        while (left > 0) {
            MPI_Waitsome(n, req, &outc, idx, st);
            if (outc == MPI_UNDEFINED) {
                TAP_CHECK(0, "%s: MPI_Waitsome says no active request with %d left", sub_name[s], left);
                break;
            }
            for (int k = 0; k < outc; k++)
                on_done(s, idx[k] % K, idx[k] / K);
            left -= outc;
        }
        break;
    }
    for (int i = 0; i < n; i++) {
        TAP_CHECK(req[i] == MPI_REQUEST_NULL, "%s: request %d not MPI_REQUEST_NULL after completion",
                  sub_name[s], i);
        TAP_CHECK(done_count[(i / K) * 4 + i % K] == 1, "%s: request %d completed %d times",
                  sub_name[s], i, done_count[(i / K) * 4 + i % K]);
    }
}

/* The target's view of sub s: every origin's Rput landed, ends untouched, get slot intact. */
static void check_target(int s, const int *base)
{
    for (int o = 0; o < np; o++) {
        const int *p = base + ((size_t) o * NSLOT + 2 * s) * SLOTN;
        for (int j = 0; j < SLOTN; j++) {
            int want = j == 0 || j == SLOTN - 1 ? SENT_INT : pat(o, me, 2 * s, j);
            TAP_CHECK(p[j] == want, "%s: from rank %d, int %d is %#x, want %#x", sub_name[s], o, j,
                      (unsigned) p[j], (unsigned) want);
            TAP_CHECK(p[SLOTN + j] == pat(o, me, 2 * s + 1, j),
                      "%s: get slot of rank %d changed at int %d", sub_name[s], o, j);
        }
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    if (np > 64) {
        tap_skip("Rput/Rget requests", "more than 64 ranks");
        return tap_done();
    }
    size_t rowsz = (size_t) np * SLOTN * sizeof(int);
    putsrc = malloc(rowsz);
    getdst = malloc(rowsz);
    sendbuf = malloc(rowsz);
    recvbuf = malloc(rowsz);
    done_count = malloc(4 * (size_t) np * sizeof(int));
    MPI_Request *req = malloc(4 * (size_t) np * sizeof(MPI_Request));

    size_t wints = (size_t) np * NSLOT * SLOTN;
    int *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) (wints * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    for (int o = 0; o < np; o++)
        for (int s = 0; s < NSUB; s++) {
            int *p = base + ((size_t) o * NSLOT + 2 * s) * SLOTN;
            fill_int(p, SLOTN, SENT_INT);
            for (int j = 0; j < SLOTN; j++)
                p[SLOTN + j] = pat(o, me, 2 * s + 1, j);
        }
    self_end(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int s = 0; s < C_LOCK_WAIT; s++) {
        int K = s == C_MIX_WAITALL || s == C_MIX_WAITSOME ? 4 : 2;
        issue(s, K, win, req);
        complete(s, K, req);
        MPI_Win_flush_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win);
        check_target(s, base);
        tap_ok("Rput/Rget completed with %s", sub_name[s]);
    }
    MPI_Win_unlock_all(win);

    /* one epoch per target, its requests completed with MPI_Wait before the unlock */
    const int sl = C_LOCK_WAIT;
    for (int i = 0; i < np; i++) {
        MPI_Request one[2];
        int t = (me + i) % np;
        for (int j = 0; j < SLOTN; j++) {
            row(putsrc, t)[j] = pat(me, t, 2 * sl, j);
            row(getdst, t)[j] = SENT_INT;
        }
        MPI_Aint slot = (MPI_Aint) (((size_t) me * NSLOT + 2 * sl) * SLOTN);
        MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
        int rc1 = MPI_Rput(row(putsrc, t) + 1, SLOTN - 2, MPI_INT, t, slot + 1, SLOTN - 2, MPI_INT,
                           win, &one[0]);
        int rc2 = MPI_Rget(row(getdst, t), SLOTN, MPI_INT, t, slot + SLOTN, SLOTN, MPI_INT, win,
                           &one[1]);
        TAP_CHECK(rc1 == MPI_SUCCESS && rc2 == MPI_SUCCESS, "Rput/Rget under lock: %d %d", rc1, rc2);
        MPI_Wait(&one[0], MPI_STATUS_IGNORE);
        MPI_Wait(&one[1], MPI_STATUS_IGNORE);
        TAP_CHECK(one[0] == MPI_REQUEST_NULL && one[1] == MPI_REQUEST_NULL,
                  "MPI_Wait under lock left a request active");
        on_done(sl, K_RPUT, t);
        on_done(sl, K_RGET, t);
        MPI_Win_unlock(t, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(win, MPI_LOCK_SHARED);
    check_target(C_LOCK_WAIT, base);
    self_end(win);
    tap_ok("Rput/Rget completed with %s", sub_name[C_LOCK_WAIT]);

    MPI_Win_free(&win);
    free(putsrc);
    free(getdst);
    free(sendbuf);
    free(recvbuf);
    free(done_count);
    free(req);
    return tap_done();
}
