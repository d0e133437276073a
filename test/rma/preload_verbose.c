/*
 * rmaib is in charge of the MPI RMA calls when the program runs with LD_PRELOAD of
 * librmaib-mpi (testlist: preload=1 RMAIB_VERBOSE=1):
 *  - LD_PRELOAD names librmaib-mpi;
 *  - the symbol rmaib_init is found with dlsym(RTLD_DEFAULT, ...);
 *  - MPI_Put and MPI_Win_allocate resolve to librmaib-mpi (dladdr), not to the
 *    host MPI's own definitions;
 *  - a window created with RMAIB_VERBOSE=1 moves data: every rank puts into its
 *    right neighbour and gets it back.
 * On a stock MPICH without rmaib the first three fail: that is expected.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include "tap.h"
#include "pattern.h"

#define N 128

static void resolves_to_rmaib(const char *name)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    Dl_info info;
    TAP_CHECK(sym != NULL, "%s not found", name);
    if (sym && dladdr(sym, &info) && info.dli_fname)
        TAP_CHECK(strstr(info.dli_fname, "rmaib") != NULL, "%s resolves to %s", name, info.dli_fname);
    else
        TAP_CHECK(0, "dladdr(%s) failed", name);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    const char *pre = getenv("LD_PRELOAD"), *verbose = getenv("RMAIB_VERBOSE");

    if (me == 0)
        printf("# LD_PRELOAD=%s RMAIB_VERBOSE=%s\n", pre ? pre : "(unset)",
               verbose ? verbose : "(unset)");
#ifdef RMAIB_TEST_OMPI
    const char *lib = "rmaib-ompi";
#else
    const char *lib = "rmaib-mpi";
#endif
    TAP_CHECK(pre && strstr(pre, lib), "LD_PRELOAD does not name lib%s: %s", lib,
              pre ? pre : "(unset)");
    tap_ok("LD_PRELOAD names lib%s", lib);

    TAP_CHECK(dlsym(RTLD_DEFAULT, "rmaib_init") != NULL, "dlsym(rmaib_init) is NULL: rmaib is not loaded");
    tap_ok("rmaib_init is visible with dlsym(RTLD_DEFAULT)");

    resolves_to_rmaib("MPI_Put");
    resolves_to_rmaib("MPI_Win_allocate");
    tap_ok("MPI_Put and MPI_Win_allocate resolve to librmaib-mpi");

    int *base, src[N], got[N];
    MPI_Win win;
    int rc = MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_allocate returned %d", rc);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
    fill_int(base, N, SENT_INT);
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        src[i] = pat(me, right, 0, i);
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(src + 1, N - 2, MPI_INT, right, 1, N - 2, MPI_INT, win);
    MPI_Win_flush(right, win);
    fill_int(got, N, SENT_INT);
    rc |= MPI_Get(got, N, MPI_INT, right, 0, N, MPI_INT, win);
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "put/get returned an error");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    for (int i = 0; i < N; i++) {
        int want = i == 0 || i == N - 1 ? SENT_INT : pat(left, me, 0, i);
        TAP_CHECK(base[i] == want, "window int %d is %#x, want %#x", i, (unsigned) base[i],
                  (unsigned) want);
        want = i == 0 || i == N - 1 ? SENT_INT : src[i];
        TAP_CHECK(got[i] == want, "got int %d = %#x, want %#x", i, (unsigned) got[i], (unsigned) want);
    }
    MPI_Win_unlock(me, win);
    MPI_Win_free(&win);
    tap_ok("a window under rmaib: put to the right neighbour lands, get reads it back");
    return tap_done();
}
