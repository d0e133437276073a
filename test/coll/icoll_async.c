/*
 * The schedule thread (RMAIB_ASYNC_PROGRESS=1): a rank that starts a
 * non-blocking collective and then stays out of MPI still does its part.  Each
 * round one rank (in turn) starts MPI_Iallreduce (1 MiB of doubles, many window
 * slots), MPI_Iallgather and MPI_Ialltoall (64 KiB blocks, single copy where the
 * shm pass allows it), then makes no MPI call until every other rank has
 * finished its MPI_Waitall and checked its results, which they can only do if
 * the away rank's thread moved its part; the others tell it so through files.
 * Then it waits and checks its own.  Every element against the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "coll_check.h"

enum { COUNT = 1 << 17, BLOCK = 65536, ROUNDS = 4 };

static char dir[256];

static void marker(char *path, size_t n, int round, int rank)
{
    snprintf(path, n, "%s/done.%d.%d", dir, round, rank);
}

/* Outside MPI until every rank but `away` has left its marker for `round`. */
static void stay_away(int round, int away)
{
    char path[300];
    for (int r = 0; r < tap_size; r++) {
        if (r == away)
            continue;
        marker(path, sizeof path, round, r);
        struct timespec ts = { 0, 200000 };
        while (access(path, F_OK) != 0)
            nanosleep(&ts, NULL);
    }
}

static void check_blocks(const unsigned char *rb, int a2a, const char *what)
{
    for (int src = 0; src < tap_size; src++)
        for (size_t i = 0; i < BLOCK; i++) {
            /* alltoall: block me of src's send buffer; allgather: src's block */
            unsigned char want = (unsigned char) (src * 31 + (a2a ? tap_rank * 7 : 0) + i % 251);
            if (rb[(size_t) src * BLOCK + i] != want) {
                tap_fail("%s: byte %zu from rank %d is %d, want %d", what, i, src,
                         rb[(size_t) src * BLOCK + i], want);
                return;
            }
        }
}

static void round_trip(int round, int away, double *s, double *r, unsigned char *gs,
                       unsigned char *gr, unsigned char *as, unsigned char *ar)
{
    int p = tap_size, me = tap_rank;
    for (size_t i = 0; i < COUNT; i++) {
        s[i] = (double) cval(MPI_SUM, me, i);
        r[i] = -1;
    }
    for (size_t i = 0; i < BLOCK; i++)
        gs[i] = (unsigned char) (me * 31 + i % 251);
    for (int d = 0; d < p; d++)
        for (size_t i = 0; i < BLOCK; i++)
            as[(size_t) d * BLOCK + i] = (unsigned char) (me * 31 + d * 7 + i % 251);
    memset(gr, 0xff, (size_t) p * BLOCK);
    memset(ar, 0xff, (size_t) p * BLOCK);
    MPI_Request req[3];
    MPI_Status st[3];
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iallreduce(s, r, COUNT, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req[0]);
    MPI_Iallgather(gs, BLOCK, MPI_BYTE, gr, BLOCK, MPI_BYTE, MPI_COMM_WORLD, &req[1]);
    MPI_Ialltoall(as, BLOCK, MPI_BYTE, ar, BLOCK, MPI_BYTE, MPI_COMM_WORLD, &req[2]);
    if (me == away)
        stay_away(round, away);
    MPI_Waitall(3, req, st);
    ccheck(r, COUNT, &ctypes[K_DOUBLE], MPI_SUM, p, "iallreduce");
    check_blocks(gr, 0, "iallgather");
    check_blocks(ar, 1, "ialltoall");
    if (me != away) {
        char path[300];
        marker(path, sizeof path, round, me);
        int fd = open(path, O_CREAT | O_WRONLY, 0600);
        TAP_CHECK(fd >= 0, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    const char *a = getenv("RMAIB_ASYNC_PROGRESS");
    if (!a || strcmp(a, "1") != 0) {
        tap_skip("a rank away from MPI", "RMAIB_ASYNC_PROGRESS is not 1");
        return tap_done();
    }
    if (tap_rank == 0) {
        const char *t = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/icoll_async.XXXXXX", t ? t : "/tmp");
        if (!mkdtemp(dir))
            dir[0] = 0;
    }
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!dir[0]) {
        tap_skip("a rank away from MPI", "no temporary directory");
        return tap_done();
    }
    int p = tap_size;
    double *s = malloc(COUNT * sizeof *s), *r = malloc(COUNT * sizeof *r);
    unsigned char *gs = malloc(BLOCK), *gr = malloc((size_t) p * BLOCK);
    unsigned char *as = malloc((size_t) p * BLOCK), *ar = malloc((size_t) p * BLOCK);
    for (int round = 0; round < ROUNDS; round++)
        round_trip(round, round % p, s, r, gs, gr, as, ar);
    tap_ok("%d rounds, one rank away from MPI each: iallreduce 1 MiB, iallgather and "
           "ialltoall 64 KiB blocks, every element", ROUNDS);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char path[300];
        for (int round = 0; round < ROUNDS; round++)
            for (int q = 0; q < p; q++) {
                marker(path, sizeof path, round, q);
                unlink(path);
            }
        rmdir(dir);
    }
    free(s);
    free(r);
    free(gs);
    free(gr);
    free(as);
    free(ar);
    return tap_done();
}
