/*
 * target_in_host_wait: a passive target blocked in a call of the host MPI, or polling
 * one, serves its window.  Rank 0 sits in one blocking point-to-point or collective
 * call after another, then polls MPI_Test, MPI_Testall, MPI_Testany, MPI_Testsome,
 * MPI_Request_get_status, MPI_Iprobe and MPI_Improbe in turn; for each, every other rank first runs lock epochs on rank 0's window
 * (fetch-and-op on a shared counter, put of its own slot, flush, get checked,
 * unlock) and only then makes the matching call that lets rank 0 out.  Rank 0 then
 * checks every value the origins left: the counter, and each origin's slot.
 *
 * Over a software provider (tcp;ofi_rxm) a target's window moves only while
 * something in the target polls the endpoint.  The ofi pass runs this with the
 * progress thread on; the RMAIB_ASYNC_PROGRESS=0 runs leave only rmaib's own
 * wrappers of these calls to do it, so an unserved call hangs the origins (and the
 * watchdog fails the test).  Also checked: the wrapped calls still report errors
 * (a truncated receive, a barrier on MPI_COMM_NULL) with their MPI classes.
 */
#include <string.h>
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { COUNT = 0, SLOTS = 1 };  /* COUNT: fetch-and-op by all; SLOTS + o: origin o's */
enum { ROUNDS = 3, TAG = 7 };

typedef enum {
    K_RECV, K_WAIT, K_WAITALL, K_WAITANY, K_PROBE, K_SENDRECV, K_BARRIER, K_BCAST, K_REDUCE,
    K_ALLREDUCE, K_ALLGATHER, K_GATHER,
    K_TEST, K_TESTALL, K_TESTANY, K_TESTSOME, K_GET_STATUS, K_IPROBE, K_IMPROBE, K_COUNT
} kind_t;

static const char *const kind_name[K_COUNT] = {
    "MPI_Recv", "MPI_Wait", "MPI_Waitall", "MPI_Waitany", "MPI_Probe", "MPI_Sendrecv",
    "MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Allgather", "MPI_Gather",
    "MPI_Test", "MPI_Testall", "MPI_Testany", "MPI_Testsome", "MPI_Request_get_status",
    "MPI_Iprobe", "MPI_Improbe"
};

/* Rank 0 polls the kind's call, pausing between calls, until the origins' messages
 * are all in all[1..n-1]. */
static void poll_for_messages(kind_t k, int *all, MPI_Request *reqs)
{
    const int n = tap_size;
    int left = n - 1;
    if (k != K_IPROBE && k != K_IMPROBE)
        for (int o = 1; o < n; o++)
            EXPECT_OK(MPI_Irecv(&all[o], 1, MPI_INT, o, TAG, MPI_COMM_WORLD, &reqs[o - 1]),
                 "MPI_Irecv");
    while (left > 0) {
        int flag = 0, idx = -1, outcount = 0, *idxs = malloc(sizeof(int) * (size_t) n);
        MPI_Status st, *sts = malloc(sizeof(MPI_Status) * (size_t) n);
        MPI_Message msg;
        switch (k) {
        case K_TEST:            /* the requests in order */
            EXPECT_OK(MPI_Test(&reqs[n - 1 - left], &flag, MPI_STATUS_IGNORE), "MPI_Test");
            left -= flag;
            break;
        case K_TESTALL:
            EXPECT_OK(MPI_Testall(n - 1, reqs, &flag, sts), "MPI_Testall");
            left = flag ? 0 : left;
            break;
        case K_TESTANY:
            EXPECT_OK(MPI_Testany(n - 1, reqs, &idx, &flag, MPI_STATUS_IGNORE), "MPI_Testany");
            left -= flag && idx != MPI_UNDEFINED;
            break;
        case K_TESTSOME:
            EXPECT_OK(MPI_Testsome(n - 1, reqs, &outcount, idxs, sts), "MPI_Testsome");
            left -= outcount == MPI_UNDEFINED ? 0 : outcount;
            break;
        case K_GET_STATUS:      /* then freed by the wait that ends each */
            EXPECT_OK(MPI_Request_get_status(reqs[n - 1 - left], &flag, MPI_STATUS_IGNORE),
                 "MPI_Request_get_status");
            if (flag) {
                EXPECT_OK(MPI_Wait(&reqs[n - 1 - left], MPI_STATUS_IGNORE), "MPI_Wait");
                left--;
            }
            break;
        case K_IPROBE:
            EXPECT_OK(MPI_Iprobe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
            if (flag) {
                EXPECT_OK(MPI_Recv(&all[st.MPI_SOURCE], 1, MPI_INT, st.MPI_SOURCE, TAG,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
                left--;
            }
            break;
        default:
            EXPECT_OK(MPI_Improbe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &flag, &msg, &st),
                 "MPI_Improbe");
            if (flag) {
                EXPECT_OK(MPI_Mrecv(&all[st.MPI_SOURCE], 1, MPI_INT, &msg, MPI_STATUS_IGNORE),
                     "MPI_Mrecv");
                left--;
            }
            break;
        }
        free(idxs);
        free(sts);
        if (left > 0)
            poll_pause();
    }
}

/* The origins' epochs on rank 0: ROUNDS per call kind, numbered from `epoch`. */
static void origin_epochs(MPI_Win win, int epoch)
{
    const int64_t one = 1;
    for (int j = 0; j < ROUNDS; j++) {
        int64_t v = (int64_t) tap_rank * 100000 + epoch + j, got = -1, old = -1;
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), "MPI_Win_lock");
        EXPECT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, COUNT, MPI_SUM, win),
             "MPI_Fetch_and_op");
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, 0, SLOTS + tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_flush(0, win), "MPI_Win_flush");
        EXPECT_OK(MPI_Get(&got, 1, MPI_INT64_T, 0, SLOTS + tap_rank, 1, MPI_INT64_T, win), "MPI_Get");
        EXPECT_OK(MPI_Win_unlock(0, win), "MPI_Win_unlock");
        TAP_CHECK(got == v, "get read %lld, expected %lld", (long long) got, (long long) v);
        TAP_CHECK(old >= 0 && old < (int64_t) (K_COUNT * ROUNDS * (tap_size - 1)),
                  "fetch-and-op returned %lld, outside 0..%d", (long long) old,
                  K_COUNT * ROUNDS * (tap_size - 1) - 1);
    }
}

/* Rank 0 waits in the call of kind k; the origins join it once their epochs are done. */
static void meet(kind_t k)
{
    const int n = tap_size, me = tap_rank;
    int token = me, *all = malloc(sizeof(int) * (size_t) n), sum = -1;
    MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t) n);
    for (int i = 0; i < n; i++)
        all[i] = -1;
    switch (k) {
    case K_RECV:
    case K_WAIT:
    case K_WAITALL:
    case K_WAITANY:
    case K_PROBE:
    case K_TEST:
    case K_TESTALL:
    case K_TESTANY:
    case K_TESTSOME:
    case K_GET_STATUS:
    case K_IPROBE:
    case K_IMPROBE:
        if (me != 0) {
            EXPECT_OK(MPI_Send(&token, 1, MPI_INT, 0, TAG, MPI_COMM_WORLD), "MPI_Send");
            break;
        }
        if (k >= K_TEST) {
            poll_for_messages(k, all, reqs);
        } else for (int o = 1; o < n; o++) {
            if (k == K_RECV) {
                EXPECT_OK(MPI_Recv(&all[o], 1, MPI_INT, o, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     "MPI_Recv");
            } else if (k == K_PROBE) {
                MPI_Status st;
                EXPECT_OK(MPI_Probe(MPI_ANY_SOURCE, TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
                EXPECT_OK(MPI_Recv(&all[st.MPI_SOURCE], 1, MPI_INT, st.MPI_SOURCE, TAG,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
            } else {
                EXPECT_OK(MPI_Irecv(&all[o], 1, MPI_INT, o, TAG, MPI_COMM_WORLD, &reqs[o - 1]),
                     "MPI_Irecv");
            }
        }
        if (k == K_WAIT)
            for (int o = 1; o < n; o++)
                EXPECT_OK(MPI_Wait(&reqs[o - 1], MPI_STATUS_IGNORE), "MPI_Wait");
        if (k == K_WAITALL) {
            MPI_Status *st = malloc(sizeof(MPI_Status) * (size_t) n);
            EXPECT_OK(MPI_Waitall(n - 1, reqs, st), "MPI_Waitall");
            for (int o = 1; o < n; o++)
                TAP_CHECK(st[o - 1].MPI_SOURCE == o, "MPI_Waitall: status %d names rank %d",
                          o - 1, st[o - 1].MPI_SOURCE);
            free(st);
        }
        if (k == K_WAITANY)
            for (int o = 1; o < n; o++) {
                int idx = -1;
                EXPECT_OK(MPI_Waitany(n - 1, reqs, &idx, MPI_STATUS_IGNORE), "MPI_Waitany");
                TAP_CHECK(idx >= 0 && idx < n - 1, "MPI_Waitany index %d", idx);
            }
        for (int o = 1; o < n; o++)
            TAP_CHECK(all[o] == o, "%s: got %d from rank %d", kind_name[k], all[o], o);
        break;
    case K_SENDRECV:
        if (me != 0) {
            EXPECT_OK(MPI_Sendrecv(&token, 1, MPI_INT, 0, TAG, &all[0], 1, MPI_INT, 0, TAG,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Sendrecv");
            TAP_CHECK(all[0] == 0, "MPI_Sendrecv: got %d from rank 0", all[0]);
        } else {
            for (int o = 1; o < n; o++) {
                MPI_Status st;
                EXPECT_OK(MPI_Sendrecv(&token, 1, MPI_INT, o, TAG, &all[o], 1, MPI_INT, o, TAG,
                                  MPI_COMM_WORLD, &st), "MPI_Sendrecv");
                TAP_CHECK(all[o] == o && st.MPI_SOURCE == o, "MPI_Sendrecv: got %d from "
                          "rank %d (status source %d)", all[o], o, st.MPI_SOURCE);
            }
        }
        break;
    case K_BARRIER:
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        break;
    case K_BCAST:               /* rooted at the last origin, so rank 0 must wait */
        all[0] = me == n - 1 ? 4242 : -1;
        EXPECT_OK(MPI_Bcast(&all[0], 1, MPI_INT, n - 1, MPI_COMM_WORLD), "MPI_Bcast");
        TAP_CHECK(all[0] == 4242, "MPI_Bcast delivered %d", all[0]);
        break;
    case K_REDUCE:
        EXPECT_OK(MPI_Reduce(&token, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), "MPI_Reduce");
        TAP_CHECK(me != 0 || sum == n * (n - 1) / 2, "MPI_Reduce gave %d", sum);
        break;
    case K_ALLREDUCE:
        EXPECT_OK(MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        TAP_CHECK(sum == n * (n - 1) / 2, "MPI_Allreduce gave %d", sum);
        break;
    case K_ALLGATHER:
    case K_GATHER:
        if (k == K_ALLGATHER)
            EXPECT_OK(MPI_Allgather(&token, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD),
                 "MPI_Allgather");
        else
            EXPECT_OK(MPI_Gather(&token, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD),
                 "MPI_Gather");
        for (int i = 0; i < n && (k == K_ALLGATHER || me == 0); i++)
            TAP_CHECK(all[i] == i, "%s: slot %d holds %d", kind_name[k], i, all[i]);
        break;
    case K_COUNT:
        break;
    }
    free(reqs);
    free(all);
}

/* The wrapped calls keep their error classes. */
static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int big[4] = { 1, 2, 3, 4 }, small[2] = { -1, -1 };
    if (tap_rank == 1)
        EXPECT_OK(MPI_Send(big, 4, MPI_INT, 0, TAG, MPI_COMM_WORLD), "MPI_Send");
    if (tap_rank == 0) {
        int rc = MPI_Recv(small, 2, MPI_INT, 1, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        TAP_CHECK(errclass_of(rc) == MPI_ERR_TRUNCATE, "truncated MPI_Recv returned class %d, "
                  "expected MPI_ERR_TRUNCATE (%d)", errclass_of(rc), MPI_ERR_TRUNCATE);
    }
    int rc = MPI_Barrier(MPI_COMM_NULL);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "MPI_Barrier(MPI_COMM_NULL) returned class %d, "
              "expected MPI_ERR_COMM (%d)", errclass_of(rc), MPI_ERR_COMM);
    EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier after the errors");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    tap_ok("a truncated MPI_Recv and MPI_Barrier(MPI_COMM_NULL) return their error classes");
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int64_t *base;
    MPI_Aint bytes = (MPI_Aint) sizeof(int64_t) * (SLOTS + tap_size);
    MPI_Win win = win_allocate_zeroed(bytes, sizeof(int64_t), "tas", &base);
    if (tap_rank == 0)
        memset(base, 0, (size_t) bytes);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int k = 0; k < K_COUNT; k++) {
        int epoch = k * ROUNDS;
        if (tap_rank != 0)
            origin_epochs(win, epoch);
        meet((kind_t) k);
        if (tap_rank == 0) {
            /* The origins' epochs ended before they let us out: their data is here. */
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win), "MPI_Win_lock(self)");
            /* MPI_Bcast lets us out once its root (the last origin) is done; the other
             * origins may still be at work, so only the root's data is certain. */
            int first = k == K_BCAST ? tap_size - 1 : 1;
            int64_t want = (int64_t) (k + 1) * ROUNDS * (tap_size - 1), got = load64(base + COUNT);
            TAP_CHECK(k == K_BCAST ? got >= (int64_t) k * ROUNDS * (tap_size - 1) + ROUNDS
                      : got == want, "after %s the counter is %lld, expected %lld",
                      kind_name[k], (long long) got, (long long) want);
            for (int o = first; o < tap_size; o++) {
                int64_t v = load64(base + SLOTS + o), w = (int64_t) o * 100000 + epoch + ROUNDS - 1;
                TAP_CHECK(v == w, "after %s origin %d's slot is %lld, expected %lld",
                          kind_name[k], o, (long long) v, (long long) w);
            }
            EXPECT_OK(MPI_Win_unlock(0, win), "MPI_Win_unlock(self)");
        }
        tap_ok("the target waits in %s while %d origins run lock/fetch-and-op/put/get epochs "
               "on it", kind_name[k], tap_size - 1);
    }
    errors();
    MPI_Win_free(&win);
    return tap_done();
}
