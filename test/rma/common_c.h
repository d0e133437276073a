/*
 * Helpers shared by the block C tests (the accumulate family): windows of the two
 * kinds that put rmaib's accumulates on its two paths, local access to one's own
 * window memory, error-class checks, iteration counts and the polite pause of
 * every wait loop (tests run 8 ranks on 2 cores).
 *
 * rmaib does an accumulate with CPU atomics ("native") when the window memory was
 * allocated by MPI (MPI_Win_allocate, MPI_Win_allocate_shared) and the element is
 * at most 8 bytes and naturally aligned; everything else takes the target's
 * accumulate lock around get, reduce, put ("locked"): MPI_Win_create and dynamic
 * memory, 16-byte and wider elements, unaligned elements.  The tests run each case
 * on both kinds of window; any other MPI just sees the same program twice.
 */
#ifndef RMAIB_TEST_COMMON_C_H
#define RMAIB_TEST_COMMON_C_H

#include <complex.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include "tap.h"

/* The two kinds of window memory. */
enum { C_ALLOCATE, C_CREATE };
static const char *const c_kind_name[] = { "MPI_Win_allocate", "MPI_Win_create" };

typedef struct {
    MPI_Win win;
    void *base;          /* this rank's window memory */
    void *mem;           /* malloc'ed memory behind a created window, else NULL */
    MPI_Aint bytes;
} c_win_t;

/* A window of `bytes` bytes (rounded up to 64) of kind C_ALLOCATE or C_CREATE over
 * MPI_COMM_WORLD, displacement unit `unit`, every byte set to `fill`, errors
 * returned.  Collective; on return every rank's memory is filled.  The size is
 * rounded so that stock MPICH 4.0.2, which packs allocated windows back to back in
 * one segment, still gives every rank a base aligned to 64 bytes. */
static inline c_win_t c_win_open(int kind, MPI_Aint bytes, int unit, int fill)
{
    c_win_t w;
    bytes = (bytes + 63) / 64 * 64;
    w.bytes = bytes;
    w.mem = NULL;
    if (kind == C_ALLOCATE) {
        MPI_Win_allocate(bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w.base, &w.win);
    } else {
        w.mem = malloc((size_t) bytes);
        w.base = w.mem;
        MPI_Win_create(w.mem, bytes, unit, MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    }
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tap_rank, 0, w.win);
    memset(w.base, fill, (size_t) bytes);
    MPI_Win_unlock(tap_rank, w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    return w;
}

static inline void c_win_close(c_win_t *w)
{
    MPI_Win_free(&w->win);
    free(w->mem);
    w->mem = w->base = NULL;
}

/* Local load/store access to one's own window memory: a lock on oneself with a
 * sync makes the public and private copies agree (MPI-3.1 §11.5.5). */
static inline void c_self_begin(const c_win_t *w)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, tap_rank, 0, w->win);
    MPI_Win_sync(w->win);
}

static inline void c_self_end(const c_win_t *w)
{
    MPI_Win_sync(w->win);
    MPI_Win_unlock(tap_rank, w->win);
}

/* What every wait loop does between two looks: give the core away. */
static inline void c_pause(void)
{
    usleep(50);
}

static inline double c_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* An iteration count: the default unless env `name` gives a positive one. */
static inline int c_env_int(const char *name, int dflt)
{
    const char *e = getenv(name);
    int v = e ? atoi(e) : 0;
    return v > 0 ? v : dflt;
}

/* A small deterministic generator (xorshift64*), so every rank can replay another
 * rank's sequence of operations. */
static inline uint64_t c_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static inline int c_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static inline const char *c_class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_DISP: return "MPI_ERR_DISP";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_WIN: return "MPI_ERR_WIN";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    default: return "another class";
    }
}

/* Record a failure unless `rc` has class `want`; `what` names the call. */
#define C_EXPECT(rc, want, ...) do {                                                    \
        int c_got_ = c_class(rc);                                                       \
        if (c_got_ != (want)) {                                                         \
            char c_what_[200];                                                          \
            snprintf(c_what_, sizeof c_what_, __VA_ARGS__);                             \
            tap_fail("%s returned %s (%d), expected %s", c_what_, c_class_name(c_got_), \
                     c_got_, c_class_name(want));                                       \
        }                                                                               \
    } while (0)

#define C_OK(rc, ...) C_EXPECT((rc), MPI_SUCCESS, __VA_ARGS__)

#endif
