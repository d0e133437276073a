/*
 * Bad input to the notified calls gets the proper error class, through the
 * window's error handler (MPI_ERRORS_RETURN here), and writes nothing:
 *  - MPIX_ERR_RMA_NOTIFICATION is a class of its own, alike on every rank;
 *  - a notification index outside the target's counters (ranks use different
 *    numbers: MPIX_Win_get_num_notify reports each) or the caller's own, in every
 *    call that takes one, and set_num_notify beyond the window's maximum;
 *  - a notified call outside an epoch, a request form in a fence epoch, and
 *    set_num_notify inside an access epoch: MPI_ERR_RMA_SYNC;
 *  - bad rank, count, datatype, op and displacement: their usual classes;
 *  - the index and the window swapped (they are both ints to MPICH, so the call
 *    compiles): MPI_ERR_WIN, not a write somewhere; MPI_WIN_NULL likewise.
 */
#include <stdint.h>
#include "notify_windows.h"

static int cls;

#define EXPECT_NOTIFY(rc, what) do {                                                     \
        int got_ = errclass_of(rc);                                                      \
        TAP_CHECK(got_ == cls, "%s: got class %d, want MPIX_ERR_RMA_NOTIFICATION (%d)",  \
                  (what), got_, cls);                                                    \
    } while (0)

static int num_of(int r)
{
    return 4 + r % 2;
}

/* Nothing reached our window: the sentinel word and zero counters. */
static void nothing_written(MPI_Win win, const int64_t *word, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    TAP_CHECK(*word == -1, "%s: the window word is %lld", what, (long long) *word);
    for (int i = 0; i < num_of(me); i++)
        TAP_CHECK(counter(win, i) == 0, "%s: counter %d is %lld", what, i,
                  (long long) counter(win, i));
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    cls = MPIX_ERR_RMA_NOTIFICATION;
    int c = -1, lo, hi, len = 0;
    char str[MPI_MAX_ERROR_STRING];
    MPI_Error_class(cls, &c);
    MPI_Error_string(cls, str, &len);
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#ifdef RMAIB_TEST_OMPI
    /* Open MPI keeps an added class out of its codes: MPI_Error_class of the class
     * itself is MPI_ERR_UNKNOWN there.  The calls return a code of the class. */
    c = cls;
#endif
    TAP_CHECK(c == cls && cls != MPI_SUCCESS && cls != MPI_ERR_OTHER && cls != MPI_ERR_ARG,
              "MPIX_ERR_RMA_NOTIFICATION is %d, its class %d", cls, c);
    TAP_CHECK(lo == hi, "MPIX_ERR_RMA_NOTIFICATION differs between ranks (%d..%d)", lo, hi);
    TAP_CHECK(len > 0 && strstr(str, "notification"), "its string is \"%s\"", str);
    tap_ok("MPIX_ERR_RMA_NOTIFICATION is a class of its own, %d on every rank", cls);

    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_RMAIB_INFO_MAX_NOTIFY, "6");
    int64_t *word;
    MPI_Win win;
    MPI_Win_allocate(64, 1, info, MPI_COMM_WORLD, &word, &win);
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    *word = -1;
    MPI_Win_unlock(me, win);
    int n = -1, rc = MPIX_Win_get_num_notify(win, 0, &n);
    TAP_CHECK(rc == MPI_SUCCESS && n == 0, "before set_num_notify: rc %d, num %d", rc, n);
    rc = MPIX_Win_set_num_notify(win, MPI_INFO_NULL, num_of(me));
    TAP_CHECK(rc == MPI_SUCCESS, "set_num_notify(%d) returned %d", num_of(me), rc);
    for (int t = 0; t < np; t++) {
        rc = MPIX_Win_get_num_notify(win, t, &n);
        TAP_CHECK(rc == MPI_SUCCESS && n == num_of(t), "get_num_notify(%d): rc %d, num %d", t, rc, n);
    }
    EXPECT_CLASS(MPIX_Win_get_num_notify(win, np, &n), MPI_ERR_RANK, "get_num_notify(np)");
    MPI_Info used;
    char val[MPI_MAX_INFO_VAL + 1] = "";
    int flag = 0;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, MPIX_RMAIB_INFO_MAX_NOTIFY, MPI_MAX_INFO_VAL, val, &flag);
    MPI_Info_free(&used);
    TAP_CHECK(flag && strcmp(val, "6") == 0, "MPI_Win_get_info: %s is \"%s\"",
              MPIX_RMAIB_INFO_MAX_NOTIFY, val);
    tap_ok("MPIX_Win_get_num_notify reports each rank's own number, MPI_Win_get_info the maximum");

    int t = (me + 1) % np, bad = num_of(t), own_bad = num_of(me);
    int64_t v = 7;
    MPI_Count cv;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Win_lock_all(0, win);
    EXPECT_NOTIFY(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, bad, win), "put idx num");
    EXPECT_NOTIFY(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, -1, win), "put idx -1");
    EXPECT_NOTIFY(MPIX_Get_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, bad, win), "get");
    EXPECT_NOTIFY(MPIX_Get_notify_local(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, own_bad, win),
                  "get_notify_local with the caller's bound");
    EXPECT_NOTIFY(MPIX_Accumulate_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, bad,
                                         win), "accumulate");
    EXPECT_NOTIFY(MPIX_Rput_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, bad, win, &req),
                  "rput");
    EXPECT_NOTIFY(MPIX_Rget_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, bad, win, &req),
                  "rget");
    EXPECT_NOTIFY(MPIX_Win_get_notify_value(win, own_bad, &cv), "get_notify_value");
    EXPECT_NOTIFY(MPIX_Win_reset_notify_value(win, -1, &cv), "reset_notify_value");
    EXPECT_NOTIFY(MPIX_Win_wait_notify_value(win, own_bad, 1, &cv), "wait_notify_value");
    EXPECT_NOTIFY(MPIX_Win_notify_waitsome(win, 1, own_bad, &n), "waitsome past the end");
    EXPECT_NOTIFY(MPIX_Win_notify_waitsome(win, -1, 2, &n), "waitsome from -1");
    EXPECT_CLASS(MPIX_Win_notify_waitsome(win, 0, 0, &n), MPI_ERR_COUNT, "waitsome of 0");
    tap_ok("an index outside the counters gets MPIX_ERR_RMA_NOTIFICATION in every call");

    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, np, 0, 1, MPI_INT64_T, 0, win), MPI_ERR_RANK,
                 "put to rank np");
    EXPECT_CLASS(MPIX_Get_notify_local(&v, 1, MPI_INT64_T, -5, 0, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_RANK, "local get from rank -5");
    EXPECT_CLASS(MPIX_Put_notify(&v, -1, MPI_INT64_T, t, 0, -1, MPI_INT64_T, 0, win), MPI_ERR_COUNT,
                 "put of count -1");
    EXPECT_CLASS(MPIX_Get_notify(&v, 1, MPI_DATATYPE_NULL, t, 0, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_TYPE, "get of MPI_DATATYPE_NULL");
    EXPECT_CLASS(MPIX_Accumulate_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_OP_NULL, 0,
                                        win), MPI_ERR_OP, "accumulate with MPI_OP_NULL");
    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 60, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_RMA_RANGE, "put past the window");
    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, MPI_PROC_NULL, 0, 1, MPI_INT64_T, 99, win),
                 MPI_SUCCESS, "put to MPI_PROC_NULL");
    EXPECT_CLASS(MPIX_Win_set_num_notify(win, MPI_INFO_NULL, 2), MPI_ERR_RMA_SYNC,
                 "set_num_notify in lock_all");
    MPI_Win_unlock_all(win);
    tap_ok("bad rank, count, type, op, range, and set_num_notify in an epoch: their classes");

    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_RMA_SYNC, "put outside an epoch");
    EXPECT_CLASS(MPIX_Get_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_RMA_SYNC, "get outside an epoch");
    EXPECT_CLASS(MPIX_Get_notify_local(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 0, win),
                 MPI_ERR_RMA_SYNC, "local get outside an epoch");
    EXPECT_CLASS(MPIX_Accumulate_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, MPI_SUM, 0, win),
                 MPI_ERR_RMA_SYNC, "accumulate outside an epoch");
    MPI_Win_fence(0, win);
    EXPECT_CLASS(MPIX_Rput_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 0, win, &req),
                 MPI_ERR_RMA_SYNC, "rput in a fence epoch");
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    tap_ok("outside an epoch, and a request form under fence: MPI_ERR_RMA_SYNC");

    /* The index and the window swapped: both are ints to MPICH. */
    MPI_Win_lock_all(0, win);
    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, (int) (intptr_t) win,
                                 (MPI_Win) 0), MPI_ERR_WIN, "put with index and window swapped");
    EXPECT_CLASS(MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, (int) (intptr_t) win,
                                 (MPI_Win) 1), MPI_ERR_WIN, "put with index and window swapped, 1");
    EXPECT_CLASS(MPIX_Get_notify_local(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T,
                                       (int) (intptr_t) win, (MPI_Win) 0), MPI_ERR_WIN,
                 "local get with index and window swapped");
    EXPECT_CLASS(MPIX_Win_get_notify_value(MPI_WIN_NULL, 0, &cv), MPI_ERR_WIN,
                 "get_notify_value on MPI_WIN_NULL");
    EXPECT_CLASS(MPIX_Win_set_num_notify(MPI_WIN_NULL, MPI_INFO_NULL, 1), MPI_ERR_WIN,
                 "set_num_notify on MPI_WIN_NULL");
    MPI_Win_unlock_all(win);
    nothing_written(win, word, "after the failed calls");
    tap_ok("index and window swapped, or MPI_WIN_NULL: MPI_ERR_WIN and nothing written");

    EXPECT_NOTIFY(MPIX_Win_set_num_notify(win, MPI_INFO_NULL, 7), "set_num_notify past the maximum 6");
    EXPECT_NOTIFY(MPIX_Win_set_num_notify(win, MPI_INFO_NULL, me == np - 1 ? -1 : 1),
                  "set_num_notify(-1) on one rank");
    for (int r = 0; r < np; r++) {
        rc = MPIX_Win_get_num_notify(win, r, &n);
        TAP_CHECK(rc == MPI_SUCCESS && n == num_of(r), "after failed sets, num of %d is %d", r, n);
    }
    rc = MPIX_Win_set_num_notify(win, MPI_INFO_NULL, 6);
    TAP_CHECK(rc == MPI_SUCCESS, "set_num_notify(6) returned %d", rc);
    MPI_Win_lock_all(0, win);
    rc = MPIX_Put_notify(&v, 1, MPI_INT64_T, t, 0, 1, MPI_INT64_T, 5, win);
    TAP_CHECK(rc == MPI_SUCCESS, "put on index 5 after set_num_notify(6) returned %d", rc);
    rc = MPIX_Win_wait_notify_value(win, 5, 1, &cv);
    TAP_CHECK(rc == MPI_SUCCESS && cv == 1, "counter 5: rc %d, value %lld", rc, (long long) cv);
    MPI_Win_unlock_all(win);
    tap_ok("set_num_notify beyond the maximum or negative fails on every rank; within it works");

    MPI_Win_free(&win);
    return tap_done();
}
