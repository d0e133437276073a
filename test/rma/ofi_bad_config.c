/*
 * ofi_bad_config: a configuration rmaib cannot honour makes window creation fail with
 * an MPI error class, on every rank, without a crash or a hang, and leaves the rest of
 * MPI working.  The testlist runs it with
 *  - RMAIB_TRANSPORT=ofi RMAIB_OFI_PROVIDER=no-such-provider EXPECT=other: no provider
 *    fits, MPI_ERR_OTHER (rmaib's message names the provider and says why);
 *  - RMAIB_ASYNC_PROGRESS=maybe EXPECT=arg: not one of auto, 0, 1, MPI_ERR_ARG;
 *  - RMAIB_OFI_ATOMICS=provider EXPECT=other over net, which has no atomics:
 *    MPI_ERR_OTHER;
 *  - PROVIDER_BY_RANK=A,B EXPECT=other: rank r sets RMAIB_OFI_PROVIDER to the
 *    (r mod 2)-th name before MPI_Init (its rank from the launcher's environment), so
 *    ranks run different providers: MPI_ERR_OTHER, not a hang.
 * Each of MPI_Win_allocate, MPI_Win_create and MPI_Win_create_dynamic is tried twice
 * (the second attempt must fail the same way, not half-succeed), with
 * MPI_ERRORS_RETURN on the communicator.
 */
#include "tap.h"

/* PROVIDER_BY_RANK: this rank's provider, before rmaib reads its variables. */
static void provider_by_rank(void)
{
    const char *list = getenv("PROVIDER_BY_RANK");
    const char *r = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
    if (!list || !r)
        return;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    char *comma = strchr(buf, ',');
    if (comma) {
        *comma = 0;
        setenv("RMAIB_OFI_PROVIDER", atoi(r) % 2 ? comma + 1 : buf, 1);
    }
}

int main(int argc, char **argv)
{
    provider_by_rank();
    tap_init(&argc, &argv);
    const char *e = getenv("EXPECT");
    int want = e && strcmp(e, "arg") == 0 ? MPI_ERR_ARG : MPI_ERR_OTHER;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    static const char *const what[] = { "MPI_Win_allocate", "MPI_Win_create", "MPI_Win_create_dynamic" };
    long mem[8] = { 0 };

    for (int f = 0; f < 3; f++) {
        for (int attempt = 0; attempt < 2; attempt++) {
            MPI_Win win = MPI_WIN_NULL;
            void *base = NULL;
            int rc = f == 0 ? MPI_Win_allocate(64, 8, MPI_INFO_NULL, comm, &base, &win)
                : f == 1 ? MPI_Win_create(mem, sizeof mem, 8, MPI_INFO_NULL, comm, &win)
                : MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win);
            int cls = MPI_SUCCESS;
            if (rc != MPI_SUCCESS)
                MPI_Error_class(rc, &cls);
            TAP_CHECK(cls == want, "%s attempt %d returned class %d, want %d", what[f], attempt + 1,
                      cls, want);
            TAP_CHECK(win == MPI_WIN_NULL || rc == MPI_SUCCESS, "%s failed but set a window",
                      what[f]);
            if (rc == MPI_SUCCESS && win != MPI_WIN_NULL)
                MPI_Win_free(&win);
        }
        tap_ok("%s fails twice with %s on every rank", what[f],
               want == MPI_ERR_ARG ? "MPI_ERR_ARG" : "MPI_ERR_OTHER");
    }

    /* The rest of MPI is untouched. */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    TAP_CHECK(sum == tap_size, "allreduce gave %d", sum);
    tap_ok("point-to-point and collectives still work afterwards");
    MPI_Comm_free(&comm);
    return tap_done();
}
