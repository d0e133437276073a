/*
 * The host interface: the little the core needs from the MPI it runs inside, as
 * one table the host registers before its first window (rmaib_host_register):
 * filled once over PMPI (src/binding/mpi/host.c) and once over MPICH internals
 * (the ch4 glue).  hcomm is the opaque communicator handed to rmaib_win_create;
 * allgather and barrier are collective over it, the rest are not.
 */
#ifndef RMAIB_HOST_H_INCLUDED
#define RMAIB_HOST_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

struct rmaib_host_ops {
    /* recv holds nranks * bytes: rank r's contribution at r * bytes.  RMAIB_OK or
     * an rmaib_err_t. */
    int (*allgather)(void *hcomm, const void *send, void *recv, size_t bytes);
    int (*barrier)(void *hcomm);
    /* words[i] becomes the largest words[i] of any rank, for i < n: every agreement
     * of a window's creation in one reduction (a flag any rank lacks as a 1, a
     * minimum as the maximum of its complement).  RMAIB_OK or an rmaib_err_t. */
    int (*allreduce_max)(void *hcomm, uint64_t *words, int n);
    /* This process's rank in the host's world (for RMAIB_NODE_SIZE). */
    int (*world_rank)(void);
    /* Let the host make progress on its own traffic while rmaib waits. */
    void (*progress)(void);
    /* Write one diagnostic line (no newline) where the host writes its own. */
    void (*say)(const char *line);
    /* Nonzero if threads may call into one window at once (MPI_THREAD_MULTIPLE). */
    int (*thread_multiple)(void);
};

/* Every entry must be set.  The table must outlive rmaib's use of it. */
void rmaib_host_register(const struct rmaib_host_ops *ops);

/* The core's side: calls through the registered table.  rmaib_host_colls counts
 * the collectives this thread made (what a window's creation cost, RMAIB_VERBOSE). */
extern const struct rmaib_host_ops *rmaib_host;
extern _Thread_local unsigned long rmaib_host_colls;
/* Set in rmaib's own threads (the schedule and progress threads): the host MPI
 * may be in a call on another thread, and unless it runs MPI_THREAD_MULTIPLE a
 * second caller corrupts it (ch4:ucx asserted in ucp_worker_progress). */
extern _Thread_local int rmaib_host_own_thread;

static inline int rmaib_host_allgather(void *hcomm, const void *send, void *recv, size_t bytes)
{
    rmaib_host_colls++;
    return rmaib_host->allgather(hcomm, send, recv, bytes);
}

static inline int rmaib_host_allreduce_max(void *hcomm, uint64_t *words, int n)
{
    rmaib_host_colls++;
    return rmaib_host->allreduce_max(hcomm, words, n);
}

static inline int rmaib_host_barrier(void *hcomm)
{
    rmaib_host_colls++;
    return rmaib_host->barrier(hcomm);
}

static inline int rmaib_host_world_rank(void)
{
    return rmaib_host->world_rank();
}

static inline void rmaib_host_progress(void)
{
    if (!rmaib_host_own_thread)
        rmaib_host->progress();
}

static inline int rmaib_host_thread_multiple(void)
{
    return rmaib_host->thread_multiple();
}

/* A diagnostic line, prefixed with the world rank. */
void rmaib_host_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Collective over hcomm's nranks: an error among the mine of every rank (the
 * largest), or RMAIB_OK, in one reduction that allocates nothing, so a rank that ran
 * out of memory still joins it and its peers do not wait for ever. */
int rmaib_host_agree(void *hcomm, int nranks, int mine);

#endif
