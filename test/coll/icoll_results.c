/*
 * MPI_Iallreduce, MPI_Iallgather, MPI_Ialltoall and MPI_Ibarrier with the
 * algorithms the testlist forces: every size class from 0 elements to past a
 * window slot, out of place and MPI_IN_PLACE, several calls in flight at once,
 * each element against the serial reference; the barrier against puts every
 * rank made before it.
 */
#include <stdlib.h>
#include "coll_check.h"

/* MPI_Waitall with a real status array: gcc 12 warns (stringop-overflow) on
 * MPI_STATUSES_IGNORE against MPICH's prototype. */
static int waitall(int n, MPI_Request *req)
{
    MPI_Status *st = malloc((size_t) (n > 0 ? n : 1) * sizeof *st);
    int rc = MPI_Waitall(n, req, st);
    free(st);
    return rc;
}

static const size_t counts[] = { 0, 1, 3, 64, 700, 9000, 70000 };
#define NCOUNTS (sizeof counts / sizeof counts[0])

/* Every count at once, in flight together, for one type and op. */
static void iallreduce(const ctype_t *t, MPI_Op op, int in_place)
{
    void *s[NCOUNTS], *r[NCOUNTS];
    MPI_Request req[NCOUNTS];
    for (size_t k = 0; k < NCOUNTS; k++) {
        size_t n = counts[k];
        s[k] = malloc(n * t->size + 1);
        r[k] = malloc(n * t->size + 1);
        for (size_t i = 0; i < n; i++)
            cput(in_place ? r[k] : s[k], i, t->kind, cval(op, tap_rank, i));
        int rc = MPI_Iallreduce(in_place ? MPI_IN_PLACE : s[k], r[k], (int) n, t->dt, op,
                                MPI_COMM_WORLD, &req[k]);
        TAP_CHECK(rc == MPI_SUCCESS, "iallreduce of %zu returned %d", n, rc);
    }
    waitall((int) NCOUNTS, req);
    for (size_t k = 0; k < NCOUNTS; k++) {
        ccheck(r[k], counts[k], t, op, tap_size, in_place ? "in place" : "out of place");
        free(s[k]);
        free(r[k]);
    }
}

static unsigned char byte_of(int from, int to, size_t i)
{
    return (unsigned char) (from * 31 + to * 7 + i * 13 + (i >> 8));
}

static const size_t blocks[] = { 0, 1, 8, 100, 4096, 70000 };
#define NBLOCKS (sizeof blocks / sizeof blocks[0])

/* kind 0: allgather, 1: alltoall; every block size in flight together. */
static void iblocks(int kind, int in_place)
{
    int me = tap_rank, p = tap_size;
    unsigned char *s[NBLOCKS], *r[NBLOCKS];
    MPI_Request req[NBLOCKS];
    for (size_t k = 0; k < NBLOCKS; k++) {
        size_t n = blocks[k], all = (size_t) p * n;
        s[k] = malloc(all + 1);
        r[k] = malloc(all + 1);
        memset(r[k], 0xee, all);
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++)
                s[k][(size_t) q * n + i] = byte_of(me, kind ? q : 0, i);
        if (in_place)
            memcpy(kind ? r[k] : r[k] + (size_t) me * n, s[k], kind ? all : n);
        const void *sb = in_place ? MPI_IN_PLACE : s[k];
        int rc = kind ? MPI_Ialltoall(sb, (int) n, MPI_BYTE, r[k], (int) n, MPI_BYTE,
                                      MPI_COMM_WORLD, &req[k])
            : MPI_Iallgather(sb, (int) n, MPI_BYTE, r[k], (int) n, MPI_BYTE, MPI_COMM_WORLD,
                             &req[k]);
        TAP_CHECK(rc == MPI_SUCCESS, "call of %zu returned %d", n, rc);
    }
    waitall((int) NBLOCKS, req);
    for (size_t k = 0; k < NBLOCKS; k++) {
        size_t n = blocks[k];
        for (int q = 0; q < p; q++)
            for (size_t i = 0; i < n; i++)
                if (r[k][(size_t) q * n + i] != byte_of(q, kind ? me : 0, i)) {
                    tap_fail("%s %zu: byte %zu from rank %d is %d", kind ? "alltoall"
                             : "allgather", n, i, q, r[k][(size_t) q * n + i]);
                    q = p;
                    break;
                }
        free(s[k]);
        free(r[k]);
    }
}

/* Round k: every rank puts k into its word at every rank, flushes, then the
 * barrier; after it every rank must see k from all. */
static void ibarrier(int rounds)
{
    int p = tap_size;
    long long *w;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint) (sizeof *w * (size_t) p), sizeof *w, MPI_INFO_NULL,
                     MPI_COMM_WORLD, &w, &win);
    memset(w, 0, sizeof *w * (size_t) p);
    MPI_Win_lock_all(0, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (long long k = 1; k <= rounds; k++) {
        for (int q = 0; q < p; q++)
            MPI_Put(&k, 1, MPI_LONG_LONG, q, tap_rank, 1, MPI_LONG_LONG, win);
        MPI_Win_flush_all(win);
        MPI_Request req;
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MPI_Win_sync(win);
        for (int q = 0; q < p; q++)
            TAP_CHECK(w[q] >= k, "round %lld: rank %d's put not there (%lld)", k, q, w[q]);
        /* Nobody puts k + 1 before everyone has read k. */
        MPI_Ibarrier(MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    static const MPI_Op ops[] = { MPI_SUM, MPI_MAX, MPI_PROD };
    for (int t = 0; t < 5; t++)
        for (int o = 0; o < 3; o++) {
            if (ops[o] == MPI_PROD && ctypes[t].kind == K_UINT8)
                continue;
            iallreduce(&ctypes[t], ops[o], 0);
            iallreduce(&ctypes[t], ops[o], 1);
            tap_ok("iallreduce %s on %s, 0 to 70000 elements, 7 in flight, both placements",
                   ops[o] == MPI_SUM ? "SUM" : ops[o] == MPI_MAX ? "MAX" : "PROD",
                   ctypes[t].name);
        }
    for (int kind = 0; kind < 2; kind++) {
        iblocks(kind, 0);
        iblocks(kind, 1);
        tap_ok("%s, blocks of 0 to 70000 bytes, 6 in flight, both placements",
               kind ? "ialltoall" : "iallgather");
    }
    ibarrier(50);
    tap_ok("ibarrier: 50 rounds, every rank's flushed puts visible after it");
    return tap_done();
}
