/*
 * Synchronisation misuse returns MPI_ERR_RMA_SYNC (window error handler set to
 * MPI_ERRORS_RETURN), and leaves the window usable:
 *  - MPI_Put, MPI_Get, MPI_Rput outside any epoch;
 *  - MPI_Win_unlock without a lock, MPI_Win_unlock_all without lock_all,
 *    MPI_Win_flush outside a passive epoch;
 *  - MPI_Win_lock twice on the same target; MPI_Win_lock_all inside a lock;
 *    MPI_Win_lock inside lock_all;
 *  - MPI_Win_complete without MPI_Win_start, MPI_Win_wait without MPI_Win_post;
 *  - MPI_Rput and MPI_Rget in a fence epoch (request-based operations need a
 *    passive-target epoch).
 * After each case a correct epoch moves data to the right neighbour and it is checked.
 *
 * Stock MPICH 4.0.2 differs on the last case: it accepts MPI_Rput and MPI_Rget in a
 * fence epoch (MPI_SUCCESS).  rmaib must return MPI_ERR_RMA_SYNC (MPI-3.1 §11.3.5).
 */
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"

#define N 16

static int me, np, right, round_no;
static int *mem;

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    right = (me + 1) % np;
    mem = malloc(N * sizeof(int));
    fill_int(mem, N, SENT_INT);
    int x[N] = { 0 }, rc;
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Win win;
    MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* no epoch has ever been opened on this window */
    rc = MPI_Put(x, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Put outside any epoch");
    rc = MPI_Get(x, 1, MPI_INT, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Get outside any epoch");
    rc = MPI_Rput(x, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Rput outside any epoch");
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(find_not_int(mem, N, SENT_INT) < 0, "a put outside any epoch wrote the window");
    tap_ok("Put, Get, Rput outside any epoch: MPI_ERR_RMA_SYNC, nothing written");
    window_still_works(win, mem, N, ++round_no, "operations outside an epoch");

    rc = MPI_Win_unlock(right, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_unlock without lock");
    rc = MPI_Win_unlock_all(win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without lock_all");
    rc = MPI_Win_flush(right, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_flush outside a passive epoch");
    tap_ok("unlock, unlock_all, flush without a lock: MPI_ERR_RMA_SYNC");
    window_still_works(win, mem, N, ++round_no, "unlock without lock");

    rc = MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    TAP_CHECK(rc == MPI_SUCCESS, "first lock returned %d", rc);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_lock twice on the same target");
    rc = MPI_Win_lock_all(0, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all inside a lock");
    rc = MPI_Win_unlock(right, win);
    TAP_CHECK(rc == MPI_SUCCESS, "unlock of the first lock returned %d", rc);
    tap_ok("lock twice on one target, lock_all inside lock: MPI_ERR_RMA_SYNC");
    window_still_works(win, mem, N, ++round_no, "double lock");

    rc = MPI_Win_lock_all(0, win);
    TAP_CHECK(rc == MPI_SUCCESS, "lock_all returned %d", rc);
    rc = MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_lock inside lock_all");
    rc = MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "unlock_all returned %d", rc);
    tap_ok("lock inside lock_all: MPI_ERR_RMA_SYNC");
    window_still_works(win, mem, N, ++round_no, "lock inside lock_all");

    rc = MPI_Win_complete(win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_complete without MPI_Win_start");
    rc = MPI_Win_wait(win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_wait without MPI_Win_post");
    tap_ok("complete without start, wait without post: MPI_ERR_RMA_SYNC");
    window_still_works(win, mem, N, ++round_no, "complete/wait without start/post");

    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    req = MPI_REQUEST_NULL;
    rc = MPI_Rput(x, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Rput in a fence epoch");
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    req = MPI_REQUEST_NULL;
    rc = MPI_Rget(x, 1, MPI_INT, right, 0, 1, MPI_INT, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Rget in a fence epoch");
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    tap_ok("Rput, Rget in a fence epoch: MPI_ERR_RMA_SYNC");
    window_still_works(win, mem, N, ++round_no, "Rput in a fence epoch");

    MPI_Win_free(&win);
    free(mem);
    return tap_done();
}
