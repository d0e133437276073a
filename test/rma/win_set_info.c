/*
 * MPI_Win_set_info on rmaib's windows:
 *  - it succeeds on a window from each creator, with standard hints and rmaib's own;
 *  - rmaib_lock and mpi_assert_max_num_notify are fixed at creation: MPI_Win_get_info
 *    goes on reporting the values in use, and the window's locks keep working
 *    (every rank adds to a counter under an exclusive lock; the total is checked);
 *  - a standard hint the host keeps (accumulate_ordering) reads back as set;
 *  - MPI_WIN_NULL is MPI_ERR_WIN.
 */
#include <stdint.h>
#include "tap.h"
#include "errcheck.h"
#include "windows.h"
#include "mpix_rmaib.h"

#define ADDS 50

static int info_is(MPI_Info info, const char *key, const char *want)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    if (!flag || strcmp(val, want) != 0)
        tap_fail("info %s is %s, want %s", key, flag ? val : "(unset)", want);
    return flag && strcmp(val, want) == 0;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    for (int kind = 0; kind < 2; kind++) {
        const char *alg = "mcs", *other = "tas";
        MPI_Info info = lock_alg_info(alg);
        int64_t *base, mem = 0;
        MPI_Win win;
        if (kind == 0)
            MPI_Win_allocate(8, 8, info, MPI_COMM_WORLD, &base, &win);
        else
            MPI_Win_create(base = &mem, 8, 8, info, MPI_COMM_WORLD, &win);
        MPI_Info_free(&info);
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        self_begin(win, MPI_LOCK_EXCLUSIVE);
        *base = 0;
        self_end(win);
        MPI_Barrier(MPI_COMM_WORLD);    /* zeroed before any rank adds */

        MPI_Info set;
        MPI_Info_create(&set);
        MPI_Info_set(set, MPIX_RMAIB_INFO_LOCK, other);
        MPI_Info_set(set, MPIX_RMAIB_INFO_MAX_NOTIFY, "3");
        MPI_Info_set(set, "accumulate_ordering", "none");
        EXPECT_OK(MPI_Win_set_info(win, set), "MPI_Win_set_info");
        MPI_Info_free(&set);
        MPI_Info used;
        EXPECT_OK(MPI_Win_get_info(win, &used), "MPI_Win_get_info");
        info_is(used, MPIX_RMAIB_INFO_LOCK, alg);
#ifndef RMAIB_TEST_OMPI
        /* (Open MPI 4.1's osc/sm window under rmaib's handle reports no such hint
         * back, as MPI allows for one it does not use.) */
        info_is(used, "accumulate_ordering", "none");
#endif
        MPI_Info_free(&used);
        tap_ok("%s: MPI_Win_set_info keeps rmaib_lock=%s, records accumulate_ordering",
               win_kind_name[kind], alg);

        MPI_Barrier(MPI_COMM_WORLD);
        int64_t one = 1;
        for (int i = 0; i < ADDS; i++) {
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
            int64_t v = 0;
            MPI_Get(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
            MPI_Win_flush(0, win);
            v += one;
            MPI_Put(&v, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, win);
            MPI_Win_unlock(0, win);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 0) {
            self_begin(win, MPI_LOCK_SHARED);
            TAP_CHECK(*base == (int64_t) np * ADDS, "counter is %ld, want %ld", (long) *base,
                      (long) np * ADDS);
            self_end(win);
        }
        tap_ok("%s: after MPI_Win_set_info, exclusive locks still exclude (counter)",
               win_kind_name[kind]);
        MPI_Win_free(&win);
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    EXPECT_CLASS(MPI_Win_set_info(MPI_WIN_NULL, MPI_INFO_NULL), MPI_ERR_WIN,
                 "MPI_Win_set_info(MPI_WIN_NULL)");
    tap_ok("MPI_Win_set_info on MPI_WIN_NULL is MPI_ERR_WIN");
    return tap_done();
}
