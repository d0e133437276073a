/*
 * ofi_unreachable: a peer the provider stops taking posts for.  The testlist runs it
 * under fishim with FISHIM_EAGAIN_AFTER=0 in rank 0, whose every RMA and atomic post
 * then says -FI_EAGAIN, as a provider's full queue does to a peer that stopped
 * answering, and a short RMAIB_OFI_TIMEOUT.  Rank 0's exclusive lock on rank 1, a
 * put and a flush, and a fetch-and-op under lock_all must each fail with
 * MPI_ERR_OTHER through the window's error handler, which must have been called;
 * nothing may hang: not rank 0's unlocks and free, not rank 1, which only waits.
 * Without the bound the first of them spins for ever (the test's watchdog fires).
 */
#include "tap.h"

static int handler_calls, handler_class = MPI_SUCCESS;

static void on_error(MPI_Win *win, int *code, ...)
{
    (void) win;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

/* An MPI error code's class, and that the handler saw the same. */
static void expect_failed(const char *what, int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    TAP_CHECK(cls == MPI_ERR_OTHER, "%s returned class %d, not MPI_ERR_OTHER", what, cls);
    TAP_CHECK(handler_calls > 0 && handler_class == cls, "%s: the window's error handler was "
              "called %d times, last with class %d", what, handler_calls, handler_class);
    handler_calls = 0;
    handler_class = MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    MPI_Errhandler eh;
    MPI_Win win;
    int *base, one = 1, old = -1;
    MPI_Win_create_errhandler(on_error, &eh);
    MPI_Win_allocate(4096, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, eh);
    base[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0) {
        int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        if (rc == MPI_SUCCESS) {        /* (a lock taken at its first operation) */
            rc = MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(1, win);
            MPI_Win_unlock(1, win);
        }
        expect_failed("an exclusive lock, a put and a flush", rc);
        rc = MPI_Win_lock_all(0, win);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Fetch_and_op(&one, &old, MPI_INT, 1, 0, MPI_SUM, win);
            if (rc == MPI_SUCCESS)
                rc = MPI_Win_flush(1, win);
            MPI_Win_unlock_all(win);
        }
        expect_failed("a fetch-and-op under lock_all", rc);
    }
    tap_ok("rank 0's operations to a peer it cannot post to fail with MPI_ERR_OTHER "
           "through the error handler");
    MPI_Win_free(&win);
    MPI_Errhandler_free(&eh);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(base != NULL, "no window memory");
    tap_ok("the window frees and the job goes on");
    return tap_done();
}
