/*
 * rmaib, not the host, serves the collectives it takes over, with the algorithm
 * forced (testlist: RMAIB_VERBOSE=1 RMAIB_COLL_ALLREDUCE=rsag
 * RMAIB_COLL_ALLGATHER=bruck): each rank catches its own stderr in a file and
 * finds there the RMAIB_VERBOSE line of each path, and the host's line for the
 * call rmaib leaves to it (a user-defined op).  The Fortran pair types are rmaib's
 * too: MINLOC on MPI_2REAL and MPI_2DOUBLE_PRECISION, on a communicator of their
 * own so that its first line is theirs (where the MPI has them: MPICH built without
 * Fortran, as the netmod's is, names them MPI_DATATYPE_NULL).  In the netmod,
 * MPICH's binding serves a 1-rank call before any hook: no line to find there.
 */
#include <stdio.h>
#include <unistd.h>
#include "coll_check.h"

static void user_max(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; i++)
        if (((int *) in)[i] > ((int *) inout)[i])
            ((int *) inout)[i] = ((int *) in)[i];
}

/* Does the file hold a line containing want? */
static int has_line(FILE *f, const char *want)
{
    char line[512];
    rewind(f);
    while (fgets(line, sizeof line, f))
        if (strstr(line, want))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    FILE *log = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(log), 2);

    int s[64], r[64 * 16], one = tap_rank, got = -1;
    for (int i = 0; i < 64; i++)
        s[i] = tap_rank + i;
    MPI_Allreduce(s, r, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allgather(s, 2, MPI_INT, r, 2, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Op op;
    MPI_Op_create(user_max, 1, &op);
    MPI_Allreduce(&one, &got, 1, MPI_INT, op, MPI_COMM_WORLD);
    MPI_Op_free(&op);

    fflush(stderr);
    FILE *flog = tmpfile();
    dup2(fileno(flog), 2);
#ifdef RMAIB_TEST_NETMOD
    int lines = tap_size > 1;
#else
    int lines = 1;
#endif
    int pairs = MPI_2REAL != MPI_DATATYPE_NULL && MPI_2DOUBLE_PRECISION != MPI_DATATYPE_NULL;
    float fs[2] = { 1.0f, (float) tap_rank }, fr[2] = { 1.0f, 0.0f };
    double ds[2] = { 1.0, (double) tap_rank }, dr[2] = { 1.0, 0.0 };
    if (pairs) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Allreduce(fs, fr, 1, MPI_2REAL, MPI_MINLOC, dup);
        MPI_Allreduce(ds, dr, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, dup);
        MPI_Comm_free(&dup);
    }
    fflush(stderr);
    dup2(saved, 2);
    TAP_CHECK(fr[0] == 1.0f && fr[1] == 0.0f && dr[0] == 1.0 && dr[1] == 0.0,
              "MINLOC of equal values gave index %g and %g, want 0", fr[1], dr[1]);
    TAP_CHECK(!pairs || !lines
              || (has_line(flog, "MPI_Allreduce on") && !has_line(flog, "served by the host")),
              "MPI_2REAL/MPI_2DOUBLE_PRECISION MINLOC not served by rmaib");
    fclose(flog);
    TAP_CHECK(got == tap_size - 1, "user-op allreduce gave %d", got);
    char want[128];
    const char *alg = tap_size == 1 ? "local" : "rsag";
    snprintf(want, sizeof want, "MPI_Allreduce on %d ranks served by rmaib, algorithm %s",
             tap_size, alg);
    TAP_CHECK(!lines || has_line(log, want), "no line \"%s\"", want);
    snprintf(want, sizeof want, "MPI_Allgather on %d ranks served by rmaib, algorithm %s",
             tap_size, tap_size == 1 ? "local" : "bruck");
    TAP_CHECK(!lines || has_line(log, want), "no line \"%s\"", want);
    TAP_CHECK(!lines || has_line(log, "MPI_Alltoall on"), "no MPI_Alltoall line");
    TAP_CHECK(!lines || has_line(log, "MPI_Allreduce served by the host MPI"),
              "the user-defined op was not left to the host");
    fclose(log);
    tap_ok("rmaib serves its collectives with the forced algorithms, the Fortran pairs "
           "too, the host a user op");
    return tap_done();
}
