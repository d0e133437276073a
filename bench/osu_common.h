/*
 * Shared part of rmaib's one-sided benchmark suite: option parsing, window
 * creation per flavor, the OSU (OMB 6.1) measurement loops and the output.
 *
 * The programs are plain MPI: the same source builds against any MPI, and the
 * rmaib figures come from running the MPICH build with rmaib preloaded.
 * Each osu_*.c file only says which operation it times and which OSU defaults
 * it has; the loops for every -s mode live here once (osu_common.c).
 */
#ifndef BENCH_OSU_COMMON_H
#define BENCH_OSU_COMMON_H

#include <mpi.h>
#include <stddef.h>

/* OMB 6.1 constants (osu_util.h). */
#define OSU_MAX_MESSAGE_SIZE   (1UL << 22)
#define OSU_LARGE_MESSAGE_SIZE 8192
#define OSU_LAT_LOOP_SMALL     10000
#define OSU_LAT_SKIP_SMALL     100
#define OSU_LAT_LOOP_LARGE     1000
#define OSU_LAT_SKIP_LARGE     10
#define OSU_BW_LOOP_SMALL      100
#define OSU_BW_SKIP_SMALL      10
#define OSU_BW_LOOP_LARGE      20
#define OSU_BW_SKIP_LARGE      2
#define OSU_WINDOW_SIZE        64

/* -s: the order is OMB's enum SYNC, so sync_names[] reads the same. */
enum osu_sync {
    OSU_SYNC_LOCK,
    OSU_SYNC_PSCW,
    OSU_SYNC_FENCE,
    OSU_SYNC_FLUSH,
    OSU_SYNC_FLUSH_LOCAL,
    OSU_SYNC_LOCK_ALL,
    OSU_SYNC_COUNT
};
#define OSU_SYNC_BIT(s) (1u << (s))
#define OSU_SYNC_ALL    ((1u << OSU_SYNC_COUNT) - 1)
#define OSU_SYNC_ACTIVE (OSU_SYNC_BIT(OSU_SYNC_PSCW) | OSU_SYNC_BIT(OSU_SYNC_FENCE))

/* -w: OMB's enum WINDOW order. */
enum osu_flavor { OSU_WIN_CREATE, OSU_WIN_ALLOCATE, OSU_WIN_DYNAMIC };

enum osu_kind {
    OSU_LAT,     /* one op per iteration, microseconds */
    OSU_BW,      /* window_size ops per iteration, rank 0 only, MB/s */
    OSU_BIBW     /* window_size ops per iteration from both ranks, MB/s x 2 */
};

struct osu_ctx;

/* What one benchmark program is. */
typedef struct osu_bench {
    const char *name;        /* program name, first CSV column: "osu_put_latency" */
    const char *title;       /* header: "MPI_Put Latency" */
    enum osu_kind kind;
    unsigned syncs;          /* accepted -s modes, OSU_SYNC_BIT()s */
    int def_sync, def_win;   /* OMB's defaults for this program */
    int flush_lock_type;     /* lock held around the flush / flush_local loop */
    int lock_lock_type;      /* lock taken per iteration in -s lock */
    size_t fixed_size;       /* fop/cas: one 8-byte point, no size sweep; 0 = sweep */
    /* Issue one operation of c->size bytes to target at byte offset off. */
    void (*op)(struct osu_ctx *c, int target, size_t off);
} osu_bench_t;

/* Options, parsed the same way in every program of the suite. */
typedef struct osu_opts {
    int sync, win;
    size_t min_size, max_size;
    int iters, skip, iters_large, skip_large;
    int window_size;         /* -W, bandwidth tests */
    double time_cap;         /* -T: seconds per point, 0 = OMB's fixed counts */
    int csv;                 /* -f csv */
    const char *lock_alg;    /* -l tas|mcs: info key rmaib_lock, NULL = not set */
    size_t min_win;          /* -B: OSU programs' windows at least this many bytes */
} osu_opts_t;

/* One window and the buffers an operation needs. */
typedef struct osu_win {
    MPI_Win win;
    char *base;              /* this rank's window memory */
    MPI_Aint disp0;          /* displacement of the peer's window start (dynamic: its address) */
    int flavor;
    int owns_base;           /* create/dynamic: we malloc'd base */
} osu_win_t;

typedef struct osu_ctx {
    const osu_bench_t *b;
    const osu_opts_t *o;
    int rank, nprocs;
    size_t size;             /* bytes per operation */
    osu_win_t w;
    char *sbuf, *rbuf, *cbuf;
} osu_ctx_t;

/* Extra per-program options: called for every option letter not handled here. */
typedef int (*osu_extra_fn)(int opt, const char *arg, void *data);

/* Parse argv into o (defaults from b, or latency defaults when b is NULL).
 * extra_optstring adds letters for extra(). Returns 0 = run, 1 = help shown,
 * -1 = bad usage (message already printed by rank 0). */
int osu_parse(int argc, char **argv, const osu_bench_t *b, osu_opts_t *o,
              const char *extra_optstring, osu_extra_fn extra, void *data,
              const char *extra_usage);

/* MPI_Init, then osu_parse, then a check that the job has exactly two ranks (name
 * says who requires them). Returns -1 to run, with this process's rank in *rank;
 * otherwise MPI is finalized and the value is main's exit status (help shown, bad
 * usage, another number of ranks). */
int osu_start_pair(int *argc, char ***argv, const char *name, const osu_bench_t *b,
                   osu_opts_t *o, const char *extra_optstring, osu_extra_fn extra, void *data,
                   const char *extra_usage, int *rank);

/* Collective over comm. Creates a window of bytes with the flavor in o->win
 * (info rmaib_lock=o->lock_alg when set) and exchanges the address rank
 * "peer" must use for dynamic windows. */
void osu_win_create(osu_win_t *w, size_t bytes, int flavor, const osu_opts_t *o,
                    MPI_Comm comm, int peer);
void osu_win_free(osu_win_t *w);
MPI_Info osu_info(const osu_opts_t *o);

/* Names for output. */
const char *osu_sync_name(int sync);      /* "flush" */
const char *osu_flavor_name(int flavor);  /* "allocate" */

/* Output: OSU-style table or CSV rows "bench,variant,window,x,metric,value,unit". */
void osu_csv_header(const osu_opts_t *o);
void osu_row(const osu_opts_t *o, const char *bench, const char *variant, int flavor,
             size_t x, const char *metric, double value, const char *unit);

/* Abort with a message when an MPI call fails. */
#define OSU_CHECK(call)                                                     \
    do {                                                                    \
        int osu_rc_ = (call);                                               \
        if (osu_rc_ != MPI_SUCCESS)                                         \
            osu_fail(#call, osu_rc_, __FILE__, __LINE__);                   \
    } while (0)
void osu_fail(const char *what, int rc, const char *file, int line);

/* Time-capped loop support (-T): iteration count for this point, estimated
 * from the warm-up at the top of iteration "skip" (collective in active modes). */
int osu_calibrate(const osu_opts_t *o, double t_first, int skip, int iters,
                  MPI_Comm comm, int collective);

/* A barrier; with sleepy set this rank waits in nanosleep between MPI_Test calls,
 * leaving the CPU to the ranks being measured (idle origins on a 2-core machine). */
void osu_barrier(MPI_Comm comm, int sleepy);

/* A compute kernel that takes about us microseconds and touches no MPI. */
void osu_compute_calibrate(void);
void osu_compute(double us);

/*
 * The loop skeleton every timed loop shares. The caller declares int i, n
 * (= iterations), skip, capped (= opts->time_cap > 0), double t_first and t0. At the top of iteration "skip" the
 * -T estimate may shorten the run (collectively in active modes, where both
 * ranks loop), and the timer starts at OMB's place for the mode. In passive
 * modes one rank loops alone, and it also cuts a warm-up that exceeds the
 * budget and stops the timed part once it has used twice the budget.
 */
#define OSU_TIMED_LOOP(opts, collective, start_timer_here, ...)                        \
    {                                                                                  \
        int osu_chk_ = 15; /* check the clock every 16 iterations, or every one if slow */ \
        int osu_from_ = 0; /* first warm-up iteration in the estimate */              \
        for (i = 0; i < skip + n; i++) {                                               \
            /* The first iteration pays first-touch costs (page faults, connections): \
             * it is left out of the per-iteration estimate when there are others. */ \
            if (i == 0 || (i == 1 && skip > 1)) {                                      \
                t_first = MPI_Wtime();                                                 \
                osu_from_ = i;                                                         \
            } else if (capped && !(collective) && i < skip &&                          \
                       MPI_Wtime() - t_first > (opts)->time_cap) {                     \
                skip = i; /* a slow warm-up ends early too */                          \
            }                                                                          \
            if (i == skip) {                                                           \
                if (capped) {                                                          \
                    int osu_w_ = skip - osu_from_;                                     \
                    if (osu_w_ > 0 && MPI_Wtime() - t_first > 2e-6 * osu_w_)           \
                        osu_chk_ = 0;                                                  \
                    n = osu_calibrate(opts, t_first, osu_w_, n, MPI_COMM_WORLD, collective); \
                }                                                                      \
                if (start_timer_here)                                                  \
                    t0 = MPI_Wtime();                                                  \
            }                                                                          \
            __VA_ARGS__                                                                \
            if (capped && !(collective) && i > skip && ((i - skip) & osu_chk_) == 0 && \
                MPI_Wtime() - t0 > 2 * (opts)->time_cap)                               \
                n = i + 1 - skip;                                                      \
        }                                                                              \
    }

/* The whole OSU-style program: MPI_Init, parse, sweep sizes, print, finalize. */
int osu_main(const osu_bench_t *b, int argc, char **argv);

#endif
