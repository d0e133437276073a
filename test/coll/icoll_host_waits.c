/*
 * A rank that waits in the host MPI still runs rmaib's non-blocking collectives
 * (MPI's progress rule).  Each case starts MPI_Iallreduce on every rank; rank 0
 * then waits for a message from rank 1 in one of the host's waits (MPI_Recv, an
 * MPI_Test loop, MPI_Waitsome, MPI_Probe, MPI_Wait on an MPI_Irecv), and rank 1
 * sends it only after its own MPI_Wait on the allreduce has returned, which needs
 * rank 0's part of the schedule.  Without progress there the case hangs and the
 * watchdog fails it.  8 bytes and 1 MiB (the single-copy path within a node);
 * every element against the reference.
 */
#include <stdlib.h>
#include <string.h>
#include "coll_check.h"

enum { BIG = 1 << 17 };
enum { W_RECV, W_TEST, W_WAITSOME, W_PROBE, W_WAIT, NWAYS };
static const char *const ways[NWAYS] = { "MPI_Recv", "MPI_Test loop", "MPI_Waitsome",
                                         "MPI_Probe", "MPI_Wait on MPI_Irecv" };

/* Rank 0's wait for rank 1's token, the host's way `w`. */
static void host_wait(int w, int *token)
{
    MPI_Request rr;
    MPI_Status st;
    int flag = 0, n = 0, idx[1];
    switch (w) {
    case W_RECV:
        MPI_Recv(token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case W_TEST:
        MPI_Irecv(token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rr);
        while (!flag)
            MPI_Test(&rr, &flag, MPI_STATUS_IGNORE);
        break;
    case W_WAITSOME:
        MPI_Irecv(token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rr);
        while (n == 0)
            MPI_Waitsome(1, &rr, &n, idx, &st);
        break;
    case W_PROBE:
        MPI_Probe(1, 7, MPI_COMM_WORLD, &st);
        MPI_Recv(token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    default:
        MPI_Irecv(token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rr);
        MPI_Wait(&rr, MPI_STATUS_IGNORE);
        break;
    }
}

static void one_case(int w, size_t count, double *s, double *r)
{
    int me = tap_rank, p = tap_size, token = -1;
    for (size_t i = 0; i < count; i++) {
        s[i] = (double) cval(MPI_SUM, me, i);
        r[i] = -1;
    }
    MPI_Request req;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iallreduce(s, r, (int) count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
    if (me == 0) {
        host_wait(w, &token);
        TAP_CHECK(token == 1000 + w, "%s: token %d, want %d", ways[w], token, 1000 + w);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (me == 1) {
        token = 1000 + w;
        MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
    ccheck(r, count, &ctypes[K_DOUBLE], MPI_SUM, p, ways[w]);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    if (tap_size < 2) {
        tap_skip("rank 0 waiting in the host for rank 1", "one rank");
        return tap_done();
    }
    double *s = malloc(BIG * sizeof *s), *r = malloc(BIG * sizeof *r);
    for (int w = 0; w < NWAYS; w++)
        for (size_t count = 1; count <= BIG; count *= BIG) {
            one_case(w, count, s, r);
            tap_ok("rank 0 in %s while rank 1 waits on MPI_Iallreduce (%zu doubles)",
                   ways[w], count);
        }
    free(s);
    free(r);
    return tap_done();
}
