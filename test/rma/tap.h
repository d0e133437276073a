/*
 * TAP for MPI test programs.  Every check is collective over MPI_COMM_WORLD: each
 * rank says whether its own part held, rank 0 prints one "ok"/"not ok" line, and a
 * rank whose part failed prints why as a "# rank r: ..." diagnostic.  tap_done()
 * prints the plan and returns the exit status.
 *
 *   tap_init(&argc, &argv);          // MPI_Init + watchdog
 *   TAP_CHECK(buf[i] == want, "put wrote byte %d", i);   // local record, no output
 *   tap_ok("contiguous put");        // collective: ok if every rank's checks held
 *   return tap_done();               // MPI_Finalize, plan, exit status
 *
 * A watchdog alarm (TAP_TIMEOUT seconds, default 100, or env RMAIB_TEST_TIMEOUT minus
 * a margin) aborts a hung test with a "Bail out!" line, so a hang fails, never blocks.
 */
#ifndef RMAIB_TEST_TAP_H
#define RMAIB_TEST_TAP_H

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tap_n;                /* checks printed so far */
static int tap_local_fail;       /* failures recorded on this rank since the last tap_ok */
static int tap_failed;           /* tap_ok lines that failed */
static int tap_rank, tap_size;
static char tap_why[512];

static void tap_alarm(int sig)
{
    (void) sig;
    static const char msg[] = "Bail out! test timed out (watchdog)\n";
    ssize_t w = write(1, msg, sizeof msg - 1);
    (void) w;
    _exit(124);
}

/* tap_init with MPI_Init_thread: *provided gets the level MPI granted. */
static inline void tap_init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (required == MPI_THREAD_SINGLE)
        MPI_Init(argc, argv);
    else
        MPI_Init_thread(argc, argv, required, provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &tap_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &tap_size);
    int secs = 100;
    const char *e = getenv("RMAIB_TEST_TIMEOUT");
    if (e && atoi(e) > 20)
        secs = atoi(e) - 10;
    signal(SIGALRM, tap_alarm);
    alarm((unsigned) secs);
}

static inline void tap_init(int *argc, char ***argv)
{
    tap_init_thread(argc, argv, MPI_THREAD_SINGLE, NULL);
}

/* Record a local failure with a reason (kept: the first one since the last tap_ok). */
static inline void tap_fail(const char *fmt, ...)
{
    if (tap_local_fail++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tap_why, sizeof tap_why, fmt, ap);
        va_end(ap);
    }
}

#define TAP_CHECK(cond, ...) do { if (!(cond)) tap_fail(__VA_ARGS__); } while (0)

/* Collective: one TAP line for everything checked since the previous call. */
static inline int tap_ok(const char *fmt, ...)
{
    char desc[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(desc, sizeof desc, fmt, ap);
    va_end(ap);
    int bad = tap_local_fail != 0, anybad = 0;
    if (bad) {
        fprintf(stdout, "# rank %d: %s (%d failed checks)\n", tap_rank, tap_why, tap_local_fail);
        fflush(stdout);
    }
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    tap_n++;
    if (tap_rank == 0) {
        printf("%s %d - %s\n", anybad ? "not ok" : "ok", tap_n, desc);
        fflush(stdout);
    }
    tap_failed += anybad;
    tap_local_fail = 0;
    return !anybad;
}

/* A check skipped for a reason (collective, printed by rank 0). */
static inline void tap_skip(const char *desc, const char *reason)
{
    tap_n++;
    if (tap_rank == 0) {
        printf("ok %d - %s # SKIP %s\n", tap_n, desc, reason);
        fflush(stdout);
    }
    tap_local_fail = 0;
}

/* Print a TAP diagnostic ("# ...") from rank 0. */
#define TAP_DIAG(...) do { \
        if (tap_rank == 0) { printf("# " __VA_ARGS__); printf("\n"); fflush(stdout); } \
    } while (0)

/* The size of a run (iterations, epochs): `dflt` unless env `name` gives a positive one. */
static inline int tap_env_int(const char *name, int dflt)
{
    const char *e = getenv(name);
    int v = e ? atoi(e) : 0;
    return v > 0 ? v : dflt;
}

static inline int tap_done(void)
{
    MPI_Finalize();
    if (tap_rank == 0) {
        printf("1..%d\n", tap_n);
        fflush(stdout);
    }
    return tap_failed ? 1 : 0;
}

#endif
