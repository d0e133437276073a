/*
 * rmaib core interface: what a binding (the PMPI drop-in library or the MPICH ch4
 * glue) calls.  Everything here is MPI-free: ranks are ranks of the window's group,
 * datatypes arrive as layouts, and errors come back as rmaib_err_t for the binding
 * to turn into MPI error classes.
 */
#ifndef RMAIB_H_INCLUDED
#define RMAIB_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "rmaib_layout.h"

typedef struct rmaib_win rmaib_win_t;

typedef enum rmaib_err {
    RMAIB_OK = 0,
    RMAIB_ERR_ARG,          /* a bad argument without a more precise class */
    RMAIB_ERR_RANK,         /* target rank outside the window's group */
    RMAIB_ERR_COUNT,        /* negative count */
    RMAIB_ERR_TYPE,         /* bad or uncommitted datatype, or type mismatch */
    RMAIB_ERR_DISP,         /* bad displacement or displacement unit */
    RMAIB_ERR_SIZE,         /* bad window size */
    RMAIB_ERR_OP,           /* operation not allowed here */
    RMAIB_ERR_LOCKTYPE,     /* lock type neither shared nor exclusive */
    RMAIB_ERR_ASSERT,       /* assertion bits not valid for this call */
    RMAIB_ERR_RMA_SYNC,     /* call outside or against the current epoch */
    RMAIB_ERR_RMA_RANGE,    /* access outside the target's window */
    RMAIB_ERR_RMA_ATTACH,   /* dynamic attach/detach misuse */
    RMAIB_ERR_RMA_FLAVOR,   /* call not valid for this window flavor */
    RMAIB_ERR_RMA_SHARED,   /* shared-memory window over ranks that cannot share memory */
    RMAIB_ERR_NO_MEM,       /* out of memory or of shared-memory space */
    RMAIB_ERR_TRANSPORT,    /* no transport reaches a peer, or a transport failed */
    RMAIB_ERR_INTERN,       /* a bug in rmaib */
    RMAIB_ERR_RMA_NOTIFY    /* notification index outside the counters in use */
} rmaib_err_t;

/* A call that goes on after a failed step, so that no peer is left waiting for its
 * part, reports the first error: rc = rmaib_first_error(rc, next_step(...)). */
static inline int rmaib_first_error(int rc, int rc2)
{
    return rc != RMAIB_OK ? rc : rc2;
}

/* Window flavors, lock types and assertion bits; bindings map MPI's values onto these. */
enum { RMAIB_FLAVOR_CREATE = 1, RMAIB_FLAVOR_ALLOCATE, RMAIB_FLAVOR_DYNAMIC, RMAIB_FLAVOR_SHARED };
enum { RMAIB_LOCK_NONE = 0, RMAIB_LOCK_SHARED = 1, RMAIB_LOCK_EXCLUSIVE = 2 };
enum {
    RMAIB_MODE_NOCHECK = 1, RMAIB_MODE_NOSTORE = 2, RMAIB_MODE_NOPUT = 4,
    RMAIB_MODE_NOPRECEDE = 8, RMAIB_MODE_NOSUCCEED = 16
};
enum { RMAIB_LOCKALG_TAS = 0, RMAIB_LOCKALG_MCS = 1 };

/* Reduction operations of the accumulate family. */
typedef enum rmaib_op {
    RMAIB_OP_SUM = 1, RMAIB_OP_PROD, RMAIB_OP_MAX, RMAIB_OP_MIN,
    RMAIB_OP_LAND, RMAIB_OP_LOR, RMAIB_OP_LXOR, RMAIB_OP_BAND, RMAIB_OP_BOR, RMAIB_OP_BXOR,
    RMAIB_OP_MAXLOC, RMAIB_OP_MINLOC, RMAIB_OP_REPLACE, RMAIB_OP_NO_OP,
    RMAIB_OP_COUNT
} rmaib_op_t;

/* Flags for data movement calls. */
enum { RMAIB_OP_REQUEST = 1 };   /* MPI_R*: allowed only in a passive-target epoch */

/* What a communicator's first window learnt of its ranks (nodes, the local ranks'
 * pids), kept by the host for the communicator's later windows, which then need
 * no allgather (win_exchange.c).  Made and used by rmaib_win_create; the host
 * frees it with the communicator. */
typedef struct rmaib_comm_dir rmaib_comm_dir_t;
void rmaib_comm_dir_free(rmaib_comm_dir_t *dir);

typedef struct rmaib_win_args {
    int flavor;
    void *hcomm;            /* host communicator: rmaib_host_* calls get it back */
    int rank, nranks;       /* this process in the window's group, and the group's size */
    void *base;             /* RMAIB_FLAVOR_CREATE: the user's memory */
    size_t size;            /* bytes this rank exposes (0 for dynamic) */
    int disp_unit;
    int lock_alg;           /* RMAIB_LOCKALG_* (info key rmaib_lock) */
    int noncontig;          /* shared windows: info alloc_shared_noncontig */
    int map_user;           /* MPI_Win_create: may its pages move into shared memory
                             * (info rmaib_map_user_memory; RMAIB_MAP_USER_MEMORY=0
                             * says no whatever this says)? */
    int no_sync_words;      /* the window never takes locks or PSCW epochs (internal
                             * windows): its control block keeps no per-rank words */
    int cma_peers;          /* local peers will read this process's memory with
                             * process_vm_readv (collective buffers): let them */
    int max_notify;         /* notification counters per rank (the largest asked for
                             * wins); negative: RMAIB_NOTIFY_DEFAULT_MAX */
    int status;             /* RMAIB_OK, or the host's own failure (out of memory): the
                             * creation then fails on every rank, all taking part */
    rmaib_comm_dir_t **comm_dir; /* the communicator's slot (NULL at first), or NULL
                                  * where the host keeps none: every rank alike */
} rmaib_win_args_t;

/* Groups up to this size exchange what they bring at window creation through the
 * stack: such a rank out of memory still takes part, and no peer waits for it. */
#define RMAIB_SMALL_GROUP 64

/* Notification counters of a window without info mpi_assert_max_num_notify. */
#define RMAIB_NOTIFY_DEFAULT_MAX 128
#define RMAIB_NOTIFY_LIMIT (1 << 24)

/* Process-wide set-up, idempotent; the first window creation calls it. */
int rmaib_init(void);
/* Waits in the host MPI.  Where a backend moves peers' requests only while this
 * process polls it (a software network provider), a blocking host call should poll
 * while it waits, as the host's own progress engine would: rmaib_poll_wanted says
 * whether to; the wait brackets its rounds of rmaib_poll (serve the backends, then
 * relax or yield) with rmaib_poll_enter and rmaib_poll_leave. */
int rmaib_poll_wanted(void);
void rmaib_poll_enter(void);
void rmaib_poll(unsigned *round);
void rmaib_poll_leave(void);
/* Process-wide tear-down (the network endpoint); windows must be gone. */
void rmaib_finalize(void);

/* Window lifetime (collective over the group). */
int rmaib_win_create(const rmaib_win_args_t *args, rmaib_win_t **win);
/* rmaib_win_free fails with RMAIB_ERR_RMA_SYNC, leaving the window as it was, while
 * an epoch is open; any other error reports an operation that failed earlier, and
 * the window is gone all the same. */
int rmaib_win_free(rmaib_win_t *win);
int rmaib_win_attach(rmaib_win_t *win, void *base, size_t size);
int rmaib_win_detach(rmaib_win_t *win, const void *base);
int rmaib_win_shared_query(rmaib_win_t *win, int rank, size_t *size, int *disp_unit, void **base);

/* What the binding reports as attributes and in RMAIB_VERBOSE lines. */
void *rmaib_win_base(const rmaib_win_t *win);
size_t rmaib_win_size(const rmaib_win_t *win);
int rmaib_win_disp_unit(const rmaib_win_t *win);
int rmaib_win_flavor(const rmaib_win_t *win);
int rmaib_win_lock_alg(const rmaib_win_t *win);
/* Does the window's PSCW go through post queues (above RMAIB_PSCW_DENSE ranks)? */
int rmaib_win_pscw_queue(const rmaib_win_t *win);
const char *rmaib_win_describe(const rmaib_win_t *win);   /* "shm", "ofi", "shm+ofi" */
unsigned rmaib_win_create_calls(const rmaib_win_t *win);  /* host collectives it took */

/* Data movement. */
int rmaib_put(rmaib_win_t *win, const void *obuf, size_t ocount, const rmaib_layout_t *olay,
              int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tlay, int flags);
int rmaib_get(rmaib_win_t *win, void *obuf, size_t ocount, const rmaib_layout_t *olay,
              int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tlay, int flags);

/* The accumulate family.  Fetch_and_op is Get_accumulate of one element, with a
 * short path for the common case (obuf may be NULL with NO_OP). */
int rmaib_accumulate(rmaib_win_t *win, const void *obuf, size_t ocount, const rmaib_layout_t *olay,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tlay,
                     rmaib_op_t op, int flags);
int rmaib_get_accumulate(rmaib_win_t *win, const void *obuf, size_t ocount,
                         const rmaib_layout_t *olay, void *rbuf, size_t rcount,
                         const rmaib_layout_t *rlay, int target, int64_t tdisp, size_t tcount,
                         const rmaib_layout_t *tlay, rmaib_op_t op, int flags);
int rmaib_fetch_and_op(rmaib_win_t *win, const void *obuf, void *rbuf, const rmaib_layout_t *lay,
                       int target, int64_t tdisp, rmaib_op_t op);
int rmaib_compare_and_swap(rmaib_win_t *win, const void *obuf, const void *cbuf, void *rbuf,
                           const rmaib_layout_t *lay, int target, int64_t tdisp);

/* Passive target. */
int rmaib_lock(rmaib_win_t *win, int lock_type, int target, int assert);
int rmaib_unlock(rmaib_win_t *win, int target);
int rmaib_lock_all(rmaib_win_t *win, int assert);
int rmaib_unlock_all(rmaib_win_t *win);
int rmaib_flush(rmaib_win_t *win, int target);
int rmaib_flush_all(rmaib_win_t *win);
int rmaib_flush_local(rmaib_win_t *win, int target);
int rmaib_flush_local_all(rmaib_win_t *win);
int rmaib_win_sync(rmaib_win_t *win);

/* Active target: ranks are ranks of the window's group. */
int rmaib_fence(rmaib_win_t *win, int assert);
int rmaib_post(rmaib_win_t *win, const int *ranks, int n, int assert);
int rmaib_start(rmaib_win_t *win, const int *ranks, int n, int assert);
int rmaib_complete(rmaib_win_t *win);
int rmaib_wait(rmaib_win_t *win);
int rmaib_test(rmaib_win_t *win, int *flag);

/* Notified access (notify.c).  Each call moves its data as rmaib_put, rmaib_get or
 * rmaib_accumulate and then adds one to counter idx: the target's, or for
 * get_notify_local the caller's own, once the data is in its buffer.  The counter
 * grows only after the data has landed (or been read), and before the call returns. */
int rmaib_put_notify(rmaib_win_t *win, const void *obuf, size_t ocount, const rmaib_layout_t *olay,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tlay,
                     int idx, int flags);
int rmaib_get_notify(rmaib_win_t *win, void *obuf, size_t ocount, const rmaib_layout_t *olay,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tlay,
                     int idx, int flags);
int rmaib_get_notify_local(rmaib_win_t *win, void *obuf, size_t ocount,
                           const rmaib_layout_t *olay, int target, int64_t tdisp, size_t tcount,
                           const rmaib_layout_t *tlay, int idx, int flags);
int rmaib_accumulate_notify(rmaib_win_t *win, const void *obuf, size_t ocount,
                            const rmaib_layout_t *olay, int target, int64_t tdisp, size_t tcount,
                            const rmaib_layout_t *tlay, rmaib_op_t op, int idx, int flags);
/* Collective: every rank uses num counters (at most the window's maximum), all zero. */
int rmaib_win_set_num_notify(rmaib_win_t *win, int num);
int rmaib_win_get_num_notify(rmaib_win_t *win, int target, int *num);
int rmaib_win_max_notify(const rmaib_win_t *win);   /* the most set_num_notify may ask */
/* The caller's own counters: read, fetch-and-zero, wait until >= threshold, and
 * wait until one of [first, first + count) is not zero (*idx). */
int rmaib_win_get_notify_value(rmaib_win_t *win, int idx, uint64_t *value);
int rmaib_win_reset_notify_value(rmaib_win_t *win, int idx, uint64_t *old);
int rmaib_win_wait_notify_value(rmaib_win_t *win, int idx, uint64_t threshold, uint64_t *value);
int rmaib_win_notify_waitsome(rmaib_win_t *win, int first, int count, int *idx);

#endif
