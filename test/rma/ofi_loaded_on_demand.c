/*
 * ofi_loaded_on_demand: libfabric is loaded by the first window that needs the
 * network, never before, so a job within one node never pays for it, and a missing
 * libfabric fails only the network window, clearly.  Run with RMAIB_NODE_SIZE=1 (each
 * rank a node of its own: a window on MPI_COMM_SELF stays within a node, one on
 * MPI_COMM_WORLD spans nodes) and EXPECT:
 *  - loaded: the world window works over ofi and libfabric is mapped after it;
 *  - missing (RMAIB_OFI_LIBRARY naming no file, RMAIB_COLL=off so that no collective
 *    window meets the failure first): the world window fails with MPI_ERR_OTHER on
 *    every rank, twice, and rmaib's line names libfabric and RMAIB_TRANSPORT=shm; the
 *    self window and the rest of MPI still work;
 *  - unneeded (no RMAIB_NODE_SIZE): every window is within the node, and nothing of
 *    libfabric is mapped at the end.
 * With EXPECT_PROVIDER=NAME (and RMAIB_VERBOSE=1) the world window's line must say
 * that provider serves (the automatic choice, with fishim imitating NAME).
 * Each case first checks that MPI_Init and a self window mapped no libfabric.
 */
#include <fcntl.h>
#include "tap.h"

/* Is a file of this name mapped into the process? */
static int mapped(const char *what)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return found;
}

/* A self window: a put and a get of a pattern, every byte checked. */
static void self_window(const char *when)
{
    enum { N = 256 };
    unsigned char *base, src[N], back[N];
    MPI_Win win;
    MPI_Win_allocate(N, 1, MPI_INFO_NULL, MPI_COMM_SELF, &base, &win);
    for (int i = 0; i < N; i++)
        src[i] = (unsigned char) (i * 7 + tap_rank + 1);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Put(src, N, MPI_BYTE, 0, 0, N, MPI_BYTE, win);
    MPI_Win_flush(0, win);
    MPI_Get(back, N, MPI_BYTE, 0, 0, N, MPI_BYTE, win);
    MPI_Win_unlock(0, win);
    for (int i = 0; i < N; i++)
        TAP_CHECK(back[i] == src[i], "%s: self window byte %d is %d, want %d", when, i, back[i],
                  src[i]);
    MPI_Win_free(&win);
}

/* A window on comm: each rank puts its pattern into its right neighbour, fenced. */
static int ring_window(MPI_Comm comm)
{
    enum { N = 64 };
    long *base, src[N];
    MPI_Win win;
    int rc = MPI_Win_allocate(N * sizeof(long), sizeof(long), MPI_INFO_NULL, comm, &base, &win);
    if (rc != MPI_SUCCESS)
        return rc;
    int right = (tap_rank + 1) % tap_size, left = (tap_rank + tap_size - 1) % tap_size;
    for (int i = 0; i < N; i++)
        src[i] = (long) tap_rank * 1000 + i;
    MPI_Win_fence(0, win);
    MPI_Put(src, N, MPI_LONG, right, 0, N, MPI_LONG, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < N; i++)
        TAP_CHECK(base[i] == (long) left * 1000 + i, "ring window element %d is %ld, want %ld", i,
                  base[i], (long) left * 1000 + i);
    MPI_Win_free(&win);
    return MPI_SUCCESS;
}

/* Run a failing window creation with stderr in a file, and return what it said. */
static int create_capturing(MPI_Comm comm, char *said, size_t len)
{
    char path[] = "/tmp/rmaib-ofi-load.XXXXXX";
    int fd = mkstemp(path), saved = dup(2);
    fflush(stderr);
    dup2(fd, 2);
    int rc = ring_window(comm);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, said, len - 1, 0);
    said[n > 0 ? n : 0] = 0;
    close(fd);
    unlink(path);
    return rc;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    const char *expect = getenv("EXPECT") ? getenv("EXPECT") : "unneeded";

    TAP_CHECK(!mapped("libfabric"), "libfabric is mapped after MPI_Init");
    self_window("before");
    TAP_CHECK(!mapped("libfabric"), "libfabric is mapped after a window within the node");
    tap_ok("MPI_Init and a window within the node load no libfabric");

    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (strcmp(expect, "missing") == 0) {
        static char said[8192];
        for (int attempt = 1; attempt <= 2; attempt++) {
            int rc = create_capturing(comm, said, sizeof said), cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            TAP_CHECK(cls == MPI_ERR_OTHER, "attempt %d: class %d, want MPI_ERR_OTHER", attempt,
                      cls);
            /* The line comes once per process, at the first failure. */
            if (attempt == 1)
                TAP_CHECK(strstr(said, "cannot load libfabric") && strstr(said, "libfabric.so")
                          && strstr(said, "RMAIB_TRANSPORT=shm"),
                          "rmaib's line does not name libfabric and RMAIB_TRANSPORT=shm: %.300s",
                          said);
        }
        tap_ok("a network window without libfabric fails twice with MPI_ERR_OTHER, saying why");
        self_window("after");
        int one = 1, sum = 0;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
        TAP_CHECK(sum == tap_size, "allreduce gave %d", sum);
        TAP_CHECK(!mapped("libfabric"), "libfabric is mapped after the failure");
        tap_ok("windows within the node and the rest of MPI still work");
    } else {
        static char said[8192];
        const char *prov = getenv("EXPECT_PROVIDER");
        int rc = prov ? create_capturing(comm, said, sizeof said) : ring_window(comm);
        TAP_CHECK(rc == MPI_SUCCESS, "the window on MPI_COMM_WORLD failed (%d)", rc);
        if (prov) {
            char want_line[128];
            snprintf(want_line, sizeof want_line, "ofi provider %s on ", prov);
            TAP_CHECK(strstr(said, want_line) != NULL, "rmaib did not pick %s: %.300s", prov,
                      said);
            tap_ok("with no RMAIB_OFI_PROVIDER the first provider of the list that is here "
                   "serves: %s", prov);
        }
        int want = strcmp(expect, "loaded") == 0;
        TAP_CHECK(mapped("libfabric") == want, "libfabric is %smapped after the world window",
                  want ? "not " : "");
        tap_ok("a window on MPI_COMM_WORLD %s", want ? "loads libfabric and moves its data"
               : "within the node loads no libfabric");
    }
    MPI_Comm_free(&comm);
    return tap_done();
}
