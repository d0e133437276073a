/*
 * Synchronisation entry points of the drop-in library: passive target (lock, flush,
 * sync) and active target (fence, post/start/complete/wait/test).  Groups become
 * lists of window ranks here; the core never sees a host handle.
 */
#include <stdlib.h>
#include "errors.h"
#include "handles.h"
#include "locks/lock_fast.h"
#include "rma/rma_fast.h"

static int lock_type(int mpi_type)
{
    return mpi_type == MPI_LOCK_SHARED ? RMAIB_LOCK_SHARED
        : mpi_type == MPI_LOCK_EXCLUSIVE ? RMAIB_LOCK_EXCLUSIVE : -1;
}

/* MPI's assertion bits to rmaib's; an unknown bit stays set above them, so the core
 * rejects it with RMAIB_ERR_ASSERT. */
static inline int asserts(int a)
{
    int r = 0;
    if (a == 0)
        return 0;
    if (a & MPI_MODE_NOCHECK)
        r |= RMAIB_MODE_NOCHECK;
    if (a & MPI_MODE_NOSTORE)
        r |= RMAIB_MODE_NOSTORE;
    if (a & MPI_MODE_NOPUT)
        r |= RMAIB_MODE_NOPUT;
    if (a & MPI_MODE_NOPRECEDE)
        r |= RMAIB_MODE_NOPRECEDE;
    if (a & MPI_MODE_NOSUCCEED)
        r |= RMAIB_MODE_NOSUCCEED;
    if (a & ~(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE
              | MPI_MODE_NOSUCCEED))
        r |= 1 << 30;
    return r;
}

/* Lock, unlock and flush are on every passive-target loop.  The last window's plain
 * call calls nothing before the core (lock and unlock take its inline path,
 * lock_fast.h) and keeps only the handle across the core's call; any other window,
 * MPI_PROC_NULL or an assertion goes out of line (the _lookup functions). */
static __attribute__((noinline)) int win_lock_lookup(int type, int rank, int assert, MPI_Win win)
{
    LOOKUP(win, bw);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    /* (an unknown type is -1, which the core refuses with RMAIB_ERR_LOCKTYPE) */
    return rmaib_mpi_win_ret(bw, rmaib_lock(bw->core, lock_type(type), rank, asserts(assert)));
}

int MPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_hit(win);
    if (!bw || rank == MPI_PROC_NULL || assert != 0)
        return win_lock_lookup(type, rank, assert, win);
    return rmaib_mpi_win_ret_handle(win, rmaib_lock_inline(bw->core, lock_type(type), rank, 0));
}

/* Unlock and the flushes of one rank: the core's call on (window, rank). */
static __attribute__((noinline)) int rank_call_lookup(int (*call)(rmaib_win_t *, int), int rank,
                                                      MPI_Win win)
{
    LOOKUP(win, bw);
    return rank == MPI_PROC_NULL ? MPI_SUCCESS : rmaib_mpi_win_ret(bw, call(bw->core, rank));
}

/* hit: the core's inline path (inlined here, its pointer being a constant), call:
 * the same out of line, for any other window. */
static inline __attribute__((always_inline)) int
rank_call(int (*hit)(rmaib_win_t *, int), int (*call)(rmaib_win_t *, int), int rank, MPI_Win win)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_hit(win);
    if (!bw || rank == MPI_PROC_NULL)
        return rank_call_lookup(call, rank, win);
    return rmaib_mpi_win_ret_handle(win, hit(bw->core, rank));
}

static inline __attribute__((always_inline)) int unlock_hit(rmaib_win_t *w, int rank)
{
    return rmaib_unlock_inline(w, rank);
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    return rank_call(unlock_hit, rmaib_unlock, rank, win);
}

static inline __attribute__((always_inline)) int flush_hit(rmaib_win_t *w, int rank)
{
    return rmaib_flush_inline(w, rank);
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_lock_all(bw->core, asserts(assert)));
}

int MPI_Win_unlock_all(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_unlock_all(bw->core));
}

int MPI_Win_flush(int rank, MPI_Win win)
{
    return rank_call(flush_hit, rmaib_flush, rank, win);
}

int MPI_Win_flush_all(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_flush_all(bw->core));
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
    return rank_call(rmaib_flush_local, rmaib_flush_local, rank, win);
}

int MPI_Win_flush_local_all(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_flush_local_all(bw->core));
}

int MPI_Win_sync(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_win_sync(bw->core));
}

int MPI_Win_fence(int assert, MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_fence(bw->core, asserts(assert)));
}

/* The window ranks of group's members; NULL with *rerr set on failure. */
static int *group_ranks(rmaib_mpi_win_t *bw, MPI_Group group, int *n, int *rerr)
{
    MPI_Group wgroup;
    int *in, *out;
    *rerr = RMAIB_OK;
    if (group == MPI_GROUP_NULL || PMPI_Group_size(group, n) != MPI_SUCCESS) {
        *rerr = RMAIB_ERR_ARG;
        return NULL;
    }
    in = malloc(sizeof(int) * (size_t) (*n + 1));
    out = malloc(sizeof(int) * (size_t) (*n + 1));
    if (!in || !out) {
        free(in);
        free(out);
        *rerr = RMAIB_ERR_NO_MEM;
        return NULL;
    }
    for (int i = 0; i < *n; i++)
        in[i] = i;
    PMPI_Comm_group(bw->comm, &wgroup);
    PMPI_Group_translate_ranks(group, *n, in, wgroup, out);
    PMPI_Group_free(&wgroup);
    free(in);
    for (int i = 0; i < *n; i++)
        if (out[i] == MPI_UNDEFINED)
            *rerr = RMAIB_ERR_RANK;     /* a member outside the window's group */
    if (*rerr != RMAIB_OK) {
        free(out);
        return NULL;
    }
    return out;
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    LOOKUP(win, bw);
    int n, rerr, *ranks = group_ranks(bw, group, &n, &rerr);
    if (ranks)
        rerr = rmaib_post(bw->core, ranks, n, asserts(assert));
    free(ranks);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    LOOKUP(win, bw);
    int n, rerr, *ranks = group_ranks(bw, group, &n, &rerr);
    if (ranks)
        rerr = rmaib_start(bw->core, ranks, n, asserts(assert));
    free(ranks);
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Win_complete(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_complete(bw->core));
}

int MPI_Win_wait(MPI_Win win)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_wait(bw->core));
}

int MPI_Win_test(MPI_Win win, int *flag)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_test(bw->core, flag));
}
