/*
 * Helpers shared by the block B tests (synchronisation: passive-target locks, fence,
 * post/start/complete/wait): wall-clock time that needs no MPI call, the polite wait
 * every spin loop uses (tests run 8 ranks on 2 cores), windows created with a chosen
 * lock algorithm, and error-class checks.
 *
 * Time comes from clock_gettime(CLOCK_MONOTONIC), never MPI_Wtime: a target that
 * "computes without MPI" must not enter the library, and every rank of a single-host
 * run reads the same clock, so times taken on different ranks can be compared.
 */
#ifndef RMAIB_TEST_COMMON_B_H
#define RMAIB_TEST_COMMON_B_H

#include <sched.h>
#include <stdint.h>
#include <time.h>
#include "tap.h"

/* Seconds on the monotonic clock. */
static inline double b_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* What every wait loop does between two looks: give the core away. */
static inline void b_pause(void)
{
    usleep(100);
}

/* Burn the CPU without any MPI call until `secs` have passed; return the stop time. */
static inline double b_compute(double secs)
{
    double end = b_now() + secs;
    volatile uint64_t x = 0;
    double t;
    while ((t = b_now()) < end)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t) i;
    return t;
}

/* The two lock algorithms rmaib offers, chosen per window with info key rmaib_lock
 * (any other MPI ignores the key, so a test looping over both still runs there). */
static const char *const b_lock_algs[] = { "tas", "mcs" };
#define B_NLOCK_ALGS 2

/* Number of iterations: the default unless env `name` gives a positive count. */
static inline int b_env_int(const char *name, int dflt)
{
    const char *e = getenv(name);
    int v = e ? atoi(e) : 0;
    return v > 0 ? v : dflt;
}

static inline MPI_Info b_info(const char *lock_alg)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (lock_alg)
        MPI_Info_set(info, "rmaib_lock", lock_alg);
    return info;
}

/* MPI_Win_allocate over MPI_COMM_WORLD of `bytes` zeroed bytes, disp_unit `unit`,
 * lock algorithm `lock_alg` (NULL: the default); errors return.
 * The size is rounded up to a multiple of 64: Debian's MPICH 4.0.2 (ch4:ucx) puts RMA
 * aimed at rank 1 of an 8-byte allocated window into rank 0's word (seen with
 * 3 ranks), and these tests are about synchronisation, not about that. */
static inline MPI_Win b_win_allocate(MPI_Aint bytes, int unit, const char *lock_alg, void *baseptr)
{
    MPI_Win win;
    MPI_Info info = b_info(lock_alg);
    void *base;
    bytes = (bytes + 63) / 64 * 64;
    MPI_Win_allocate(bytes, unit, info, MPI_COMM_WORLD, &base, &win);
    MPI_Info_free(&info);
    memset(base, 0, (size_t) bytes);
    *(void **) baseptr = base;
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);    /* nobody touches a peer before it zeroed its memory */
    return win;
}

/* MPI_Win_create over user memory `mem` (zeroed here); errors return. */
static inline MPI_Win b_win_create(void *mem, MPI_Aint bytes, int unit, const char *lock_alg)
{
    MPI_Win win;
    MPI_Info info = b_info(lock_alg);
    memset(mem, 0, (size_t) bytes);
    MPI_Win_create(mem, bytes, unit, info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    return win;
}

/* The error class of a return code (MPI_SUCCESS stays MPI_SUCCESS). */
static inline int b_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static inline const char *b_class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_WIN: return "MPI_ERR_WIN";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    default: return "another class";
    }
}

/* Record a failure unless `rc` has class `want`; `what` names the call. */
#define B_EXPECT_CLASS(rc, want, what) do { \
        int b_c_ = b_class(rc); \
        TAP_CHECK(b_c_ == (want), "%s returned %s (%d), expected %s", (what), \
                  b_class_name(b_c_), b_c_, b_class_name(want)); \
    } while (0)

/* Record a failure unless `rc` is MPI_SUCCESS. */
#define B_OK(rc, what) B_EXPECT_CLASS((rc), MPI_SUCCESS, (what))

/* Read a window word written by RMA from its owner: the volatile access keeps the
 * compiler from caching it across the barrier or flush that made it visible. */
static inline int64_t b_load64(const void *p)
{
    return *(const volatile int64_t *) p;
}

static inline void b_store64(void *p, int64_t v)
{
    *(volatile int64_t *) p = v;
}

/* Minimum and maximum over ranks of a double. */
static inline void b_minmax(double v, double *mn, double *mx)
{
    MPI_Allreduce(&v, mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&v, mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

/* Print a TAP diagnostic from rank 0. */
#define B_DIAG(...) do { \
        if (tap_rank == 0) { printf("# " __VA_ARGS__); printf("\n"); fflush(stdout); } \
    } while (0)

#endif
