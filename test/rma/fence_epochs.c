/*
 * fence_epochs: MPI_Win_fence separates epochs exactly, however many there are.
 *
 *  - 10,000 fence epochs back to back (env FENCE_EPOCHS overrides): in epoch e every
 *    rank puts e into its right neighbour's word, and checks its own word after the
 *    fence.  MPI_MODE_NOPRECEDE opens the series, MPI_MODE_NOSUCCEED closes it;
 *  - 1,000 empty epochs, then one with data;
 *  - MPI_MODE_NOSTORE / MPI_MODE_NOPUT / MPI_MODE_NOPRECEDE / MPI_MODE_NOSUCCEED in
 *    combinations a correct program may use (put epoch, get-only epoch, local stores
 *    between epochs, a get-only epoch of those stores);
 *  - misuse, with MPI_ERRORS_RETURN: a put after a fence with MPI_MODE_NOSUCCEED, and
 *    MPI_Win_lock while a fence epoch with operations is open, both return
 *    MPI_ERR_RMA_SYNC and change nothing at the target.  (The standard calls these
 *    programs erroneous; rmaib detects them, other MPIs need not.)
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

static MPI_Win win;
static int64_t *base;
static int right, left;

static void many_epochs(int epochs)
{
    /* Epoch e writes word e%2: the neighbour's put of epoch e+1 may land while I still
     * check epoch e (it needs only my fence call, not its return), so it goes to the
     * other word, and nothing writes word e%2 again before my next fence. */
    int bad = 0;
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), "MPI_Win_fence(NOPRECEDE)");
    for (int e = 1; e <= epochs; e++) {
        int64_t ev = e;
        EXPECT_OK(MPI_Put(&ev, 1, MPI_INT64_T, right, e % 2, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_fence(e == epochs ? MPI_MODE_NOSUCCEED : 0, win), "MPI_Win_fence");
        int64_t got = load64(base + e % 2);
        if (got != e && bad++ < 1)
            tap_fail("after the fence closing epoch %d word %d holds %lld", e, e % 2,
                     (long long) got);
    }
    TAP_CHECK(bad == 0, "%d of %d epochs had the wrong value", bad, epochs);
    tap_ok("%d fence epochs back to back, a put in each, data checked after each", epochs);
}

/* n empty epochs (no operation anywhere), then one with a put: nothing may land during
 * the empty ones, and the put after them must. */
static void empty_epochs(int n)
{
    int64_t v = 424242 + tap_rank;
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), "MPI_Win_fence(NOPRECEDE)");
    for (int i = 0; i < n; i++) {
        EXPECT_OK(MPI_Win_fence(0, win), "MPI_Win_fence");
        /* The last fence opens the epoch in which the neighbour puts: from then on the
         * word may change under us, so it is checked only after the earlier ones. */
        if (i < n - 1 && load64(base + 6) != 0) {
            tap_fail("word changed to %lld during empty epoch %d", (long long) load64(base + 6),
                     i);
            break;
        }
    }
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 6, 1, MPI_INT64_T, win), "MPI_Put");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence(NOSUCCEED)");
    TAP_CHECK(load64(base + 6) == 424242 + left, "after %d empty epochs the put left %lld",
              n, (long long) load64(base + 6));
    tap_ok("%d empty fence epochs, then one with data", n);
}

static void assertions(void)
{
    int64_t v = 7000 + tap_rank, got = -1, got2 = -1;

    /* A put epoch, then a get-only epoch: no local stores in either (NOSTORE), no
     * put into my window in the second (NOPUT). */
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE, win), "fence(NOPRECEDE|NOSTORE)");
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 2, 1, MPI_INT64_T, win), "MPI_Put");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win), "fence(NOSTORE|NOPUT)");
    EXPECT_OK(MPI_Get(&got, 1, MPI_INT64_T, left, 2, 1, MPI_INT64_T, win), "MPI_Get");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win),
         "fence(NOSTORE|NOPUT|NOSUCCEED)");
    TAP_CHECK(load64(base + 2) == 7000 + left, "put epoch left %lld",
              (long long) load64(base + 2));
    /* left's word 2 holds what left's own left neighbour put there. */
    int ll = (left + tap_size - 1) % tap_size;
    TAP_CHECK(got == 7000 + ll, "get-only epoch read %lld, expected %d", (long long) got,
              7000 + ll);

    /* Local stores outside any epoch, then an epoch that only reads them: the fence
     * opening it may not say NOSTORE, it may say NOPUT and NOPRECEDE. */
    store64(base + 3, 8000 + tap_rank);
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOPUT, win), "fence(NOPRECEDE|NOPUT)");
    EXPECT_OK(MPI_Get(&got2, 1, MPI_INT64_T, right, 3, 1, MPI_INT64_T, win), "MPI_Get");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE, win), "fence(NOSUCCEED|NOSTORE)");
    TAP_CHECK(got2 == 8000 + right, "get of a local store read %lld, expected %d",
              (long long) got2, 8000 + right);

    /* All assertions at once on an empty epoch. */
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win),
         "fence(NOPRECEDE|NOSTORE|NOPUT)");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOSTORE | MPI_MODE_NOPUT, win),
         "fence(NOSUCCEED|NOSTORE|NOPUT)");
    tap_ok("MPI_MODE_NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED in correct combinations");
}

static void misuse(void)
{
    int64_t v = 9000 + tap_rank, old;
    int rc;

    /* A put after the series was closed with NOSUCCEED. */
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), "MPI_Win_fence(NOPRECEDE)");
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence(NOSUCCEED)");
    old = load64(base + 4);
    rc = MPI_Put(&v, 1, MPI_INT64_T, right, 4, 1, MPI_INT64_T, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Put after fence(NOSUCCEED)");
    if (rc == MPI_SUCCESS) {            /* an MPI that let it through: close it properly */
        MPI_Win_lock_all(0, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(rc == MPI_SUCCESS || load64(base + 4) == old,
              "the rejected put changed the target word to %lld", (long long) load64(base + 4));
    tap_ok("misuse: MPI_Put after MPI_Win_fence(MPI_MODE_NOSUCCEED) -> MPI_ERR_RMA_SYNC");

    /* MPI_Win_lock inside a fence epoch that has operations. */
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win), "MPI_Win_fence(NOPRECEDE)");
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, 5, 1, MPI_INT64_T, win), "MPI_Put");
    rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Win_lock inside a fence epoch");
    if (rc == MPI_SUCCESS)
        MPI_Win_unlock(right, win);
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence(NOSUCCEED)");
    TAP_CHECK(load64(base + 5) == 9000 + left, "the fence epoch's put left %lld, expected %d",
              (long long) load64(base + 5), 9000 + left);
    tap_ok("misuse: MPI_Win_lock inside an open fence epoch -> MPI_ERR_RMA_SYNC, "
           "the epoch still completes");
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    right = (tap_rank + 1) % tap_size;
    left = (tap_rank + tap_size - 1) % tap_size;
    win = win_allocate_zeroed(8 * sizeof(int64_t), sizeof(int64_t), NULL, &base);

    double t0 = now_s();
    many_epochs(tap_env_int("FENCE_EPOCHS", 10000));
    TAP_DIAG("fence epochs took %.2f s", now_s() - t0);
    empty_epochs(1000);
    assertions();
    misuse();

    MPI_Win_free(&win);
    return tap_done();
}
