/*
 * The host interface over PMPI: what the core needs from the installed MPI.
 * hcomm is a pointer to the window's private duplicate communicator.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib_host.h"
#include "rmaib.h"
#include "host.h"
#include "serve.h"

static int status(int mpi_err)
{
    return mpi_err == MPI_SUCCESS ? RMAIB_OK : RMAIB_ERR_TRANSPORT;
}

/* Window creation and free wait in these while peers may still be connecting to us
 * or finishing their operations on our memory: they serve the endpoint as the
 * user's blocking calls do (serve.c).  Always the non-blocking form, on every rank
 * alike: MPI never matches a blocking collective with a non-blocking one. */
static int pmpi_allgather(void *hcomm, const void *send, void *recv, size_t bytes)
{
    MPI_Comm comm = *(MPI_Comm *) hcomm;
    MPI_Request req;
    int rc;
    RMAIB_NM_NESTED(rc = PMPI_Iallgather(send, (int) bytes, MPI_BYTE, recv, (int) bytes,
                                         MPI_BYTE, comm, &req));
    return status(rc == MPI_SUCCESS ? rmaib_mpi_host_wait(&req) : rc);
}

static int pmpi_allreduce_max(void *hcomm, uint64_t *words, int n)
{
    MPI_Comm comm = *(MPI_Comm *) hcomm;
    MPI_Request req;
    int rc;
    RMAIB_NM_NESTED(rc = PMPI_Iallreduce(MPI_IN_PLACE, words, n, MPI_UINT64_T, MPI_MAX, comm,
                                         &req));
    return status(rc == MPI_SUCCESS ? rmaib_mpi_host_wait(&req) : rc);
}

static int pmpi_barrier(void *hcomm)
{
    MPI_Comm comm = *(MPI_Comm *) hcomm;
    MPI_Request req;
    int rc;
    RMAIB_NM_NESTED(rc = PMPI_Ibarrier(comm, &req));
    return status(rc == MPI_SUCCESS ? rmaib_mpi_host_wait(&req) : rc);
}

/* Read once at registration, while MPI is surely up: the progress thread may say
 * something while MPI_Finalize runs or after it, when asking MPI aborts. */
static int world_rank;

static int pmpi_world_rank(void)
{
    return world_rank;
}

/* A long rmaib wait gives the host's progress engine a turn, so point-to-point
 * traffic aimed at this process keeps moving meanwhile. */
static void pmpi_progress(void)
{
    int flag;
#ifdef RMAIB_NETMOD
    rmaib_nm_busy++;        /* MPICH's progress must not re-enter rmaib from here */
#endif
    PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
#ifdef RMAIB_NETMOD
    rmaib_nm_busy--;
#endif
}

static void say_stderr(const char *line)
{
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

/* Asked at each window's creation, once MPI is surely initialised. */
static int pmpi_thread_multiple(void)
{
    int level = MPI_THREAD_SINGLE;
    PMPI_Query_thread(&level);
    return level == MPI_THREAD_MULTIPLE;
}

static const struct rmaib_host_ops pmpi_host = {
    .allgather = pmpi_allgather,
    .barrier = pmpi_barrier,
    .allreduce_max = pmpi_allreduce_max,
    .world_rank = pmpi_world_rank,
    .progress = pmpi_progress,
    .say = say_stderr,
    .thread_multiple = pmpi_thread_multiple,
};

/* The MPI this library was built for, as MPI_Get_library_version begins, and
 * the library's name: librmaib-mpi for MPICH, librmaib-ompi for Open MPI 4.x. */
#if defined(MPICH_VERSION)
#define BUILT_FOR "MPICH"
#define VERSION_PREFIX "MPICH"
#define LIBRARY "librmaib-mpi"
#elif defined(OPEN_MPI)
#define BUILT_FOR "Open MPI 4.x"
#define VERSION_PREFIX "Open MPI v4."
#define LIBRARY "librmaib-ompi"
#else
#define BUILT_FOR "?"
#define VERSION_PREFIX ""
#define LIBRARY "librmaib"
#endif

/* Preloaded into a program of another MPI (Open MPI's, where rmaib was built for
 * MPICH, or the reverse, or another Open MPI than 4.x), rmaib would hand its MPI's
 * handle constants to the program's MPI: the first window call would fail deep in
 * that MPI with an error about keyvals.  Say so plainly instead, once, and stop. */
static void check_host_mpi(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len);
    if (strncmp(version, VERSION_PREFIX, strlen(VERSION_PREFIX)) == 0)
        return;
    char *nl = strchr(version, '\n');
    if (nl)
        *nl = '\0';
    fprintf(stderr, "rmaib: " LIBRARY " was built for " BUILT_FOR " but this program runs "
            "on \"%.80s\", which rmaib does not support: rebuild the program with "
            BUILT_FOR "'s mpicc, or run it without rmaib\n", version);
    exit(EXIT_FAILURE);
}

void rmaib_mpi_host_register(void)
{
    static int done;
    if (done)
        return;
    check_host_mpi();
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    rmaib_host_register(&pmpi_host);
    done = 1;
}
