/*
 * Windows of the kinds the tests use, and local access to one's own window memory.
 *
 * Kinds: rmaib does an accumulate with CPU atomics ("native") when the window memory
 * was allocated by MPI (MPI_Win_allocate, MPI_Win_allocate_shared) and the element
 * is at most 8 bytes and naturally aligned; everything else takes the target's
 * accumulate lock around get, reduce, put ("locked"): MPI_Win_create and dynamic
 * memory, 16-byte and wider elements, unaligned elements.  Tests that run a case on
 * both kinds (win_open) see both paths; any other MPI just sees the program twice.
 *
 * Lock algorithms: rmaib offers two, chosen per window with info key rmaib_lock (any
 * other MPI ignores the key, so a test looping over both still runs there).
 *
 * Sizes are rounded up to a multiple of 64: stock MPICH 4.0.2 packs allocated
 * windows back to back in one segment, and with 8-byte windows its ch4:ucx puts
 * RMA aimed at rank 1 into rank 0's word (seen with 3 ranks); the rounding gives
 * every rank a base aligned to 64 bytes and keeps the tests about rmaib.
 */
#ifndef RMAIB_TEST_WINDOWS_H
#define RMAIB_TEST_WINDOWS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"

static inline MPI_Aint win_round64(MPI_Aint bytes)
{
    return (bytes + 63) / 64 * 64;
}

/* Local load/store access to one's own window memory, bracketed by a lock on
 * oneself so that the public and private copies agree (MPI-3.1 §11.5.5). */
static inline void self_begin(MPI_Win win, int lock_type)
{
    int me;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Group_rank(g, &me);
    MPI_Group_free(&g);
    MPI_Win_lock(lock_type, me, 0, win);
    MPI_Win_sync(win);
}

static inline void self_end(MPI_Win win)
{
    int me;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Group_rank(g, &me);
    MPI_Group_free(&g);
    MPI_Win_sync(win);
    MPI_Win_unlock(me, win);
}

/* Read a window word written by RMA from its owner: an atomic access, because
 * rmaib's progress thread may apply a peer's atomic to it at any time, and it keeps
 * the compiler from caching the word across the barrier or flush that made it
 * visible. */
static inline int64_t load64(const void *p)
{
    return __atomic_load_n((const int64_t *) p, __ATOMIC_RELAXED);
}

static inline void store64(void *p, int64_t v)
{
    __atomic_store_n((int64_t *) p, v, __ATOMIC_RELAXED);
}

/* ---- windows with a chosen lock algorithm ------------------------------------ */

static const char *const lock_algs[] = { "tas", "mcs" };
#define NLOCK_ALGS 2

static inline MPI_Info lock_alg_info(const char *lock_alg)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (lock_alg)
        MPI_Info_set(info, "rmaib_lock", lock_alg);
    return info;
}

/* MPI_Win_allocate over MPI_COMM_WORLD of `bytes` (rounded up to 64) zeroed bytes,
 * disp_unit `unit`, lock algorithm `lock_alg` (NULL: the default); errors return. */
static inline MPI_Win win_allocate_zeroed(MPI_Aint bytes, int unit, const char *lock_alg,
                                          void *baseptr)
{
    MPI_Win win;
    MPI_Info info = lock_alg_info(lock_alg);
    void *base;
    bytes = win_round64(bytes);
    MPI_Win_allocate(bytes, unit, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    memset(base, 0, (size_t) bytes);
    *(void **) baseptr = base;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);    /* nobody touches a peer before it zeroed its memory */
    return win;
}

/* MPI_Win_create over user memory `mem` (zeroed here); errors return. */
static inline MPI_Win win_create_zeroed(void *mem, MPI_Aint bytes, int unit, const char *lock_alg)
{
    MPI_Win win;
    MPI_Info info = lock_alg_info(lock_alg);
    memset(mem, 0, (size_t) bytes);
    MPI_Win_create(mem, bytes, unit, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    return win;
}

/* ---- the two kinds of window memory ------------------------------------------ */

enum { WIN_ALLOCATE, WIN_CREATE };
static const char *const win_kind_name[] = { "MPI_Win_allocate", "MPI_Win_create" };

typedef struct {
    MPI_Win win;
    void *base;          /* this rank's window memory */
    void *mem;           /* malloc'ed memory behind a created window, else NULL */
    MPI_Aint bytes;
} kind_win_t;

/* A window of `bytes` bytes (rounded up to 64) of kind WIN_ALLOCATE or WIN_CREATE
 * over MPI_COMM_WORLD, displacement unit `unit`, every byte set to `fill`, errors
 * returned.  Collective; on return every rank's memory is filled. */
static inline kind_win_t win_open(int kind, MPI_Aint bytes, int unit, int fill)
{
    kind_win_t w;
    bytes = win_round64(bytes);
    w.bytes = bytes;
    w.mem = NULL;
    if (kind == WIN_ALLOCATE) {
        MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w.base, &w.win);
    } else {
        w.mem = malloc((size_t) bytes);
        w.base = w.mem;
        MPI_Win_create(w.mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    }
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    self_begin(w.win, MPI_LOCK_EXCLUSIVE);
    memset(w.base, fill, (size_t) bytes);
    self_end(w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    return w;
}

static inline void win_close(kind_win_t *w)
{
    MPI_Win_free(&w->win);
    free(w->mem);
    w->mem = w->base = NULL;
}

/* ---- the three ways the data tests reach every target ------------------------ */

enum { SYNC_LOCK_ALL, SYNC_LOCK, SYNC_FENCE, NSYNC };
static const char *const sync_name[NSYNC] = { "lock_all+flush", "lock/unlock", "fence" };

/* Opens the access epoch of `mode`: lock_all, or a fence with `fence_assert`;
 * under SYNC_LOCK each target gets its own (sync_target_begin). */
static inline void sync_open(int mode, int fence_assert, MPI_Win win)
{
    if (mode == SYNC_LOCK_ALL)
        MPI_Win_lock_all(0, win);
    if (mode == SYNC_FENCE)
        MPI_Win_fence(fence_assert, win);
}

static inline void sync_close(int mode, int fence_assert, MPI_Win win)
{
    if (mode == SYNC_LOCK_ALL)
        MPI_Win_unlock_all(win);
    if (mode == SYNC_FENCE)
        MPI_Win_fence(fence_assert, win);
}

/* Before the calls to target t: under SYNC_LOCK, a lock of `lock_type`. */
static inline void sync_target_begin(int mode, int lock_type, int t, MPI_Win win)
{
    if (mode == SYNC_LOCK)
        MPI_Win_lock(lock_type, t, 0, win);
}

/* After them: under SYNC_LOCK the unlock; under SYNC_LOCK_ALL a flush if `flush`. */
static inline void sync_target_end(int mode, int t, int flush, MPI_Win win)
{
    if (mode == SYNC_LOCK)
        MPI_Win_unlock(t, win);
    if (mode == SYNC_LOCK_ALL && flush)
        MPI_Win_flush(t, win);
}

#endif
