/*
 * threads_active_target: with MPI_THREAD_MULTIPLE, one thread opens and closes an
 * active-target access epoch while T threads of the process issue its operations
 * (issue #52: a bandwidth benchmark's PSCW with 4 threads hung over tcp;ofi_rxm).
 * MPI lets any thread of the process do either; the program orders the calls with
 * thread barriers, as the standard requires.
 *
 *  - PSCW put and PSCW get: the even ranks are origins, the odd ranks targets.  A
 *    target, one thread and no other MPI call, posts to every origin and waits, on
 *    every other epoch 2 ms late, so that the threads' first operations wait for its
 *    post; for gets it first fills what the origins will read.  In each origin the
 *    thread e % T calls MPI_Win_start, then after a thread barrier every thread puts
 *    (or gets) K blocks of its own, each to a target in turn, and after another
 *    barrier thread (e + 1) % T calls MPI_Win_complete and MPI_Barrier over the
 *    origins: the thread that opens the epoch is not the one that closes it, and
 *    neither issues all of it.  After each wait a target checks every byte the
 *    puts wrote; after each complete an origin checks every byte the gets read.
 *  - PSCW both ways at once: after a fence, every rank's main thread posts to all
 *    the others and waits, and checks, while its T threads start, put to all the
 *    others and complete as above: one process's exposure and access epochs run in
 *    different threads at once, and its CQ serves both.
 *  - fence: every rank, T threads; one thread fences, every thread puts its blocks
 *    to the other ranks, another thread fences, each thread checks the blocks its
 *    peers sent here and gets its own back, a third fences, each checks what it read.
 * Blocks of 1 B to THREADS_MAXB (default 64 KiB, doubling), THREADS_E epochs each
 * (default 2), on an allocated and a created window.  Env THREADS_T (default 4, at
 * most 8), THREADS_K (blocks per thread per epoch, default 16).
 */
#include <pthread.h>
#include <unistd.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"
#include "thread_jobs.h"

enum { TMAX = 8 };
enum { PSCW_PUT, PSCW_GET, PSCW_BOTH, FENCE, NPATTERNS };

static const char *const pattern_name[NPATTERNS] = {
    "PSCW, puts", "PSCW, gets", "PSCW both ways at once, puts", "fence, puts then gets"
};
static int T, K, E, MAXB;
static int norigins, ntargets;          /* even ranks, odd ranks */
static MPI_Group origins, targets, others;
static MPI_Comm origin_comm;
static pthread_barrier_t bar;

typedef struct job {
    MPI_Win win;
    unsigned char *mem;                 /* this rank's window memory */
    int pattern, id;
    unsigned char *out, *back;          /* K blocks of MAXB each */
    int fails;
    char why[200];
} job_t;

/* Byte b of block k of thread th of origin o in epoch e. */
static unsigned char tag(int o, int th, int k, int e, long b)
{
    return bpat(o * TMAX + th, e * 64 + k, b);
}

/* Where block k of thread th of the origin with index oi lands at its target. */
static MPI_Aint block_off(int oi, int th, int k)
{
    return (((MPI_Aint) oi * T + th) * K + k) * MAXB;
}

/* Where block k of thread th of origin o goes: PSCW one way, to an odd rank, at the
 * origin's index among the even ones; else to any rank but o, at index o. */
static int target_of(int pattern, int o, int th, int k)
{
    if (pattern == PSCW_PUT || pattern == PSCW_GET)
        return 2 * ((th + k) % ntargets) + 1;
    return (o + 1 + (th + k) % (tap_size - 1)) % tap_size;
}

static MPI_Aint off_of(int pattern, int o, int th, int k)
{
    return block_off(pattern == PSCW_PUT || pattern == PSCW_GET ? o / 2 : o, th, k);
}

static int is_origin(int pattern, int o)
{
    return pattern == PSCW_BOTH || pattern == FENCE || o % 2 == 0;
}

/* Record a failure unless the n bytes at p are tag(o, th, k, e, .). */
static void check_block(job_t *j, const char *what, const unsigned char *p, size_t n, int o,
                        int th, int k, int e)
{
    for (size_t b = 0; b < n; b++)
        if (p[b] != tag(o, th, k, e, (long) b)) {
            JOB_FAIL(j, "%s, %zu-byte blocks, epoch %d: block %d of rank %d thread %d: byte %zu"
                     " is %u, expected %u", what, n, e, k, o, th, b, p[b], tag(o, th, k, e, (long) b));
            return;
        }
}

/* Every block of n bytes that threads th0 .. th1 - 1 of the origins put here in epoch e
 * (or, fill: store what they will get). */
static void blocks_here(job_t *j, int th0, int th1, size_t n, int e, int fill)
{
    for (int o = 0; o < tap_size; o++)
        for (int th = th0; th < th1; th++)
            for (int k = 0; k < K; k++) {
                if (o == tap_rank || !is_origin(j->pattern, o)
                    || target_of(j->pattern, o, th, k) != tap_rank)
                    continue;
                unsigned char *p = j->mem + off_of(j->pattern, o, th, k);
                for (size_t b = 0; b < n && fill; b++)
                    p[b] = tag(o, th, k, e, (long) b);
                if (!fill)
                    check_block(j, "written", p, n, o, th, k, e);
            }
}

/* Thread j's K blocks of n bytes in epoch e: put, each filled with its tag, or got
 * into j->back, zeroed first. */
static void move_blocks(job_t *j, int put, int n, int e)
{
    for (int k = 0; k < K; k++) {
        unsigned char *blk = (put ? j->out : j->back) + (size_t) k * MAXB;
        int t = target_of(j->pattern, tap_rank, j->id, k);
        MPI_Aint off = off_of(j->pattern, tap_rank, j->id, k);
        for (int b = 0; b < n; b++)
            blk[b] = put ? tag(tap_rank, j->id, k, e, b) : 0;
        if (put)
            JOB_OK(j, MPI_Put(blk, n, MPI_BYTE, t, off, n, MPI_BYTE, j->win));
        else
            JOB_OK(j, MPI_Get(blk, n, MPI_BYTE, t, off, n, MPI_BYTE, j->win));
    }
}

/* What thread j got in epoch e is what it put there. */
static void check_got(job_t *j, size_t n, int e)
{
    for (int k = 0; k < K; k++)
        check_block(j, "read", j->back + (size_t) k * MAXB, n, tap_rank, j->id, k, e);
}

/* Everybody's calls so far, then thread `who`'s fence, then everybody's next ones. */
static void fence_by(job_t *j, int who)
{
    pthread_barrier_wait(&bar);
    if (j->id == who)
        JOB_OK(j, MPI_Win_fence(0, j->win));
    pthread_barrier_wait(&bar);
}

static int epoch_of(int size_idx, int rep)
{
    return size_idx * E + rep;
}

/* An origin thread of the PSCW patterns. */
static void pscw_origin(job_t *j)
{
    int both = j->pattern == PSCW_BOTH, put = j->pattern != PSCW_GET;
    for (int s = 0, n = 1; n <= MAXB; s++, n *= 2) {
        for (int rep = 0; rep < E; rep++) {
            int e = epoch_of(s, rep);
            if (j->id == e % T)
                JOB_OK(j, MPI_Win_start(both ? others : targets, 0, j->win));
            pthread_barrier_wait(&bar);
            move_blocks(j, put, n, e);
            pthread_barrier_wait(&bar);
            if (j->id == (e + 1) % T) {
                JOB_OK(j, MPI_Win_complete(j->win));
                if (!both)
                    JOB_OK(j, MPI_Barrier(origin_comm));
            }
            pthread_barrier_wait(&bar);
            if (!put)
                check_got(j, (size_t) n, e);
        }
    }
}

/* A target of the PSCW patterns: the main thread, posting and waiting. */
static void pscw_target_side(job_t *j)
{
    int put = j->pattern != PSCW_GET;
    for (int s = 0, n = 1; n <= MAXB; s++, n *= 2) {
        for (int rep = 0; rep < E; rep++) {
            int e = epoch_of(s, rep);
            if (!put)
                blocks_here(j, 0, T, (size_t) n, e, 1);
            if (e % 2)
                usleep(2000);
            JOB_OK(j, MPI_Win_post(j->pattern == PSCW_BOTH ? others : origins, 0, j->win));
            JOB_OK(j, MPI_Win_wait(j->win));
            if (put)
                blocks_here(j, 0, T, (size_t) n, e, 0);
        }
    }
}

/* A thread of the fence pattern. */
static void fence_thread(job_t *j)
{
    for (int s = 0, n = 1; n <= MAXB; s++, n *= 2) {
        for (int rep = 0; rep < E; rep++) {
            int e = epoch_of(s, rep);
            fence_by(j, e % T);
            move_blocks(j, 1, n, e);
            fence_by(j, (e + 1) % T);
            /* What the other ranks' thread j->id sent here, read while they get theirs. */
            blocks_here(j, j->id, j->id + 1, (size_t) n, e, 0);
            move_blocks(j, 0, n, e);
            fence_by(j, (e + 2) % T);
            check_got(j, (size_t) n, e);
        }
    }
    if (j->id == 0)
        JOB_OK(j, MPI_Win_fence(MPI_MODE_NOSUCCEED, j->win));
}

static void *work(void *arg)
{
    job_t *j = arg;
    if (j->pattern == FENCE)
        fence_thread(j);
    else
        pscw_origin(j);
    return NULL;
}

static void run(int kind, int pattern)
{
    int fence = pattern == FENCE, both = pattern == PSCW_BOTH, origin = tap_rank % 2 == 0;
    MPI_Aint bytes = (MPI_Aint) (fence || both ? tap_size : norigins) * T * K * MAXB;
    kind_win_t w = win_open(kind, bytes, 1, SENT_BYTE);
    job_t job[TMAX];
    pthread_t th[TMAX];
    int nthreads = fence || both || origin ? T : 0;

    /* It opens no epoch, being followed by no other fence: PSCW may come next, and
     * both sides leave the fence's state at once. */
    if (both)
        EXPECT_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win), "MPI_Win_fence");

    for (int i = 0; i < nthreads; i++) {
        job[i] = (job_t) { w.win, w.base, pattern, i, malloc((size_t) K * MAXB),
                           malloc((size_t) K * MAXB), 0, "" };
        if (pthread_create(&th[i], NULL, work, &job[i]) != 0)
            tap_fail("pthread_create failed");
    }
    if (!nthreads || both) {
        job_t t = { w.win, w.base, pattern, 0, NULL, NULL, 0, "" };
        pscw_target_side(&t);
        if (t.fails)
            tap_fail("%s (%d failures)", t.why, t.fails);
    }
    for (int i = 0; i < nthreads; i++) {
        pthread_join(th[i], NULL);
        if (job[i].fails)
            tap_fail("%s (%d failures)", job[i].why, job[i].fails);
        free(job[i].out);
        free(job[i].back);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    win_close(&w);
    tap_ok("%s, %s: %d ranks, %d threads of %s issue %d blocks each of 1 B .. %d B",
           kind == WIN_ALLOCATE ? "MPI_Win_allocate" : "MPI_Win_create", pattern_name[pattern],
           tap_size, T, fence || both ? "every rank" : "each origin", K, MAXB);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    tap_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    T = tap_env_int("THREADS_T", 4);
    T = T > TMAX ? TMAX : T;
    K = tap_env_int("THREADS_K", 16);
    E = tap_env_int("THREADS_E", 2);
    MAXB = tap_env_int("THREADS_MAXB", 64 << 10);
    if (provided < MPI_THREAD_MULTIPLE || tap_size < 2) {
        for (int kind = WIN_ALLOCATE; kind <= WIN_CREATE; kind++)
            for (int p = 0; p < NPATTERNS; p++)
                tap_skip(pattern_name[p], provided < MPI_THREAD_MULTIPLE
                         ? "MPI_THREAD_MULTIPLE not granted" : "needs 2 ranks");
        return tap_done();
    }
    norigins = (tap_size + 1) / 2;
    ntargets = tap_size / 2;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *even = malloc(sizeof(int) * (size_t) norigins);
    int *odd = malloc(sizeof(int) * (size_t) ntargets);
    for (int r = 0; r < tap_size; r++)
        (r % 2 ? odd : even)[r / 2] = r;
    MPI_Group_incl(world, norigins, even, &origins);
    MPI_Group_incl(world, ntargets, odd, &targets);
    MPI_Group_excl(world, 1, &tap_rank, &others);
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank % 2, tap_rank, &origin_comm);
    pthread_barrier_init(&bar, NULL, (unsigned) T);
    for (int kind = WIN_ALLOCATE; kind <= WIN_CREATE; kind++)
        for (int p = 0; p < NPATTERNS; p++)
            run(kind, p);
    pthread_barrier_destroy(&bar);
    MPI_Comm_free(&origin_comm);
    MPI_Group_free(&origins);
    MPI_Group_free(&targets);
    MPI_Group_free(&others);
    MPI_Group_free(&world);
    free(even);
    free(odd);
    return tap_done();
}
