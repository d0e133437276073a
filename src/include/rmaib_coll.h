/*
 * Collectives on rmaib's own windows (src/coll_overlay): what a binding calls.
 * MPI-free like the rest of the core: buffers are bytes, reductions are
 * (rmaib_basic_t, rmaib_op_t) pairs the caller has validated (rmaib_reduce_valid).
 *
 * One rmaib_coll_t per communicator, made collectively on first use over the
 * host communicator hcomm and kept until the binding frees it (collectively).
 * sbuf == NULL means MPI_IN_PLACE.  Results are identical on every rank.
 */
#ifndef RMAIB_COLL_H_INCLUDED
#define RMAIB_COLL_H_INCLUDED

#include <stddef.h>
#include "rmaib.h"

typedef struct rmaib_coll rmaib_coll_t;

/* Algorithms; *_AUTO chooses by size and group (RMAIB_COLL_* can force one). */
enum { RMAIB_AR_AUTO, RMAIB_AR_FLAT, RMAIB_AR_RD, RMAIB_AR_RSAG, RMAIB_AR_DPML, RMAIB_AR_COUNT };
enum { RMAIB_AG_AUTO, RMAIB_AG_RING, RMAIB_AG_RD, RMAIB_AG_BRUCK, RMAIB_AG_COUNT };
enum { RMAIB_A2A_AUTO, RMAIB_A2A_DIRECT, RMAIB_A2A_BRUCK, RMAIB_A2A_COUNT };

typedef struct rmaib_coll_config {
    int enabled;            /* RMAIB_COLL: on (1) or off (0: the host serves every call) */
    int allreduce;          /* RMAIB_COLL_ALLREDUCE: RMAIB_AR_* */
    int allgather;          /* RMAIB_COLL_ALLGATHER: RMAIB_AG_* */
    int alltoall;           /* RMAIB_COLL_ALLTOALL: RMAIB_A2A_* */
} rmaib_coll_config_t;

/* Read the RMAIB_COLL* variables (once; later calls return the same answer):
 * RMAIB_OK, or RMAIB_ERR_ARG after saying which value is not allowed. */
int rmaib_coll_config(const rmaib_coll_config_t **cfg);

/* Collective over hcomm (rank of nranks).  Fails alike on every rank. */
int rmaib_coll_create(void *hcomm, int rank, int nranks, rmaib_coll_t **c);
/* Collective; the window goes. */
int rmaib_coll_free(rmaib_coll_t *c);

int rmaib_coll_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                         rmaib_basic_t b, rmaib_op_t op);
/* bytes: one rank's block. */
int rmaib_coll_allgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes);
int rmaib_coll_alltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes);

/* The algorithm the last call on c ran ("flat", "rd", ...), for RMAIB_VERBOSE. */
const char *rmaib_coll_last_alg(const rmaib_coll_t *c);

#endif
