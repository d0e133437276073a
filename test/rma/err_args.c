/*
 * Bad arguments to RMA calls return the right error class (window error handler
 * MPI_ERRORS_RETURN), write nothing, and leave the window usable:
 *  - target rank out of range (nranks, -5) for Put, Get, Rput, Win_lock and
 *    Win_flush: MPI_ERR_RANK;
 *  - negative origin or target count: MPI_ERR_COUNT;
 *  - MPI_DATATYPE_NULL and an uncommitted derived type, on either side: MPI_ERR_TYPE;
 *  - lock type 12345: MPI_ERR_LOCKTYPE;
 *  - assert bits 0x12345 to Win_lock, Win_lock_all and Win_fence: MPI_ERR_ASSERT.
 *
 * Stock MPICH 4.0.2 differs on the last two: it returns MPI_ERR_ARG for the bad lock
 * type and for all three bad asserts.  rmaib must return MPI_ERR_LOCKTYPE and
 * MPI_ERR_ASSERT, the classes the standard provides for them (the netmod pass, where
 * MPICH's checks come first, accepts MPI_ERR_ARG: errcheck.h's EXPECT_CLASS_OR).
 */
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"

#define N 16

static int me, np, right, round_no;
static int *base;

static void nothing_written(MPI_Win win, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    long i = find_not_int(base, N, SENT_INT);
    TAP_CHECK(i < 0, "after %s: window int %ld was written", what, i);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    right = (me + 1) % np;
    int x[N], rc;
    for (int i = 0; i < N; i++)
        x[i] = pat(me, 0, 99, i);
    MPI_Request req;
    MPI_Win win;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    fill_int(base, N, SENT_INT);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* target rank out of range */
    MPI_Win_lock_all(0, win);
    const int bad_ranks[] = { np, -5 };
    for (int k = 0; k < 2; k++) {
        int t = bad_ranks[k];
        rc = MPI_Put(x, 1, MPI_INT, t, 0, 1, MPI_INT, win);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Put to rank %d", t);
        rc = MPI_Get(x, 1, MPI_INT, t, 0, 1, MPI_INT, win);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Get from rank %d", t);
        req = MPI_REQUEST_NULL;
        rc = MPI_Rput(x, 1, MPI_INT, t, 0, 1, MPI_INT, win, &req);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Rput to rank %d", t);
        if (rc == MPI_SUCCESS)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        rc = MPI_Win_flush(t, win);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Win_flush of rank %d", t);
    }
    MPI_Win_unlock_all(win);
    for (int k = 0; k < 2; k++) {
        rc = MPI_Win_lock(MPI_LOCK_SHARED, bad_ranks[k], 0, win);
        EXPECT_CLASS(rc, MPI_ERR_RANK, "MPI_Win_lock of rank %s", k ? "-5" : "nranks");
        if (rc == MPI_SUCCESS)
            MPI_Win_unlock(bad_ranks[k], win);
    }
    nothing_written(win, "bad ranks");
    tap_ok("target rank nranks and -5: MPI_ERR_RANK, nothing written");
    window_still_works(win, base, N, ++round_no, "bad ranks");

    /* negative counts */
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(x, -1, MPI_INT, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_COUNT, "MPI_Put with origin count -1");
    rc = MPI_Put(x, 1, MPI_INT, right, 0, -1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_COUNT, "MPI_Put with target count -1");
    rc = MPI_Get(x, -3, MPI_INT, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_COUNT, "MPI_Get with origin count -3");
    rc = MPI_Get(x, 1, MPI_INT, right, 0, -3, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_COUNT, "MPI_Get with target count -3");
    MPI_Win_unlock_all(win);
    nothing_written(win, "negative counts");
    tap_ok("negative origin or target count: MPI_ERR_COUNT, nothing written");
    window_still_works(win, base, N, ++round_no, "negative counts");

    /* null and uncommitted datatypes */
    MPI_Datatype raw;
    MPI_Type_vector(2, 1, 2, MPI_INT, &raw);            /* never committed */
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(x, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Put with origin MPI_DATATYPE_NULL");
    rc = MPI_Put(x, 1, MPI_INT, right, 0, 1, MPI_DATATYPE_NULL, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Put with target MPI_DATATYPE_NULL");
    rc = MPI_Get(x, 1, MPI_DATATYPE_NULL, right, 0, 1, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Get with origin MPI_DATATYPE_NULL");
    rc = MPI_Put(x, 1, raw, right, 0, 2, MPI_INT, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Put with an uncommitted origin type");
    rc = MPI_Put(x, 2, MPI_INT, right, 0, 1, raw, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Put with an uncommitted target type");
    rc = MPI_Get(x, 2, MPI_INT, right, 0, 1, raw, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Get with an uncommitted target type");
    MPI_Win_unlock_all(win);
    MPI_Type_free(&raw);
    nothing_written(win, "bad datatypes");
    tap_ok("MPI_DATATYPE_NULL and uncommitted types: MPI_ERR_TYPE, nothing written");
    window_still_works(win, base, N, ++round_no, "bad datatypes");

    rc = MPI_Win_lock(12345, right, 0, win);
    EXPECT_CLASS_OR(rc, MPI_ERR_LOCKTYPE, MPI_ERR_ARG, "MPI_Win_lock with lock type 12345");
    if (rc == MPI_SUCCESS)
        MPI_Win_unlock(right, win);
    tap_ok("lock type 12345: MPI_ERR_LOCKTYPE");
    window_still_works(win, base, N, ++round_no, "a bad lock type");

    rc = MPI_Win_lock(MPI_LOCK_SHARED, right, 0x12345, win);
    EXPECT_CLASS_OR(rc, MPI_ERR_ASSERT, MPI_ERR_ARG, "MPI_Win_lock with assert 0x12345");
    if (rc == MPI_SUCCESS)
        MPI_Win_unlock(right, win);
    rc = MPI_Win_lock_all(0x12345, win);
    EXPECT_CLASS_OR(rc, MPI_ERR_ASSERT, MPI_ERR_ARG, "MPI_Win_lock_all with assert 0x12345");
    if (rc == MPI_SUCCESS)
        MPI_Win_unlock_all(win);
    rc = MPI_Win_fence(0x12345, win);
    EXPECT_CLASS_OR(rc, MPI_ERR_ASSERT, MPI_ERR_ARG, "MPI_Win_fence with assert 0x12345");
    if (rc == MPI_SUCCESS)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    tap_ok("assert 0x12345 to lock, lock_all, fence: MPI_ERR_ASSERT");
    window_still_works(win, base, N, ++round_no, "bad asserts");

    MPI_Win_free(&win);
    return tap_done();
}
