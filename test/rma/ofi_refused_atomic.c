/*
 * ofi_refused_atomic (white-box): a control-word atomic that the target cannot
 * apply fails at the origin, once, and leaves the window working.  rmaib's own
 * code never sends one (the core computes every control offset), so the test calls
 * the window's atomics transport directly, with an offset far outside the target's
 * control block:
 *  - an answered request (a fetch-add whose result is wanted) returns an error;
 *  - a one-way request (a fetch-add nobody waits for, as an unlock's release) may
 *    return at once; then its refusal must surface, as MPI_ERR_OTHER, at the call
 *    that next completes the origin's operations on that target, once an answered
 *    request sent after it has come back (the target serves one origin in order).
 *    That call is, in turn, MPI_Win_flush, MPI_Win_unlock of an exclusive lock,
 *    MPI_Win_unlock_all and MPI_Win_fence;
 *  - either way the error is reported exactly once: the same epoch opened and
 *    closed again without a bad request succeeds;
 *  - a call that reports the error still does its synchronisation: the lock is
 *    released (the next lock of the same target is granted), the fence's barrier
 *    is passed (the peers' fences return), and a put in the next fence epoch lands;
 *  - an answered read of the target's accumulate lock word, sent behind the bad
 *    request, returns 0 (nobody holds it);
 *  - afterwards exclusive locks, fetch-and-op and accumulate give exact results,
 *    and MPI_Win_free succeeds;
 *  - on a second window, a refused one-way request with no call after it fails
 *    MPI_Win_free, which still frees the window (the handle becomes
 *    MPI_WIN_NULL), and a third window moves data.
 * Through the ofi backend's mailbox (tcp;ofi_rxm's default, net) the target
 * refuses the request; with the provider's atomics (RMAIB_OFI_ATOMICS=provider) the
 * provider rejects the address.  Where control-word atomics go through shared
 * memory (the shm pass) there is no remote check to make, and the test skips.
 * Each rank aims at its right neighbour, so every rank is origin and target.
 */
#include "tap.h"
#include "rmaib_win.h"
#include "../../src/binding/mpi/handles.h"

#define ROUNDS 20

/* Far beyond any control block, and 8-byte aligned. */
static const size_t BAD_OFF = (size_t) 1 << 40;

enum { BY_FLUSH, BY_UNLOCK, BY_UNLOCK_ALL, BY_FENCE, NCLOSE };
static const char *const close_name[NCLOSE] = {
    "MPI_Win_flush", "MPI_Win_unlock", "MPI_Win_unlock_all", "MPI_Win_fence"
};

static int open_epoch(int how, int right, MPI_Win win)
{
    switch (how) {
    case BY_FLUSH:
    case BY_UNLOCK_ALL:
        return MPI_Win_lock_all(0, win);
    case BY_UNLOCK:
        return MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    default:
        return MPI_Win_fence(0, win);
    }
}

/* Close the epoch open_epoch opened; for BY_FLUSH, flush then unlock_all, and the
 * flush's return is the one given. */
static int close_epoch(int how, int right, MPI_Win win)
{
    int rc;
    switch (how) {
    case BY_FLUSH:
        rc = MPI_Win_flush(right, win);
        return MPI_Win_unlock_all(win) == MPI_SUCCESS ? rc : MPI_ERR_INTERN;
    case BY_UNLOCK:
        return MPI_Win_unlock(right, win);
    case BY_UNLOCK_ALL:
        return MPI_Win_unlock_all(win);
    default:
        return MPI_Win_fence(0, win);
    }
}

static int err_class(int rc)
{
    int cls = MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    long *base;
    MPI_Win win;
    MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 8; i++)
        base[i] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    rmaib_mpi_win_t *bw = rmaib_mpi_win_lookup(win);
    rmaib_win_t *w = bw ? bw->core : NULL;
    TAP_CHECK(w != NULL, "no rmaib window behind the handle");
    tap_ok("the rmaib window is found behind the handle");
    int over_ofi = w && w->atp == &rmaib_ofi_ops, all_ofi = 0;
    MPI_Allreduce(&over_ofi, &all_ofi, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ofi) {
        const char *why = "control-word atomics go through shared memory here";
        tap_skip("an answered request the target refuses fails", why);
        for (int how = 0; how < NCLOSE; how++)
            tap_skip(close_name[how], why);
        tap_skip("the window works after the refusals", why);
        tap_skip("MPI_Win_free", why);
        MPI_Win_free(&win);
        return tap_done();
    }

    for (int r = 0; r < ROUNDS; r++) {
        uint64_t old = 12345;
        int rc = w->atp->ctrl_atomic(w, right, BAD_OFF, RMAIB_AOP_FADD, 1, 0, &old);
        TAP_CHECK(rc != RMAIB_OK, "round %d: the refused fetch-add returned RMAIB_OK (old %llu)",
                  r, (unsigned long long) old);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    tap_ok("an answered request the target refuses fails (%d rounds)", ROUNDS);

    for (int how = 0; how < NCLOSE; how++) {
        int deferred = 0;
        for (int r = 0; r < ROUNDS / NCLOSE; r++) {
            TAP_CHECK(open_epoch(how, right, win) == MPI_SUCCESS, "round %d: opening failed", r);
            int rc = w->atp->ctrl_atomic(w, right, BAD_OFF, RMAIB_AOP_FADD, 1, 0, NULL);
            uint64_t word = 99;
            int rc_read = w->atp->ctrl_atomic(w, right, RMAIB_CTRL_OFF(acc_lock), RMAIB_AOP_READ,
                                              0, 0, &word);
            TAP_CHECK(rc_read == RMAIB_OK && word == 0,
                      "round %d: reading the target's accumulate lock gave rc %d, value %llu", r,
                      rc_read, (unsigned long long) word);
            int cls = err_class(close_epoch(how, right, win));
            deferred += rc == RMAIB_OK;
            if (rc == RMAIB_OK)
                TAP_CHECK(cls == MPI_ERR_OTHER, "round %d: the one-way request returned OK, "
                          "then closing gave class %d, want MPI_ERR_OTHER", r, cls);
            else
                TAP_CHECK(cls == MPI_SUCCESS, "round %d: the one-way request failed at once, "
                          "and closing failed too (class %d)", r, cls);
            /* The same epoch again, without a bad request: nothing left to report, and
             * the lock or the barrier of the failed close was let go. */
            TAP_CHECK(open_epoch(how, right, win) == MPI_SUCCESS, "round %d: reopening failed",
                      r);
            cls = err_class(close_epoch(how, right, win));
            TAP_CHECK(cls == MPI_SUCCESS, "round %d: the error was reported twice (class %d)", r,
                      cls);
        }
        if (how == BY_FENCE) {
            long v = 1000 + me;
            MPI_Win_fence(0, win);
            MPI_Put(&v, 1, MPI_LONG, right, 2, 1, MPI_LONG, win);
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
            TAP_CHECK(base[2] == 1000 + left, "the put after the fences left %ld, want %d", base[2],
                      1000 + left);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        tap_ok("a refused one-way request fails %s once, which still synchronises "
               "(%d rounds, %d deferred)", close_name[how], ROUNDS / NCLOSE, deferred);
    }

    /* Every rank adds to its right neighbour's element 0 under an exclusive lock and
     * fetches what was there, then accumulates into element 1. */
    int ok = 1;
    for (int r = 0; r < ROUNDS; r++) {
        long one = 1, got = -1;
        ok &= MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win) == MPI_SUCCESS;
        ok &= MPI_Fetch_and_op(&one, &got, MPI_LONG, right, 0, MPI_SUM, win) == MPI_SUCCESS;
        ok &= MPI_Accumulate(&one, 1, MPI_LONG, right, 1, 1, MPI_LONG, MPI_SUM, win)
            == MPI_SUCCESS;
        ok &= MPI_Win_unlock(right, win) == MPI_SUCCESS;
        TAP_CHECK(got == r, "round %d: fetch-and-op fetched %ld", r, got);
    }
    TAP_CHECK(ok, "a lock, fetch-and-op, accumulate or unlock failed");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    TAP_CHECK(base[0] == ROUNDS && base[1] == ROUNDS, "element 0 holds %ld, 1 holds %ld, want %d",
              base[0], base[1], ROUNDS);
    MPI_Win_unlock(me, win);
    TAP_CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "MPI_Win_free failed");
    tap_ok("the window works after the refusals: locks, fetch-and-op, accumulate, free");

    MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    w = rmaib_mpi_win_lookup(win)->core;
    int rc = w->atp->ctrl_atomic(w, right, BAD_OFF, RMAIB_AOP_FADD, 1, 0, NULL);
    int cls = err_class(MPI_Win_free(&win));
    if (rc == RMAIB_OK)
        TAP_CHECK(cls == MPI_ERR_OTHER, "MPI_Win_free after a one-way refusal gave class %d, "
                  "want MPI_ERR_OTHER", cls);
    else
        TAP_CHECK(cls == MPI_SUCCESS, "MPI_Win_free after a failed one-way request gave %d", cls);
    TAP_CHECK(win == MPI_WIN_NULL, "MPI_Win_free left the handle set");
    long src = 2000 + me, got = -1;
    MPI_Win_allocate(8 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    base[3] = -1;
    MPI_Win_fence(0, win);
    MPI_Put(&src, 1, MPI_LONG, right, 3, 1, MPI_LONG, win);
    MPI_Win_fence(0, win);
    MPI_Get(&got, 1, MPI_LONG, left, 3, 1, MPI_LONG, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    TAP_CHECK(base[3] == 2000 + left && got == 2000 + (left + np - 1) % np,
              "the next window holds %ld and got %ld", base[3], got);
    TAP_CHECK(MPI_Win_free(&win) == MPI_SUCCESS, "freeing the next window failed");
    tap_ok("MPI_Win_free reports a refused one-way request left in flight, and frees the "
           "window; the next window moves data");
    return tap_done();
}
