/*
 * User attributes on windows: MPI_Win_create_keyval with copy and delete callbacks,
 * MPI_Win_set_attr / get_attr / delete_attr, MPI_Win_free_keyval.
 *  - an unset key reads back with flag 0; a set value reads back exactly;
 *  - setting a key again calls the delete callback on the old value; delete_attr
 *    calls it on the current one; MPI_Win_free calls it for every attribute still
 *    set, with the window being freed, the key and the value, and extra_state;
 *  - windows are never copied, so the copy callback is never called;
 *  - two keys on one window and one key on two windows keep their values apart;
 *  - a keyval freed while still attached keeps working until the attribute goes.
 */
#include "tap.h"

struct del_log {
    int calls;
    MPI_Win win[8];
    int key[8];
    void *val[8];
};

static struct del_log dlog;
static int copy_calls;
static int extra = 42;

static int copy_fn(MPI_Win old, int key, void *extra_state, void *in, void *out, int *flag)
{
    (void) old; (void) key; (void) extra_state; (void) in; (void) out;
    copy_calls++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Win win, int key, void *val, void *extra_state)
{
    if (dlog.calls < 8) {
        dlog.win[dlog.calls] = win;
        dlog.key[dlog.calls] = key;
        dlog.val[dlog.calls] = val;
    }
    dlog.calls++;
    TAP_CHECK(extra_state == &extra, "delete callback got extra_state %p, want %p", extra_state,
              (void *) &extra);
    return MPI_SUCCESS;
}

/* Was the i-th delete callback for (win, key, val)? */
static void expect_delete(int i, MPI_Win win, int key, void *val, const char *what)
{
    TAP_CHECK(dlog.calls > i, "%s: delete callback not called", what);
    if (dlog.calls > i) {
        TAP_CHECK(dlog.win[i] == win, "%s: delete callback got another window", what);
        TAP_CHECK(dlog.key[i] == key, "%s: delete callback got key %d, want %d", what, dlog.key[i], key);
        TAP_CHECK(dlog.val[i] == val, "%s: delete callback got value %p, want %p", what, dlog.val[i], val);
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank;
    int k1, k2, flag, buf[4];
    void *v;
    static int vals[6];
    MPI_Win win, win2;

    int rc = MPI_Win_create_keyval(copy_fn, delete_fn, &k1, &extra);
    rc |= MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &k2, &extra);
    TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_create_keyval failed");
    MPI_Win_allocate(sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &v, &win);
    MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win2);

    flag = 1;
    MPI_Win_get_attr(win, k1, &v, &flag);
    TAP_CHECK(flag == 0, "unset key reads back with flag %d", flag);
    rc = MPI_Win_set_attr(win, k1, &vals[0]);
    rc |= MPI_Win_set_attr(win, k2, &vals[1]);
    rc |= MPI_Win_set_attr(win2, k1, &vals[2]);
    TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_set_attr failed");
    MPI_Win_get_attr(win, k1, &v, &flag);
    TAP_CHECK(flag && v == &vals[0], "win key 1: flag %d value %p", flag, v);
    MPI_Win_get_attr(win, k2, &v, &flag);
    TAP_CHECK(flag && v == &vals[1], "win key 2: flag %d value %p", flag, v);
    MPI_Win_get_attr(win2, k1, &v, &flag);
    TAP_CHECK(flag && v == &vals[2], "win2 key 1: flag %d value %p", flag, v);
    MPI_Win_get_attr(win2, k2, &v, &flag);
    TAP_CHECK(flag == 0, "win2 key 2 was never set, flag %d", flag);
    TAP_CHECK(dlog.calls == 0, "delete callback called %d times already", dlog.calls);
    tap_ok("set and get: two keys, two windows, values kept apart");

    rc = MPI_Win_set_attr(win, k1, &vals[3]);
    TAP_CHECK(rc == MPI_SUCCESS && dlog.calls == 1, "set again: rc %d, %d delete calls", rc, dlog.calls);
    expect_delete(0, win, k1, &vals[0], "set again");
    MPI_Win_get_attr(win, k1, &v, &flag);
    TAP_CHECK(flag && v == &vals[3], "after set again: flag %d value %p", flag, v);
    tap_ok("setting a key again calls delete on the old value");

    rc = MPI_Win_delete_attr(win, k2);
    TAP_CHECK(rc == MPI_SUCCESS && dlog.calls == 2, "delete_attr: rc %d, %d delete calls", rc, dlog.calls);
    expect_delete(1, win, k2, &vals[1], "delete_attr");
    MPI_Win_get_attr(win, k2, &v, &flag);
    TAP_CHECK(flag == 0, "deleted key reads back with flag %d", flag);
    tap_ok("delete_attr calls delete and unsets the key");

    /* free the keyval k1 while it is still attached to both windows */
    int k1_saved = k1;
    rc = MPI_Win_free_keyval(&k1);
    TAP_CHECK(rc == MPI_SUCCESS && k1 == MPI_KEYVAL_INVALID, "free_keyval: rc %d key %d", rc, k1);
    MPI_Win_get_attr(win, k1_saved, &v, &flag);
    TAP_CHECK(flag && v == &vals[3], "attribute lost when its keyval was freed");
    tap_ok("free_keyval while attached: the attribute stays");

    /* a put on the window with attributes still works */
    int x = me;
    MPI_Win_fence(0, win2);
    MPI_Put(&x, 1, MPI_INT, (me + 1) % tap_size, 0, 1, MPI_INT, win2);
    MPI_Win_fence(0, win2);
    TAP_CHECK(buf[0] == (me + tap_size - 1) % tap_size, "put on a window with attributes: %d", buf[0]);

    MPI_Win to_free = win;
    rc = MPI_Win_free(&win);
    TAP_CHECK(rc == MPI_SUCCESS && dlog.calls == 3, "win_free: rc %d, %d delete calls", rc, dlog.calls);
    expect_delete(2, to_free, k1_saved, &vals[3], "MPI_Win_free");
    to_free = win2;
    MPI_Win_free(&win2);
    TAP_CHECK(dlog.calls == 4, "second win_free: %d delete calls", dlog.calls);
    expect_delete(3, to_free, k1_saved, &vals[2], "MPI_Win_free of the second window");
    TAP_CHECK(copy_calls == 0, "copy callback called %d times", copy_calls);
    MPI_Win_free_keyval(&k2);
    tap_ok("MPI_Win_free calls delete for each attribute still set; copy never called");

    return tap_done();
}
