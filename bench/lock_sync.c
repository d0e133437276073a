/*
 * lock_sync: the passive-target synchronisation micro-benchmarks of seed 002
 * (Jiang 2004, §4.4; research/seed-002.md §4.3 and §6.4 B9-B11). Rank 0 is the
 * target of every lock; the other ranks are origins. Exclusive locks throughout.
 *
 *   overhead     (B9)  origin 1 loops MPI_Win_lock + MPI_Win_unlock with no data.
 *                      Reports the pair, and lock and unlock calls timed apart.
 *                      An MPI may return from MPI_Win_lock before the lock is held
 *                      (MPICH defers it to the unlock), so the split says where an
 *                      implementation spends the time, not when the lock is held.
 *   delay        (B10) origins 1 and 2 alternate on one lock: in even iterations
 *                      origin 1 takes it first, in odd ones origin 2. The first
 *                      holder keeps it for E us (-e); the second asks E/2 after the
 *                      round starts (both wait in nanosleep, not spinning, so that
 *                      they do not starve each other of the CPU). Delay = the second's acquisition (lock + an
 *                      8-byte get + flush, which forces the lock to be held) minus
 *                      the first's release, median over the rounds in which the
 *                      second was already waiting. "handover" subtracts an uncontended
 *                      lock + get + flush measured the same way. Needs 3+ ranks on
 *                      one node (the two origins compare CLOCK_MONOTONIC readings).
 *   concurrency  (B11) N origins, N windows: origin k loops lock/unlock on window k
 *                      (target rank 0). Mean time per iteration for N = 1..P-1.
 *
 * Message counts per acquisition (B12) are counted inside rmaib, not here.
 * -s overhead,delay,concurrency picks parts (default all that the rank count allows).
 */
#define _GNU_SOURCE
#include "osu_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

enum { P_OVERHEAD = 1, P_DELAY = 2, P_CONCURRENCY = 4 };

typedef struct {
    unsigned parts;
    double hold_us;   /* -e */
} ls_args_t;

static int parse_extra(int opt, const char *arg, void *data)
{
    ls_args_t *a = data;
    char buf[128], *tok, *save = NULL;

    if (opt == 'e') {
        a->hold_us = atof(arg);
        return a->hold_us <= 0;
    }
    if (opt != 's' || strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    a->parts = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "overhead"))
            a->parts |= P_OVERHEAD;
        else if (!strcmp(tok, "delay"))
            a->parts |= P_DELAY;
        else if (!strcmp(tok, "concurrency"))
            a->parts |= P_CONCURRENCY;
        else if (!strcmp(tok, "all"))
            a->parts = P_OVERHEAD | P_DELAY | P_CONCURRENCY;
        else
            return -1;
    }
    return a->parts == 0;
}

static double now_mono(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Wait without using the CPU: on a 2-core machine with 3+ ranks a spinning
 * holder would keep the other origin off the CPU and invert the order. */
static void sleep_us(double us)
{
    struct timespec ts;

    ts.tv_sec = (time_t) (us / 1e6);
    ts.tv_nsec = (long) ((us - ts.tv_sec * 1e6) * 1e3);
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static const char *variant(const osu_opts_t *o)
{
    return o->lock_alg ? o->lock_alg : "default";
}

static void report(const osu_opts_t *o, const char *part, size_t x, const char *metric,
                   double us, const char *label)
{
    char name[64];

    if (o->csv) {
        snprintf(name, sizeof name, "lock_sync_%s", part);
        osu_row(o, name, variant(o), o->win, x, metric, us, "us");
    } else {
        printf("%-14s%-22s%6zu%16.3f\n", part, label, x, us);
        fflush(stdout);
    }
}

/* B9: one origin, lock + unlock, no data. */
static void part_overhead(const osu_opts_t *o, const osu_win_t *w, int rank)
{
    int skip = o->skip, n = o->iters, capped = o->time_cap > 0, i;
    double t_first = 0, t0 = 0, t1 = 0, t_lock = 0, t_unlock = 0;

    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 1) {
        MPI_Win win = w->win;
        OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
                       OSU_CHECK(MPI_Win_unlock(0, win));)
        t1 = MPI_Wtime();
        /* Same loop again with each call timed on its own. */
        for (i = 0; i < n; i++) {
            double a = MPI_Wtime(), b, c;
            OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
            b = MPI_Wtime();
            OSU_CHECK(MPI_Win_unlock(0, win));
            c = MPI_Wtime();
            t_lock += b - a;
            t_unlock += c - b;
        }
        double r[3] = { (t1 - t0) * 1e6 / n, t_lock * 1e6 / n, t_unlock * 1e6 / n };
        OSU_CHECK(MPI_Send(r, 3, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD));
    } else if (rank == 0) {
        double r[3];
        OSU_CHECK(MPI_Recv(r, 3, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        report(o, "overhead", 0, "lock_unlock", r[0], "lock+unlock");
        report(o, "overhead", 0, "lock", r[1], "lock call");
        report(o, "overhead", 0, "unlock", r[2], "unlock call");
    }
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Lock (exclusive) and make sure it is held: an 8-byte get + flush needs it. */
static void acquire(MPI_Win win, MPI_Aint disp, int64_t *v)
{
    OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
    OSU_CHECK(MPI_Get(v, 1, MPI_INT64_T, 0, disp, 1, MPI_INT64_T, win));
    OSU_CHECK(MPI_Win_flush(0, win));
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;

    return x < y ? -1 : x > y;
}

/* B10: two origins alternating on one lock, first holder keeps it E us. */
static void part_delay(const osu_opts_t *o, const osu_win_t *w, int rank, double hold_us)
{
    int iters = o->iters, rounds = 0, local_n, nprocs, go = 1;
    double *t_rel = NULL, *t_acq = NULL, *t_req = NULL, ref = 0, start;
    MPI_Comm node;
    int64_t v;

    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local_n);
    MPI_Comm_free(&node);
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);   /* sleeps of E/2 should not overshoot by 50 us */
    if (local_n != nprocs) {
        if (rank == 0)
            printf("# delay: skipped, the origins must share a node (clock comparison)\n");
        return;
    }

    if (rank == 1 || rank == 2) {
        t_rel = calloc((size_t) iters, sizeof *t_rel);
        t_acq = calloc((size_t) iters, sizeof *t_acq);
        t_req = calloc((size_t) iters, sizeof *t_req);
        /* Reference: uncontended acquire, same calls. */
        if (rank == 1) {
            int nref = iters < 200 ? iters : 200;
            for (int i = 0; i < 20 + nref; i++) {
                double a = now_mono();
                acquire(w->win, w->disp0, &v);
                if (i >= 20)
                    ref += now_mono() - a;
                OSU_CHECK(MPI_Win_unlock(0, w->win));
            }
            ref /= nref;
        }
    }
    /* Each round starts with an allreduce, a barrier that also carries rank 0's
     * decision to go on (-T caps the whole part). */
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    start = MPI_Wtime();
    for (int k = 0;; k++) {
        int first = k % 2 == 0 ? 1 : 2, mine = 0;
        if (rank == 0)
            mine = !(k < iters &&
                     (o->time_cap <= 0 || k < 10 || MPI_Wtime() - start < 2 * o->time_cap));
        OSU_CHECK(MPI_Allreduce(&mine, &go, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
        if (go)
            break;
        rounds = k + 1;
        if (rank == first) {
            acquire(w->win, w->disp0, &v);
            sleep_us(hold_us);
            t_rel[k] = now_mono();
            OSU_CHECK(MPI_Win_unlock(0, w->win));
        } else if (rank == 1 || rank == 2) {
            sleep_us(hold_us / 2);
            t_req[k] = now_mono();
            acquire(w->win, w->disp0, &v);
            t_acq[k] = now_mono();
            OSU_CHECK(MPI_Win_unlock(0, w->win));
        }
    }
    /* Origin 2 sends its timestamps to origin 1, which pairs them up. */
    if (rank == 2) {
        OSU_CHECK(MPI_Send(t_rel, rounds, MPI_DOUBLE, 1, 1, MPI_COMM_WORLD));
        OSU_CHECK(MPI_Send(t_acq, rounds, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD));
        OSU_CHECK(MPI_Send(t_req, rounds, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD));
    } else if (rank == 1) {
        double *r2 = malloc(sizeof *r2 * (size_t) rounds * 3 + 1);
        double *d = malloc(sizeof *d * (size_t) rounds + 1), r[4];
        int nd = 0;
        OSU_CHECK(MPI_Recv(r2, rounds, MPI_DOUBLE, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        OSU_CHECK(MPI_Recv(r2 + rounds, rounds, MPI_DOUBLE, 2, 2, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        OSU_CHECK(MPI_Recv(r2 + 2 * rounds, rounds, MPI_DOUBLE, 2, 3, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE));
        for (int k = 0; k < rounds; k++) {
            /* even k: 1 released, 2 acquired; odd k: the other way round */
            double rel = k % 2 == 0 ? t_rel[k] : r2[k];
            double acq = k % 2 == 0 ? r2[rounds + k] : t_acq[k];
            double req = k % 2 == 0 ? r2[2 * rounds + k] : t_req[k];
            /* A round where the second asked only after the release, or got the
             * lock before the first (the scheduler kept one origin off the CPU),
             * measured no handover: leave it out. */
            if (req < rel && acq > rel)
                d[nd++] = acq - rel;
        }
        qsort(d, (size_t) nd, sizeof *d, cmp_double);
        r[0] = nd ? d[nd / 2] * 1e6 : -1;
        r[1] = ref * 1e6;
        r[2] = nd ? r[0] - r[1] : -1;
        r[3] = nd;
        OSU_CHECK(MPI_Send(r, 4, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD));
        free(r2);
        free(d);
    }
    if (rank == 0) {
        double r[4];
        OSU_CHECK(MPI_Recv(r, 4, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (!o->csv)
            printf("# delay: median over the %d of %d rounds where the second origin was"
                   " already waiting\n", (int) r[3], rounds);
        if (r[3] > 0) {
            report(o, "delay", (size_t) hold_us, "delay", r[0], "release->acquire");
            report(o, "delay", (size_t) hold_us, "uncontended", r[1], "uncontended acquire");
            report(o, "delay", (size_t) hold_us, "handover", r[2], "handover");
        }
    }
    free(t_rel);
    free(t_acq);
    free(t_req);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

/* B11: N origins, each on its own window, all targeting rank 0. */
static void part_concurrency(const osu_opts_t *o, int rank, int nprocs)
{
    int norig = nprocs - 1;
    osu_win_t *wins = calloc((size_t) norig, sizeof *wins);

    for (int k = 0; k < norig; k++)
        osu_win_create(&wins[k], 64, o->win, o, MPI_COMM_WORLD, 0);

    for (int N = 1;; N = 2 * N < norig ? 2 * N : norig) {
        int skip = o->skip, n = o->iters, capped = o->time_cap > 0, i;
        double t_first = 0, t0 = 0, t1 = 0, mine = 0, sum = 0;

        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank >= 1 && rank <= N) {
            MPI_Win win = wins[rank - 1].win;
            OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
                           OSU_CHECK(MPI_Win_unlock(0, win));)
            t1 = MPI_Wtime();
            mine = (t1 - t0) * 1e6 / n;
        }
        osu_barrier(MPI_COMM_WORLD, rank > N);
        OSU_CHECK(MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
        if (rank == 0)
            report(o, "concurrency", (size_t) N, "lock_unlock", sum / N, "lock+unlock, N origins");
        if (N == norig)
            break;
    }
    for (int k = 0; k < norig; k++)
        osu_win_free(&wins[k]);
    free(wins);
}

int main(int argc, char **argv)
{
    ls_args_t a = { P_OVERHEAD | P_DELAY | P_CONCURRENCY, 100.0 };
    osu_opts_t o;
    osu_win_t w;
    int rank, nprocs, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = osu_parse(argc, argv, NULL, &o, "e:", parse_extra, &a,
                   "  -s PARTS   comma-separated: overhead delay concurrency all (default all)\n"
                   "  -e US      delay: how long the first holder keeps the lock (default 100)\n");
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "lock_sync needs at least 2 ranks (3 for delay)\n");
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    if (o.iters == 10000)   /* OMB's latency default; lock rounds need fewer */
        o.iters = 1000;

    if (rank == 0) {
        if (o.csv)
            osu_csv_header(&o);
        else
            printf("# Lock synchronisation (seed 002 §4.3), target rank 0, %d ranks, %s window,"
                   " lock=%s\n%-14s%-22s%6s%16s\n", nprocs, osu_flavor_name(o.win), variant(&o),
                   "# Part", "Figure", "x", "Time (us)");
        fflush(stdout);
    }
    osu_win_create(&w, 64, o.win, &o, MPI_COMM_WORLD, 0);
    if (a.parts & P_OVERHEAD)
        part_overhead(&o, &w, rank);
    if (a.parts & P_DELAY) {
        if (nprocs >= 3)
            part_delay(&o, &w, rank, a.hold_us);
        else if (rank == 0)
            printf("# delay: skipped, needs 3 ranks (target + 2 origins)\n");
    }
    osu_win_free(&w);
    if (a.parts & P_CONCURRENCY)
        part_concurrency(&o, rank, nprocs);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
