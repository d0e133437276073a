/*
 * Window error handlers: MPI_Win_create_errhandler, MPI_Win_set_errhandler,
 * MPI_Win_get_errhandler and MPI_Win_call_errhandler.
 *  - a new window has MPI_ERRORS_ARE_FATAL;
 *  - get returns what was set (and a handle the caller frees);
 *  - call_errhandler invokes the user handler once, with the window and the code
 *    (a predefined class, and a user-added code of a user-added class);
 *  - the handler is per window: another window's handler is not called;
 *  - an erroneous RMA call (target rank out of range) reaches the user handler with
 *    that window and a code of class MPI_ERR_RANK;
 *  - the handler survives MPI_Errhandler_free while it is set.
 */
#include "tap.h"
#include "errcheck.h"

static int calls, last_code;
static MPI_Win last_win;

static void handler(MPI_Win *win, int *code, ...)
{
    calls++;
    last_win = *win;
    last_code = *code;
}

static int other_calls;

static void other_handler(MPI_Win *win, int *code, ...)
{
    (void) win;
    (void) code;
    other_calls++;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int np = tap_size, buf[4];
    MPI_Win win, win2;
    MPI_Errhandler eh, eh2, got;
    void *base;

    MPI_Win_create(buf, sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_allocate(sizeof buf, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win2);
    MPI_Win_get_errhandler(win, &got);
    TAP_CHECK(got == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&got);
    tap_ok("a new window has MPI_ERRORS_ARE_FATAL");

    int rc = MPI_Win_create_errhandler(handler, &eh);
    rc |= MPI_Win_create_errhandler(other_handler, &eh2);
    rc |= MPI_Win_set_errhandler(win, eh);
    rc |= MPI_Win_set_errhandler(win2, eh2);
    TAP_CHECK(rc == MPI_SUCCESS, "create/set errhandler failed");
    MPI_Win_get_errhandler(win, &got);
    TAP_CHECK(got == eh, "get_errhandler does not return the handler set");
    MPI_Errhandler_free(&got);
    MPI_Win_get_errhandler(win2, &got);
    TAP_CHECK(got == eh2, "get_errhandler of the second window does not return its handler");
    MPI_Errhandler_free(&got);
    tap_ok("create_errhandler, set_errhandler, get_errhandler");

    calls = 0;
    rc = MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    TAP_CHECK(calls == 1, "handler called %d times", calls);
    TAP_CHECK(last_win == win, "handler got another window");
    TAP_CHECK(last_code == MPI_ERR_OTHER, "handler got code %d, want MPI_ERR_OTHER", last_code);
    TAP_CHECK(other_calls == 0, "the other window's handler was called");
    tap_ok("call_errhandler invokes the user handler with the window and MPI_ERR_OTHER");

    int cls, code, gotcls;
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "rmaib test: a user error code");
    calls = 0;
    MPI_Win_call_errhandler(win, code);
    MPI_Error_class(last_code, &gotcls);
    TAP_CHECK(calls == 1 && last_code == code && gotcls == cls,
              "user code: %d calls, code %d (want %d), class %d (want %d)", calls, last_code, code,
              gotcls, cls);
    MPI_Win_call_errhandler(win2, code);
    TAP_CHECK(other_calls == 1 && calls == 1, "call on the second window: %d / %d calls",
              other_calls, calls);
    tap_ok("call_errhandler with a user-added code; handlers are per window");

    /* a real error in an RMA call goes to the window's handler */
    calls = 0;
    last_win = MPI_WIN_NULL;
    int x = 1;
    MPI_Win_lock_all(0, win);
    MPI_Put(&x, 1, MPI_INT, np, 0, 1, MPI_INT, win);      /* rank out of range */
    MPI_Win_unlock_all(win);
    MPI_Error_class(last_code, &gotcls);
    TAP_CHECK(calls == 1, "bad put: handler called %d times", calls);
    TAP_CHECK(last_win == win, "bad put: handler got another window");
    TAP_CHECK(gotcls == MPI_ERR_RANK, "bad put: class %s, want MPI_ERR_RANK", errclass_name(gotcls));
    tap_ok("an erroneous MPI_Put reaches the window's user handler with MPI_ERR_RANK");

    MPI_Errhandler_free(&eh);
    TAP_CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free did not set MPI_ERRHANDLER_NULL");
    calls = 0;
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    TAP_CHECK(calls == 1, "after Errhandler_free the set handler was called %d times", calls);
    MPI_Errhandler_free(&eh2);
    MPI_Win_free(&win);
    MPI_Win_free(&win2);
    tap_ok("a handler freed while set still runs");
    return tap_done();
}
