/*
 * Bad arguments to the collectives rmaib serves get the class the standard names,
 * through the communicator's error handler (set to MPI_ERRORS_RETURN here), and
 * leave the communicator usable: a good call after each bad one still works.
 * Every rank makes the same bad call, so none is left waiting.
 */
#include "coll_check.h"
#include "../rma/errcheck.h"

static void after(const char *what)
{
    int one = 1, sum = 0;
    int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TAP_CHECK(rc == MPI_SUCCESS && sum == tap_size, "allreduce after %s: %d, sum %d", what, rc,
              sum);
}

static void expect(int rc, int cls, const char *what)
{
    TAP_CHECK(errclass_of(rc) == cls, "%s: got %s, want %s", what,
              errclass_name(errclass_of(rc)), errclass_name(cls));
    after(what);
}

/* More sent than received: rmaib hands the call to the host MPI, whose receives
 * truncate.  Where the network may start, or where the ranks outnumber the cores of
 * their one host (MPICH's blocking waits would spin), rmaib runs host collectives in
 * their non-blocking form, and MPICH 4.0.2's MPI_Wait on those drops the truncation
 * (MPI does not require it detected): there the call must only return and leave
 * the communicator usable.  That failed schedule is also never freed, which
 * LeakSanitizer reports as MPICH's leak.  (Less sent than received is never
 * detected.) */
static void truncation(int *s, int *r)
{
    const char *tp = getenv("RMAIB_TRANSPORT");
    int strict = tp && strcmp(tp, "shm") == 0 && tap_size <= sysconf(_SC_NPROCESSORS_ONLN), rc;
#ifdef __SANITIZE_ADDRESS__
    if (!strict) {
        tap_skip("allgather and alltoall sending more than the receive count",
                 "MPICH 4.0.2 leaks a truncated non-blocking collective's schedule");
        return;
    }
#endif
    rc = MPI_Alltoall(s, 2, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    expect(strict || rc != MPI_SUCCESS ? rc : MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE,
           "alltoall of 2 ints into 1");
    rc = MPI_Allgather(s, 2, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD);
    expect(strict || rc != MPI_SUCCESS ? rc : MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE,
           "allgather of 2 ints into 1");
    tap_ok("allgather and alltoall sending more than the receive count: MPI_ERR_TRUNCATE%s",
           strict ? "" : " or (host's non-blocking form) success");
}

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; i++)
        ((int *) inout)[i] += ((int *) in)[i];
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int s[64] = { 0 }, r[64 * 16], rc;
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);

    expect(MPI_Allreduce(s, r, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allreduce count -1");
    expect(MPI_Allreduce(s, r, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "allreduce MPI_DATATYPE_NULL");
    expect(MPI_Allreduce(s, r, 1, uncommitted, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "allreduce uncommitted type");
    expect(MPI_Allreduce(s, r, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce MPI_OP_NULL");
    expect(MPI_Allreduce(s, r, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce BAND on doubles");
    expect(MPI_Allreduce(s, r, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce MPI_REPLACE");
    expect(MPI_Allreduce(s, s, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "allreduce with aliased buffers");
    expect(MPI_Allreduce(s, r, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce MAXLOC on MPI_INT");
    expect(MPI_Allreduce(s, r, 1, MPI_FLOAT, MPI_LAND, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce LAND on MPI_FLOAT");
    expect(MPI_Allreduce(s, r, 1, MPI_INT, MPI_NO_OP, MPI_COMM_WORLD), MPI_ERR_OP,
           "allreduce MPI_NO_OP");
    expect(MPI_Allreduce(MPI_IN_PLACE, r, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allreduce in place, count -1");
    tap_ok("allreduce: bad count, type, op and aliased buffers get their classes");

    /* MPI_IN_PLACE is a send buffer only (MPI-3.1 §5.2.1); writing to it would crash. */
    expect(MPI_Allreduce(s, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "allreduce into MPI_IN_PLACE");
    expect(MPI_Allgather(s, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "allgather into MPI_IN_PLACE");
    expect(MPI_Alltoall(s, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_BUFFER,
           "alltoall into MPI_IN_PLACE");
    expect(MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD),
           MPI_ERR_BUFFER, "alltoall from and into MPI_IN_PLACE");
    tap_ok("MPI_IN_PLACE as a receive buffer gets MPI_ERR_BUFFER");

    truncation(s, r);

    expect(MPI_Allgather(s, -1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allgather send count -1");
    expect(MPI_Allgather(s, 1, MPI_INT, r, -2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "allgather receive count -2");
    expect(MPI_Allgather(s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "allgather MPI_DATATYPE_NULL");
    expect(MPI_Alltoall(s, -1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
           "alltoall count -1");
    expect(MPI_Alltoall(s, 1, MPI_INT, r, 1, uncommitted, MPI_COMM_WORLD), MPI_ERR_TYPE,
           "alltoall uncommitted type");
    tap_ok("allgather and alltoall: bad counts and types get their classes");

    rc = MPI_Allreduce(s, r, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "allreduce on MPI_COMM_NULL: %s",
              errclass_name(errclass_of(rc)));
    rc = MPI_Allgather(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "allgather on MPI_COMM_NULL: %s",
              errclass_name(errclass_of(rc)));
    rc = MPI_Alltoall(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_NULL);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "alltoall on MPI_COMM_NULL: %s",
              errclass_name(errclass_of(rc)));
    tap_ok("MPI_COMM_NULL gets MPI_ERR_COMM");

    /* The non-blocking forms check the same arguments before they start anything. */
    MPI_Request req;
    expect(MPI_Iallreduce(s, r, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
           "iallreduce count -1");
    expect(MPI_Iallreduce(s, r, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD, &req), MPI_ERR_OP,
           "iallreduce MAXLOC on MPI_INT");
    expect(MPI_Iallreduce(s, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req),
           MPI_ERR_BUFFER, "iallreduce into MPI_IN_PLACE");
    expect(MPI_Iallgather(s, 1, MPI_DATATYPE_NULL, r, 1, MPI_INT, MPI_COMM_WORLD, &req),
           MPI_ERR_TYPE, "iallgather MPI_DATATYPE_NULL");
    expect(MPI_Ialltoall(s, -1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, &req), MPI_ERR_COUNT,
           "ialltoall count -1");
    rc = MPI_Iallreduce(s, r, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL, &req);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "iallreduce on MPI_COMM_NULL: %s",
              errclass_name(errclass_of(rc)));
    rc = MPI_Ibarrier(MPI_COMM_NULL, &req);
    TAP_CHECK(errclass_of(rc) == MPI_ERR_COMM, "ibarrier on MPI_COMM_NULL: %s",
              errclass_name(errclass_of(rc)));
    tap_ok("the non-blocking forms: bad count, type, op, buffer and communicator");

    /* A user-defined op goes to the host, which must still get it right. */
    MPI_Op mine;
    MPI_Op_create(user_sum, 1, &mine);
    int v[3] = { tap_rank, 1, 2 * tap_rank }, w[3] = { -1, -1, -1 };
    rc = MPI_Allreduce(v, w, 3, MPI_INT, mine, MPI_COMM_WORLD);
    int want = tap_size * (tap_size - 1) / 2;
    TAP_CHECK(rc == MPI_SUCCESS && w[0] == want && w[1] == tap_size && w[2] == 2 * want,
              "user op through the host: rc %d, %d %d %d", rc, w[0], w[1], w[2]);
    MPI_Op_free(&mine);
    MPI_Type_free(&uncommitted);
    tap_ok("a user-defined op is served by the host, correctly");
    return tap_done();
}
