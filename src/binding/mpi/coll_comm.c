/*
 * The collective state of a communicator, for the collective entry points
 * (coll.c): rmaib's collective window over a private duplicate, made at the
 * first collective rmaib serves on the communicator and freed with it (an
 * attribute's delete callback).  A per-thread one-entry cache in front of the
 * attribute keeps the lookup off the 8-byte path.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "base/config.h"
#include "coll.h"
#include "host.h"
#include "serve.h"
#include "rmaib_host.h"

static int coll_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t coll_lock = PTHREAD_MUTEX_INITIALIZER;
/* Grows at every delete: a cached entry from an older generation may name a
 * communicator handle that has since been freed and reused. */
static _Atomic unsigned coll_gen = 1;
static _Thread_local struct {
    MPI_Comm comm;
    unsigned gen;
    rmaib_mpi_coll_t *st;
} cache;

static int coll_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void) comm;
    (void) keyval;
    (void) extra;
    rmaib_mpi_coll_t *st = attr;
    atomic_fetch_add(&coll_gen, 1);
    /* Collective, as MPI_Comm_free and MPI_Finalize are: every rank frees its part. */
    if (st->core)
        rmaib_coll_free(st->core);
    if (st->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&st->dup);
    free(st);
    return MPI_SUCCESS;
}

/* Does rmaib serve comm's collectives?  Not intercommunicators, not when
 * RMAIB_COLL=off, not where the window could not be made (all ranks agree). */
static void make_core(rmaib_mpi_coll_t *st, MPI_Comm comm)
{
    const rmaib_coll_config_t *cfg;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    int bad = rmaib_coll_config(&cfg) != RMAIB_OK;     /* the value was named */
    if (inter || bad || !cfg->enabled) {
        st->why_host = inter ? "intercommunicator" : bad ? "bad RMAIB_COLL* value"
            : "RMAIB_COLL=off";
        return;
    }
    PMPI_Comm_rank(comm, &st->rank);
    PMPI_Comm_size(comm, &st->nranks);
    if (st->nranks == 1)
        return;                 /* served locally, no window needed */
    /* Its non-blocking form, waited for as the host waits of serve.c: peers may be
     * waiting on a schedule of ours (on another communicator) before they come
     * here, and a blocking dup would run none (MPICH's nonblocking3 hung so). */
    MPI_Request req;
    if (PMPI_Comm_idup(comm, &st->dup, &req) != MPI_SUCCESS
        || rmaib_mpi_host_wait(&req) != MPI_SUCCESS) {
        st->dup = MPI_COMM_NULL;
        st->why_host = "no duplicate communicator";
        return;
    }
    if (rmaib_coll_create(&st->dup, st->rank, st->nranks, &st->core) != RMAIB_OK)
        st->why_host = "no collective window";
}

static rmaib_mpi_coll_t *lookup_locked(MPI_Comm comm)
{
    rmaib_mpi_coll_t *st = NULL;
    int flag = 0;
    if (coll_keyval == MPI_KEYVAL_INVALID
        && PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, coll_delete, &coll_keyval,
                                   NULL) != MPI_SUCCESS)
        return NULL;
    if (PMPI_Comm_get_attr(comm, coll_keyval, &st, &flag) != MPI_SUCCESS)
        return NULL;
    if (flag)
        return st;
    if (!(st = calloc(1, sizeof *st)))
        return NULL;
    st->dup = MPI_COMM_NULL;
    rmaib_mpi_host_register();
    rmaib_init();
    make_core(st, comm);
    if (PMPI_Comm_set_attr(comm, coll_keyval, st) != MPI_SUCCESS) {
        coll_delete(comm, coll_keyval, st, NULL);
        return NULL;
    }
    return st;
}

rmaib_mpi_coll_t *rmaib_mpi_coll_slow(MPI_Comm comm)
{
    unsigned gen = atomic_load(&coll_gen);
    pthread_mutex_lock(&coll_lock);
    rmaib_mpi_coll_t *st = lookup_locked(comm);
    pthread_mutex_unlock(&coll_lock);
    if (st) {
        cache.comm = comm;
        cache.gen = gen;
        cache.st = st;
    }
    return st;
}

rmaib_mpi_coll_t *rmaib_mpi_coll_find(MPI_Comm comm)
{
    if (cache.st && cache.comm == comm
        && cache.gen == atomic_load_explicit(&coll_gen, memory_order_relaxed))
        return cache.st;
    return rmaib_mpi_coll_slow(comm);
}

/* Has st named path for call yet?  Paths are string constants, compared by address. */
static int said_before(rmaib_mpi_coll_t *st, const char *call, const char *path)
{
    const char *n = call + 4 + (call[4] == 'I');   /* MPI_[I]All[r|g|t]..., MPI_Ibarrier */
    int c = n[0] == 'b' ? 3 : n[3] == 'r' ? 0 : n[3] == 'g' ? 1 : 2;
    for (int i = 0; i < 4; i++) {
        if (st->said[c][i] == path)
            return 1;
        if (!st->said[c][i]) {
            st->said[c][i] = path;
            return 0;
        }
    }
    return 1;                   /* every slot taken: stay quiet */
}

void rmaib_mpi_coll_say(const char *call, rmaib_mpi_coll_t *st, const char *alg,
                        const char *why)
{
    if (!rmaib_config.verbose)
        return;
    why = why ? why : st && st->why_host ? st->why_host : "unsupported";
    if (st && said_before(st, call, alg ? alg : why))
        return;
    if (alg)
        rmaib_host_say("rmaib: %s on %d ranks served by rmaib, algorithm %s", call,
                       st ? st->nranks : 0, alg);
    else
        rmaib_host_say("rmaib: %s served by the host MPI (%s)", call, why);
}
