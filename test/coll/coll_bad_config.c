/*
 * coll_bad_config: a bad RMAIB_COLL_* value (testlist: the variable named by BAD)
 * leaves the collectives to the host MPI, which a line says (on some rank's
 * stderr), and every result is still right: MPI_Allreduce (int SUM, 1000
 * elements), MPI_Allgather and MPI_Alltoall (64 ints a block) checked element by
 * element, with no "served by rmaib" line on any rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../rma/tap.h"

enum { N = 1000, B = 64 };

int main(int argc, char **argv)
{
    FILE *logf = tmpfile();
    int saved = dup(2);
    if (!logf || saved < 0 || dup2(fileno(logf), 2) < 0)
        return 99;
    tap_init(&argc, &argv);
    int p = tap_size, me = tap_rank;
    int *s = malloc(sizeof(int) * N), *r = malloc(sizeof(int) * N);
    int *gs = malloc(sizeof(int) * B * (size_t) p), *gr = malloc(sizeof(int) * B * (size_t) p);
    for (int i = 0; i < N; i++)
        s[i] = me * 1000 + i;
    MPI_Allreduce(s, r, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        TAP_CHECK(r[i] == 1000 * p * (p - 1) / 2 + p * i, "allreduce element %d: %d", i, r[i]);
    for (int i = 0; i < B; i++)
        gs[i] = me * B + i;
    MPI_Allgather(gs, B, MPI_INT, gr, B, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < B * p; i++)
        TAP_CHECK(gr[i] == i, "allgather element %d: %d", i, gr[i]);
    for (int i = 0; i < B * p; i++)
        gs[i] = me * 100000 + i;
    MPI_Alltoall(gs, B, MPI_INT, gr, B, MPI_INT, MPI_COMM_WORLD);
    for (int k = 0; k < p; k++)
        for (int i = 0; i < B; i++)
            TAP_CHECK(gr[k * B + i] == k * 100000 + me * B + i, "alltoall from %d, element %d",
                      k, i);
    fflush(stderr);
    static char buf[1 << 16];
    ssize_t n = pread(fileno(logf), buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    const char *bad = getenv("BAD");
    int named = bad && strstr(buf, bad) != NULL, any = 0;
    MPI_Allreduce(&named, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TAP_CHECK(any, "no rank's stderr names %s", bad ? bad : "(BAD unset)");
    TAP_CHECK(strstr(buf, "served by rmaib") == NULL, "rmaib served a call with a bad %s",
              bad ? bad : "(BAD unset)");
    fflush(stderr);
    dup2(saved, 2);
    tap_ok("a bad %s: the host serves, results right", bad ? bad : "(BAD unset)");
    free(s), free(r), free(gs), free(gr);
    return tap_done();
}
