/*
 * The host interface: the little the core needs from the MPI it runs inside.
 * Implemented once over PMPI (src/binding/mpi/host.c) and once over MPICH
 * internals (the ch4 glue).  hcomm is the opaque communicator handed to
 * rmaib_win_create; every call here is collective over it unless noted.
 */
#ifndef RMAIB_HOST_H_INCLUDED
#define RMAIB_HOST_H_INCLUDED

#include <stddef.h>

/* recv holds nranks * bytes: rank r's contribution at r * bytes. */
int rmaib_host_allgather(void *hcomm, const void *send, void *recv, size_t bytes);
int rmaib_host_barrier(void *hcomm);

/* This process's rank in the host's world (for RMAIB_NODE_SIZE); not collective. */
int rmaib_host_world_rank(void);

/* Let the host make progress on its own traffic while rmaib waits; not collective. */
void rmaib_host_progress(void);

/* A diagnostic line on stderr, prefixed with the world rank; not collective. */
void rmaib_host_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
