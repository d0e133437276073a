/*
 * threads_fop_lock_all: with MPI_THREAD_MULTIPLE, T threads of every rank share one
 * MPI_Win_lock_all epoch and hammer a counter at every target at once (issue #35,
 * pattern a; stock MPICH loses or duplicates updates here).
 *
 * Each thread, K rounds, to every target (starting at a different one per thread):
 *  - element 0 += 1, fetching: MPI_Fetch_and_op + MPI_Win_flush (even threads) or
 *    MPI_Rget_accumulate + MPI_Wait + MPI_Win_flush_local (odd threads);
 *  - element 1 += 1 without fetching (MPI_Accumulate, left in flight), with an
 *    MPI_Win_flush_all every 8 rounds.
 * Afterwards every target's elements are P*T*K, and the P*T*K values fetched from
 * each target are 0 .. P*T*K-1, each once: a duplicate or a gap is a lost update.
 * On an allocated, a created and a dynamic window.  Env THREADS_T (default 4, at
 * most 8) and THREADS_K (default 40).
 */
#include <pthread.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"
#include "thread_jobs.h"

enum { TMAX = 8 };
enum { WIN_DYNAMIC = WIN_CREATE + 1, NKINDS };

static const char *const kind_name[NKINDS] = {
    "MPI_Win_allocate", "MPI_Win_create", "MPI_Win_create_dynamic"
};
static int T, K;
/* Where element e of target t is: base[t] + e * unit (dynamic windows: addresses). */
static MPI_Aint *base, unit;

typedef struct job {
    MPI_Win win;
    int id;
    int64_t *seen;              /* [target][k]: what this thread fetched */
    int fails;
    char why[200];
} job_t;

static void *hammer(void *arg)
{
    job_t *j = arg;
    const int64_t one = 1;
    for (int k = 0; k < K; k++) {
        for (int s = 0; s < tap_size; s++) {
            int t = (s + j->id) % tap_size;
            int64_t old = -1;
            if (j->id % 2 == 0) {
                JOB_OK(j, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, base[t], MPI_SUM, j->win));
                JOB_OK(j, MPI_Win_flush(t, j->win));
            } else {
                MPI_Request req = MPI_REQUEST_NULL;
                JOB_OK(j, MPI_Rget_accumulate(&one, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, t,
                                              base[t], 1, MPI_INT64_T, MPI_SUM, j->win, &req));
                JOB_OK(j, MPI_Wait(&req, MPI_STATUS_IGNORE));
                JOB_OK(j, MPI_Win_flush_local(t, j->win));
            }
            j->seen[(size_t) t * (size_t) K + (size_t) k] = old;
            JOB_OK(j, MPI_Accumulate(&one, 1, MPI_INT64_T, t, base[t] + unit, 1, MPI_INT64_T,
                                     MPI_SUM, j->win));
        }
        if (k % 8 == 7)
            JOB_OK(j, MPI_Win_flush_all(j->win));
    }
    return NULL;
}

/* At target t: the values every thread of every rank fetched from it, once each. */
static void check_fetched(const int64_t *all, int64_t n, int t)
{
    char *hit = calloc((size_t) n, 1);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = all[i];
        if (v < 0 || v >= n) {
            tap_fail("target %d handed out %lld, outside 0..%lld", t, (long long) v,
                     (long long) n - 1);
        } else if (hit[v]++) {
            tap_fail("target %d handed out %lld twice (a lost update)", t, (long long) v);
        }
    }
    free(hit);
}

/* win_open's windows, or a dynamic one with bytes attached, zeroed. */
static kind_win_t open_kind(int kind, MPI_Aint bytes)
{
    for (int t = 0; t < tap_size; t++)
        base[t] = 0;
    unit = 1;
    if (kind != WIN_DYNAMIC)
        return win_open(kind, bytes, sizeof(int64_t), 0);
    kind_win_t w = { MPI_WIN_NULL, NULL, calloc(1, (size_t) bytes), bytes };
    MPI_Aint mine;
    w.base = w.mem;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    EXPECT_OK(MPI_Win_attach(w.win, w.mem, bytes), "MPI_Win_attach");
    MPI_Get_address(w.mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, base, 1, MPI_AINT, MPI_COMM_WORLD);
    unit = sizeof(int64_t);
    return w;
}

static void run(int kind)
{
    kind_win_t w = open_kind(kind, 2 * sizeof(int64_t));
    job_t job[TMAX];
    pthread_t th[TMAX];
    size_t per = (size_t) tap_size * (size_t) K;

    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    for (int i = 0; i < T; i++) {
        job[i] = (job_t) { w.win, i, malloc(per * sizeof(int64_t)), 0, "" };
        if (pthread_create(&th[i], NULL, hammer, &job[i]) != 0)
            tap_fail("pthread_create failed");
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        if (job[i].fails)
            tap_fail("%s (%d failed calls)", job[i].why, job[i].fails);
    }
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);

    int64_t n = (int64_t) tap_size * T * K;
    self_begin(w.win, MPI_LOCK_SHARED);
    const int64_t *mine = w.base;
    TAP_CHECK(mine[0] == n && mine[1] == n, "counters end at %lld (fetched) and %lld, expected %lld",
              (long long) mine[0], (long long) mine[1], (long long) n);
    self_end(w.win);

    /* Per target, what each thread fetched from it: [thread][k] in one row per rank. */
    int64_t *row = malloc((size_t) T * (size_t) K * sizeof(int64_t));
    int64_t *all = malloc((size_t) n * sizeof(int64_t));
    for (int t = 0; t < tap_size; t++) {
        for (int i = 0; i < T; i++)
            memcpy(row + (size_t) i * (size_t) K, job[i].seen + (size_t) t * (size_t) K,
                   (size_t) K * sizeof(int64_t));
        MPI_Gather(row, T * K, MPI_INT64_T, all, T * K, MPI_INT64_T, t, MPI_COMM_WORLD);
        if (tap_rank == t)
            check_fetched(all, n, t);
    }
    free(all);
    free(row);
    for (int i = 0; i < T; i++)
        free(job[i].seen);
    if (kind == WIN_DYNAMIC)
        MPI_Win_detach(w.win, w.mem);
    win_close(&w);
    tap_ok("%s: %d ranks x %d threads x %d fetching and %d plain adds to every target in "
           "one lock_all", kind_name[kind], tap_size, T, K, K);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    tap_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    T = tap_env_int("THREADS_T", 4);
    T = T > TMAX ? TMAX : T;
    K = tap_env_int("THREADS_K", 40);
    if (provided < MPI_THREAD_MULTIPLE) {
        for (int kind = 0; kind < NKINDS; kind++)
            tap_skip(kind_name[kind], "MPI_THREAD_MULTIPLE not granted");
        return tap_done();
    }
    base = malloc((size_t) tap_size * sizeof *base);
    for (int kind = 0; kind < NKINDS; kind++)
        run(kind);
    free(base);
    return tap_done();
}
