/*
 * threads_lock_per_target: with MPI_THREAD_MULTIPLE, the threads of every rank hold
 * passive-target locks on different targets of one window at once (issue #35,
 * pattern b; over tcp;ofi_rxm a thread per target once crashed rmaib).
 *
 * Thread i of T works on target i % P; threads that share a target take turns (a
 * mutex of the test), as MPI requires of one process's epochs on one target.  Each
 * round a thread locks its target (exclusive or shared, alternately), puts a block
 * that names origin, thread and round (MPI_Put, or MPI_Rput + MPI_Wait every third
 * round) into its own slot there, adds 1 to its slot's counter (MPI_Accumulate),
 * flushes, reads the block back (MPI_Get) and unlocks.  Afterwards each target
 * checks every byte of every slot: the last round's block and a counter of R, and
 * slots of threads that never came untouched.  On an allocated, a created and a
 * dynamic window.  Env THREADS_T (default 4, at most 8) and THREADS_R (default 30).
 */
#include <pthread.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"
#include "thread_jobs.h"

enum { TMAX = 8, BLOCK = 3000, SLOT = BLOCK + 8 };
enum { WIN_DYNAMIC = WIN_CREATE + 1, NKINDS };

static const char *const kind_name[NKINDS] = {
    "MPI_Win_allocate", "MPI_Win_create", "MPI_Win_create_dynamic"
};
static int T, R;
static MPI_Aint *dyn_base;              /* dynamic windows: each rank's attached memory */
static pthread_mutex_t turn[TMAX];     /* per target (index t % TMAX): one epoch at a time */

typedef struct job {
    MPI_Win win;
    MPI_Aint disp0;                     /* where the target's memory starts */
    int id;
    int fails;
    char why[200];
} job_t;

static unsigned char tag(int origin, int thread, int round, int i)
{
    return bpat(origin * TMAX + thread, round, i);
}

static MPI_Aint slot_off(int origin, int thread)
{
    return (MPI_Aint) (origin * TMAX + thread) * SLOT;
}

static void *work(void *arg)
{
    job_t *j = arg;
    int t = j->id % tap_size;
    unsigned char *out = malloc(BLOCK), *back = malloc(BLOCK);
    const int64_t one = 1;
    MPI_Aint off = j->disp0 + slot_off(tap_rank, j->id);
    for (int r = 0; r < R; r++) {
        for (int i = 0; i < BLOCK; i++)
            out[i] = tag(tap_rank, j->id, r, i);
        pthread_mutex_lock(&turn[t % TMAX]);
        JOB_OK(j, MPI_Win_lock(r % 2 ? MPI_LOCK_SHARED : MPI_LOCK_EXCLUSIVE, t, 0, j->win));
        if (r % 3 == 2) {
            MPI_Request req = MPI_REQUEST_NULL;
            JOB_OK(j, MPI_Rput(out, BLOCK, MPI_BYTE, t, off, BLOCK, MPI_BYTE, j->win, &req));
            JOB_OK(j, MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            JOB_OK(j, MPI_Put(out, BLOCK, MPI_BYTE, t, off, BLOCK, MPI_BYTE, j->win));
        }
        JOB_OK(j, MPI_Accumulate(&one, 1, MPI_INT64_T, t, off + BLOCK, 1, MPI_INT64_T, MPI_SUM,
                                 j->win));
        JOB_OK(j, MPI_Win_flush(t, j->win));
        memset(back, 0, BLOCK);
        JOB_OK(j, MPI_Get(back, BLOCK, MPI_BYTE, t, off, BLOCK, MPI_BYTE, j->win));
        JOB_OK(j, MPI_Win_unlock(t, j->win));
        pthread_mutex_unlock(&turn[t % TMAX]);
        if (memcmp(back, out, BLOCK) != 0)
            JOB_FAIL(j, "thread %d, round %d: the block read back from target %d differs",
                     j->id, r, t);
    }
    free(out);
    free(back);
    return NULL;
}

/* win_open's windows, or a dynamic one with bytes attached (addresses in dyn_base). */
static kind_win_t open_kind(int kind, MPI_Aint bytes)
{
    if (kind != WIN_DYNAMIC)
        return win_open(kind, bytes, 1, SENT_BYTE);
    kind_win_t w = { MPI_WIN_NULL, NULL, malloc((size_t) bytes), bytes };
    MPI_Aint mine;
    w.base = w.mem;
    memset(w.mem, SENT_BYTE, (size_t) bytes);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w.win);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    EXPECT_OK(MPI_Win_attach(w.win, w.mem, bytes), "MPI_Win_attach");
    MPI_Get_address(w.mem, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, dyn_base, 1, MPI_AINT, MPI_COMM_WORLD);
    return w;
}

static void run(int kind)
{
    MPI_Aint bytes = (MPI_Aint) tap_size * TMAX * SLOT;
    kind_win_t w = open_kind(kind, bytes);
    job_t job[TMAX];
    pthread_t th[TMAX];

    for (int i = 0; i < T; i++) {
        MPI_Aint disp0 = kind == WIN_DYNAMIC ? dyn_base[i % tap_size] : 0;
        job[i] = (job_t) { w.win, disp0, i, 0, "" };
        if (pthread_create(&th[i], NULL, work, &job[i]) != 0)
            tap_fail("pthread_create failed");
    }
    for (int i = 0; i < T; i++) {
        pthread_join(th[i], NULL);
        if (job[i].fails)
            tap_fail("%s (%d failures)", job[i].why, job[i].fails);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    self_begin(w.win, MPI_LOCK_SHARED);
    const unsigned char *mem = w.base;
    for (int o = 0; o < tap_size; o++) {
        for (int i = 0; i < TMAX; i++) {
            const unsigned char *s = mem + slot_off(o, i);
            int came = i < T && i % tap_size == tap_rank, bad = -1;
            for (int b = 0; b < BLOCK && bad < 0; b++)
                if (s[b] != (came ? tag(o, i, R - 1, b) : SENT_BYTE))
                    bad = b;
            TAP_CHECK(bad < 0, "slot of rank %d thread %d: byte %d is %u, expected %u", o, i,
                      bad, bad < 0 ? 0 : s[bad], bad < 0 ? 0 : (came ? tag(o, i, R - 1, bad)
                                                               : SENT_BYTE));
            int64_t c;
            memcpy(&c, s + BLOCK, sizeof c);
            int64_t sent;
            memset(&sent, SENT_BYTE, sizeof sent);
            TAP_CHECK(c == (came ? sent + R : sent),
                      "counter of rank %d thread %d is %lld, expected %lld", o, i,
                      (long long) c, (long long) (came ? sent + R : sent));
        }
    }
    self_end(w.win);
    if (kind == WIN_DYNAMIC)
        MPI_Win_detach(w.win, w.mem);
    win_close(&w);
    tap_ok("%s: %d ranks x %d threads, each locking its own target %d times", kind_name[kind],
           tap_size, T, R);
}

int main(int argc, char **argv)
{
    int provided = MPI_THREAD_SINGLE;
    tap_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    T = tap_env_int("THREADS_T", 4);
    T = T > TMAX ? TMAX : T;
    R = tap_env_int("THREADS_R", 30);
    for (int i = 0; i < TMAX; i++)
        pthread_mutex_init(&turn[i], NULL);
    if (provided < MPI_THREAD_MULTIPLE) {
        for (int kind = 0; kind < NKINDS; kind++)
            tap_skip(kind_name[kind], "MPI_THREAD_MULTIPLE not granted");
        return tap_done();
    }
    dyn_base = malloc((size_t) tap_size * sizeof *dyn_base);
    for (int kind = 0; kind < NKINDS; kind++)
        run(kind);
    free(dyn_base);
    return tap_done();
}
