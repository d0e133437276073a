/*
 * win_many: windows are made until the host MPI refuses one, with rank 0 holding
 * more communicators than the others, so that it runs out first.  rmaib gives each
 * window a local handle from the host (a window on MPI_COMM_SELF, which in MPICH
 * takes one of a process's 2048 context ids), so a creation can fail on one rank
 * only; window creation is collective, and then:
 *  - every rank fails the same call, with the same error class, through the
 *    communicator's error handler (a rank that failed alone used to wait in the
 *    collective free of rmaib's part of the window while the others went on);
 *  - the windows made before it still work, and once one is freed the next is made.
 * Every window checked (the first, the last, the one made after a free) takes a
 * fetch-and-op on the right neighbour, which must return the number the neighbour
 * stored in it.  Under MPICH the limit comes at about 2040 windows, below the 4096
 * windows a process keeps mailboxes for over ofi, so those do not run out.
 */
#include "tap.h"
#include "errcheck.h"

enum { CAP = 4200, RANK0_EXTRA_COMMS = 5 };

/* Fetch-and-op +1 on the right neighbour's word of win, which holds want. */
static void check_fop(MPI_Win win, int64_t want, const char *which)
{
    const int64_t one = 1;
    int64_t old = -1;
    int peer = (tap_rank + 1) % tap_size;
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), "MPI_Win_lock");
    EXPECT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, peer, 0, MPI_SUM, win), "MPI_Fetch_and_op");
    EXPECT_OK(MPI_Win_unlock(peer, win), "MPI_Win_unlock");
    TAP_CHECK(old == want, "fetch-and-op on the %s window returned %lld, expected %lld", which,
              (long long) old, (long long) want);
}

/* A window whose word holds i; the error class on failure. */
static int make(MPI_Win *win, int64_t i)
{
    int64_t *base = NULL;
    int rc = MPI_Win_allocate(sizeof(int64_t), sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                              &base, win);
    if (rc != MPI_SUCCESS)
        return errclass_of(rc);
    *base = i;
    return MPI_SUCCESS;
}

/* Whether v is the same on every rank. */
static int same_everywhere(int v)
{
    int lo = 0, hi = 0;
    MPI_Allreduce(&v, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return lo == hi;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    MPI_Win *wins = malloc(sizeof(MPI_Win) * CAP);
    MPI_Comm extra[RANK0_EXTRA_COMMS];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (tap_rank == 0)
        for (int i = 0; i < RANK0_EXTRA_COMMS; i++)
            EXPECT_OK(MPI_Comm_dup(MPI_COMM_SELF, &extra[i]), "MPI_Comm_dup");

    int made = 0, cls = MPI_SUCCESS;
    while (made < CAP && (cls = make(&wins[made], made)) == MPI_SUCCESS)
        made++;
    /* A creation that failed here only would leave the peers on to the next window's
     * allgather, and the collectives below would pair wrongly or hang. */
    TAP_CHECK(same_everywhere(made), "the ranks made different numbers of windows (here %d)",
              made);
#ifdef RMAIB_TEST_OMPI
    /* Open MPI 4.1 has room for more windows on MPI_COMM_SELF than CAP. */
    if (made == CAP)
        tap_skip("the next window refused on every rank", "Open MPI made every window asked for");
    else
#endif
    {
        TAP_CHECK(made < CAP, "the host made all of %d windows; no limit met", CAP);
        TAP_CHECK(cls != MPI_SUCCESS && same_everywhere(cls), "the failed creation returned "
                  "class %s here, not one class on every rank", errclass_name(cls));
        tap_ok("%d windows made, the next refused on every rank with %s", made,
               errclass_name(cls));
    }

    if (made > 0) {
        check_fop(wins[0], 0, "first");
        check_fop(wins[made - 1], made - 1, "last");
    }
    tap_ok("fetch-and-op on the first and the last window returns the neighbour's value");

    if (made > 1) {
        const int64_t again = 7 * CAP;
        EXPECT_OK(MPI_Win_free(&wins[made / 2]), "MPI_Win_free");
        cls = make(&wins[made / 2], again);
        TAP_CHECK(cls == MPI_SUCCESS, "a window made after a free failed with class %s",
                  errclass_name(cls));
        EXPECT_OK(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        if (cls == MPI_SUCCESS)
            check_fop(wins[made / 2], again, "remade");
        else
            wins[made / 2] = MPI_WIN_NULL;
    }
    tap_ok("after one window is freed, the next is made and its fetch-and-op is exact");

    for (int i = 0; i < made; i++)
        if (wins[i] != MPI_WIN_NULL)
            EXPECT_OK(MPI_Win_free(&wins[i]), "MPI_Win_free");
    if (tap_rank == 0)
        for (int i = 0; i < RANK0_EXTRA_COMMS; i++)
            MPI_Comm_free(&extra[i]);
    free(wins);
    return tap_done();
}
