/*
 * The shared half of the one-sided suite: options, windows, OMB 6.1's loops, output.
 *
 * The loops follow OMB 6.1 (c/mpi/one-sided/osu_*.c) call for call: where the
 * timer starts, which rank does what in fence and pscw, what is divided by what.
 * The one addition is -T (off by default): it caps the time one point may take,
 * which bench-compare needs on a loaded two-core machine where a software RMA
 * path can be a thousand times slower than usual.
 */
#define _GNU_SOURCE
#include "osu_common.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static const char *const sync_names[OSU_SYNC_COUNT] = {
    "lock", "pscw", "fence", "flush", "flush_local", "lock_all"
};
static const char *const sync_calls[OSU_SYNC_COUNT] = {
    "MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait", "MPI_Win_fence",
    "MPI_Win_flush", "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"
};
static const char *const flavor_names[] = { "create", "allocate", "dynamic" };
static const char *const flavor_calls[] = {
    "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_create_dynamic"
};

const char *osu_sync_name(int sync)
{
    return sync >= 0 && sync < OSU_SYNC_COUNT ? sync_names[sync] : "?";
}

const char *osu_flavor_name(int flavor)
{
    return flavor >= 0 && flavor <= OSU_WIN_DYNAMIC ? flavor_names[flavor] : "?";
}

void osu_fail(const char *what, int rc, const char *file, int line)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* ---------------------------------------------------------------- options */

static int my_rank(void)
{
    int r = 0, init = 0;

    MPI_Initialized(&init);
    if (init)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;

    if (*s == '\0')
        return -1;
    v = strtoull(s, &end, 10);
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end != '\0')
        return -1;
    *out = (size_t) v;
    return 0;
}

/* OMB's -m: "MAX", "MIN:MAX", "MIN:" */
static int parse_range(const char *arg, osu_opts_t *o)
{
    char buf[64];
    char *colon;

    if (strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    colon = strchr(buf, ':');
    if (!colon)
        return parse_size(buf, &o->max_size);
    *colon = '\0';
    if (buf[0] && parse_size(buf, &o->min_size))
        return -1;
    if (colon[1] && parse_size(colon + 1, &o->max_size))
        return -1;
    return 0;
}

static void usage(const osu_bench_t *b, const char *prog, const char *extra_usage)
{
    printf("Usage: %s [options]\n", prog);
    printf("OSU (OMB 6.1) compatible one-sided benchmark; plain MPI, exactly 2 ranks"
           " unless stated.\n\nOptions:\n");
    if (b) {
        printf("  -s SYNC    synchronisation:");
        for (int s = 0; s < OSU_SYNC_COUNT; s++)
            if (!b || (b->syncs & OSU_SYNC_BIT(s)))
                printf(" %s", sync_names[s]);
        printf(" (default %s)\n", b ? sync_names[b->def_sync] : "flush");
    }
    printf("  -w WIN     window: create | allocate | dynamic (default %s)\n",
           b ? flavor_names[b->def_win] : "allocate");
    printf("  -m [MIN:]MAX  message sizes in bytes (default 1:%lu; K and M suffixes)\n",
           (unsigned long) OSU_MAX_MESSAGE_SIZE);
    printf("  -i N       timed iterations per size (sets small and large; OMB default"
           " %d/%d latency, %d/%d bandwidth)\n",
           OSU_LAT_LOOP_SMALL, OSU_LAT_LOOP_LARGE, OSU_BW_LOOP_SMALL, OSU_BW_LOOP_LARGE);
    printf("  -x N       warm-up iterations per size (sets small and large)\n");
    if (b && b->kind != OSU_LAT)
        printf("  -W N       operations per synchronisation (default %d)\n", OSU_WINDOW_SIZE);
    printf("  -T SEC     cap each point at about SEC seconds (iterations estimated from\n"
           "             the warm-up; default 0 = OMB's fixed counts)\n");
    printf("  -f FMT     output: table (OSU style, default) or csv\n");
    printf("  -l ALG     set info key rmaib_lock=ALG (tas | mcs) on the windows\n");
    if (b)
        printf("  -B BYTES   windows of at least BYTES (IMB-RMA's one window of the largest\n"
               "             size; default OMB's, the size of the point)\n");
    if (extra_usage)
        fputs(extra_usage, stdout);
    printf("  -h         this help\n");
}

int osu_parse(int argc, char **argv, const osu_bench_t *b, osu_opts_t *o,
              const char *extra_optstring, osu_extra_fn extra, void *data,
              const char *extra_usage)
{
    char optstring[128] = "+:hm:i:x:s:w:W:T:f:l:B:";
    int rank = my_rank();
    int is_bw = b && b->kind != OSU_LAT;
    int c;

    memset(o, 0, sizeof *o);
    o->sync = b ? b->def_sync : OSU_SYNC_FLUSH;
    o->win = b ? b->def_win : OSU_WIN_ALLOCATE;
    o->min_size = 1;
    o->max_size = OSU_MAX_MESSAGE_SIZE;
    o->iters = is_bw ? OSU_BW_LOOP_SMALL : OSU_LAT_LOOP_SMALL;
    o->skip = is_bw ? OSU_BW_SKIP_SMALL : OSU_LAT_SKIP_SMALL;
    o->iters_large = is_bw ? OSU_BW_LOOP_LARGE : OSU_LAT_LOOP_LARGE;
    o->skip_large = is_bw ? OSU_BW_SKIP_LARGE : OSU_LAT_SKIP_LARGE;
    o->window_size = OSU_WINDOW_SIZE;
    if (extra_optstring)
        strncat(optstring, extra_optstring, sizeof optstring - strlen(optstring) - 1);

    optind = 1;
    while ((c = getopt(argc, argv, optstring)) != -1) {
        const char *bad = NULL;
        switch (c) {
        case 'h':
            if (rank == 0)
                usage(b, argv[0], extra_usage);
            return 1;
        case 'm':
            if (parse_range(optarg, o) || o->min_size > o->max_size)
                bad = "invalid message size range";
            break;
        case 'i':
            o->iters = o->iters_large = atoi(optarg);
            if (o->iters < 1)
                bad = "iterations must be >= 1";
            break;
        case 'x':
            o->skip = o->skip_large = atoi(optarg);
            if (o->skip < 0)
                bad = "warm-up must be >= 0";
            break;
        case 'W':
            o->window_size = atoi(optarg);
            if (o->window_size < 1)
                bad = "window size must be >= 1";
            break;
        case 'T':
            o->time_cap = atof(optarg);
            if (o->time_cap < 0)
                bad = "time cap must be >= 0";
            break;
        case 'f':
            if (!strcasecmp(optarg, "csv"))
                o->csv = 1;
            else if (!strcasecmp(optarg, "table"))
                o->csv = 0;
            else
                bad = "format must be table or csv";
            break;
        case 'B':
            if (parse_size(optarg, &o->min_win))
                bad = "window bytes must be a size";
            break;
        case 'l':
            if (strcmp(optarg, "tas") && strcmp(optarg, "mcs"))
                bad = "lock algorithm must be tas or mcs";
            o->lock_alg = optarg;
            break;
        case 's': {
            int s;
            if (!b) {
                if (!extra || extra(c, optarg, data))
                    bad = "invalid argument";
                break;
            }
            for (s = 0; s < OSU_SYNC_COUNT; s++)
                if (!strcasecmp(optarg, sync_names[s]))
                    break;
            if (s == OSU_SYNC_COUNT || (b && !(b->syncs & OSU_SYNC_BIT(s))))
                bad = "synchronisation not supported by this benchmark";
            else
                o->sync = s;
            break;
        }
        case 'w':
            if (!strcasecmp(optarg, "create"))
                o->win = OSU_WIN_CREATE;
            else if (!strcasecmp(optarg, "allocate"))
                o->win = OSU_WIN_ALLOCATE;
            else if (!strcasecmp(optarg, "dynamic"))
                o->win = OSU_WIN_DYNAMIC;
            else
                bad = "window must be create, allocate or dynamic";
            break;
        case ':':
            bad = "option needs an argument";
            break;
        case '?':
            bad = "unknown option";
            break;
        default:
            if (!extra || extra(c, optarg, data))
                bad = "invalid argument";
            break;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "%s: -%c: %s\n", argv[0], c == ':' || c == '?' ? optopt : c, bad);
                usage(b, argv[0], extra_usage);
            }
            return -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- windows */

MPI_Info osu_info(const osu_opts_t *o)
{
    MPI_Info info = MPI_INFO_NULL;

    if (o && o->lock_alg) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "rmaib_lock", (char *) o->lock_alg);
    }
    return info;
}

void osu_win_create(osu_win_t *w, size_t bytes, int flavor, const osu_opts_t *o,
                    MPI_Comm comm, int peer)
{
    MPI_Info info = osu_info(o);
    long page = sysconf(_SC_PAGESIZE);
    MPI_Aint mine = 0;

    memset(w, 0, sizeof *w);
    w->flavor = flavor;
    if (flavor != OSU_WIN_ALLOCATE) {
        if (posix_memalign((void **) &w->base, (size_t) page, bytes ? bytes : 1)) {
            fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memset(w->base, 'a', bytes);
        w->owns_base = 1;
    }
    switch (flavor) {
    case OSU_WIN_CREATE:
        OSU_CHECK(MPI_Win_create(w->base, (MPI_Aint) bytes, 1, info, comm, &w->win));
        break;
    case OSU_WIN_DYNAMIC:
        OSU_CHECK(MPI_Win_create_dynamic(info, comm, &w->win));
        OSU_CHECK(MPI_Win_attach(w->win, w->base, (MPI_Aint) bytes));
        OSU_CHECK(MPI_Get_address(w->base, &mine));
        break;
    default:
        OSU_CHECK(MPI_Win_allocate((MPI_Aint) bytes, 1, info, comm, &w->base, &w->win));
        memset(w->base, 'a', bytes);
        break;
    }
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    if (flavor == OSU_WIN_DYNAMIC) {
        /* Every rank learns where the peer's memory is (OMB sends it point to point). */
        int n;
        MPI_Aint *all;
        MPI_Comm_size(comm, &n);
        all = malloc(sizeof *all * (size_t) n);
        OSU_CHECK(MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, comm));
        w->disp0 = peer >= 0 && peer < n ? all[peer] : 0;
        free(all);
    }
    OSU_CHECK(MPI_Barrier(comm));
}

void osu_win_free(osu_win_t *w)
{
    if (w->flavor == OSU_WIN_DYNAMIC)
        OSU_CHECK(MPI_Win_detach(w->win, w->base));
    OSU_CHECK(MPI_Win_free(&w->win));
    if (w->owns_base)
        free(w->base);
    w->base = NULL;
}

/* ---------------------------------------------------------------- output */

void osu_csv_header(const osu_opts_t *o)
{
    if (o->csv && my_rank() == 0) {
        printf("bench,variant,window,x,metric,value,unit\n");
        fflush(stdout);
    }
}

void osu_row(const osu_opts_t *o, const char *bench, const char *variant, int flavor,
             size_t x, const char *metric, double value, const char *unit)
{
    if (o->csv)
        printf("%s,%s,%s,%zu,%s,%.6g,%s\n", bench, variant, osu_flavor_name(flavor), x,
               metric, value, unit);
    else
        printf("%-10zu%20.2f\n", x, value);
    fflush(stdout);
}

/* ---------------------------------------------------------------- timing */

int osu_calibrate(const osu_opts_t *o, double t_first, int skip, int iters,
                  MPI_Comm comm, int collective)
{
    int n = iters, rank;

    MPI_Comm_rank(comm, &rank);
    if ((rank == 0 || !collective) && o->time_cap > 0 && skip > 0) {
        double per = (MPI_Wtime() - t_first) / skip;
        if (per > 0 && o->time_cap / per < n) {
            /* A warm-up the scheduler interrupted overestimates; keep enough
             * iterations that one more interruption does not dominate (fewer
             * when one iteration takes a millisecond or more). */
            int floor_n = per < 1e-3 ? 100 : 10;
            n = (int) (o->time_cap / per);
            if (n < floor_n)
                n = iters < floor_n ? iters : floor_n;
        }
    }
    if (collective && o->time_cap > 0)
        OSU_CHECK(MPI_Bcast(&n, 1, MPI_INT, 0, comm));
    return n;
}

void osu_barrier(MPI_Comm comm, int sleepy)
{
    MPI_Request req;
    int done = 0;

    OSU_CHECK(MPI_Ibarrier(comm, &req));
    if (!sleepy) {
        OSU_CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        return;
    }
    for (;;) {
        struct timespec ts = { 0, 200000 };
        OSU_CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done)
            break;
        nanosleep(&ts, NULL);
    }
}

static volatile double compute_sink;
static double compute_iters_per_us;

static void compute_kernel(long n)
{
    double x = 1.0;

    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    compute_sink = x;
}

void osu_compute_calibrate(void)
{
    const long n = 2000000;
    double best = 1e30;

    for (int k = 0; k < 5; k++) {
        double t = MPI_Wtime();
        compute_kernel(n);
        t = MPI_Wtime() - t;
        if (t < best)
            best = t;
    }
    compute_iters_per_us = n / (best * 1e6);
}

void osu_compute(double us)
{
    if (compute_iters_per_us <= 0)
        osu_compute_calibrate();
    compute_kernel((long) (us * compute_iters_per_us));
}

/* ---------------------------------------------------------------- OMB loops */

#define OPS(target)                                                                    \
    do {                                                                               \
        if (burst)                                                                     \
            for (int j = 0; j < W; j++)                                                \
                b->op(c, target, (size_t) j * c->size);                                \
        else                                                                           \
            b->op(c, target, 0);                                                       \
    } while (0)

/* Returns the figure rank 0 reports: microseconds (latency) or MB/s. */
static double run_point(osu_ctx_t *c, int skip, int iters)
{
    const osu_bench_t *b = c->b;
    const osu_opts_t *o = c->o;
    MPI_Win win = c->w.win;
    int burst = b->kind != OSU_LAT;
    int W = burst ? o->window_size : 1;
    int capped = o->time_cap > 0;
    int n = iters, i, other = 1 - c->rank;
    double t_first = 0, t0 = 0, t1 = 0;
    MPI_Group world, peer;

    switch (o->sync) {
    case OSU_SYNC_FLUSH:
    case OSU_SYNC_FLUSH_LOCAL:
        if (c->rank == 0) {
            OSU_CHECK(MPI_Win_lock(b->flush_lock_type, 1, 0, win));
            if (o->sync == OSU_SYNC_FLUSH) {
                OSU_TIMED_LOOP(o, 0, 1, OPS(1); OSU_CHECK(MPI_Win_flush(1, win));)
            } else {
                OSU_TIMED_LOOP(o, 0, 1, OPS(1); OSU_CHECK(MPI_Win_flush_local(1, win));)
            }
            t1 = MPI_Wtime();
            OSU_CHECK(MPI_Win_unlock(1, win));
        }
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case OSU_SYNC_LOCK:
        if (c->rank == 0) {
            OSU_TIMED_LOOP(o, 0, 1,
                     OSU_CHECK(MPI_Win_lock(b->lock_lock_type, 1, 0, win)); OPS(1);
                     OSU_CHECK(MPI_Win_unlock(1, win));)
            t1 = MPI_Wtime();
        }
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case OSU_SYNC_LOCK_ALL:
        if (c->rank == 0) {
            OSU_TIMED_LOOP(o, 0, 1,
                     OSU_CHECK(MPI_Win_lock_all(0, win)); OPS(1);
                     OSU_CHECK(MPI_Win_unlock_all(win));)
            t1 = MPI_Wtime();
        }
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case OSU_SYNC_FENCE:
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (b->kind == OSU_LAT) {
            /* Ping-pong of epochs: rank 0 {fence op fence fence}, rank 1 {fence fence op fence}. */
            if (c->rank == 0) {
                OSU_TIMED_LOOP(o, 1, 1,
                         OSU_CHECK(MPI_Win_fence(0, win)); OPS(1);
                         OSU_CHECK(MPI_Win_fence(0, win)); OSU_CHECK(MPI_Win_fence(0, win));)
            } else {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_fence(0, win)); OSU_CHECK(MPI_Win_fence(0, win));
                         OPS(0); OSU_CHECK(MPI_Win_fence(0, win));)
            }
        } else if (b->kind == OSU_BW) {
            if (c->rank == 0) {
                OSU_TIMED_LOOP(o, 1, 1,
                         OSU_CHECK(MPI_Win_fence(0, win)); OPS(1);
                         OSU_CHECK(MPI_Win_fence(0, win));)
            } else {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_fence(0, win)); OSU_CHECK(MPI_Win_fence(0, win));)
            }
        } else {
            OSU_TIMED_LOOP(o, 1, 1,
                     OSU_CHECK(MPI_Win_fence(0, win)); OPS(other);
                     OSU_CHECK(MPI_Win_fence(0, win));)
        }
        t1 = MPI_Wtime();
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        break;
    case OSU_SYNC_PSCW:
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &other, &peer);
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (b->kind == OSU_LAT) {
            /* Ping-pong: rank 0 {start [timer] op complete post wait}, rank 1 {post wait start op complete}. */
            if (c->rank == 0) {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_start(peer, 0, win));
                         if (i == skip) t0 = MPI_Wtime();
                         OPS(1); OSU_CHECK(MPI_Win_complete(win));
                         OSU_CHECK(MPI_Win_post(peer, 0, win)); OSU_CHECK(MPI_Win_wait(win));)
            } else {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_post(peer, 0, win)); OSU_CHECK(MPI_Win_wait(win));
                         OSU_CHECK(MPI_Win_start(peer, 0, win)); OPS(0);
                         OSU_CHECK(MPI_Win_complete(win));)
            }
        } else if (b->kind == OSU_BW) {
            if (c->rank == 0) {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_start(peer, 0, win));
                         if (i == skip) t0 = MPI_Wtime();
                         OPS(1); OSU_CHECK(MPI_Win_complete(win));)
            } else {
                OSU_TIMED_LOOP(o, 1, 0,
                         OSU_CHECK(MPI_Win_post(peer, 0, win)); OSU_CHECK(MPI_Win_wait(win));)
            }
        } else {
            OSU_TIMED_LOOP(o, 1, 1,
                     OSU_CHECK(MPI_Win_post(peer, 0, win)); OSU_CHECK(MPI_Win_start(peer, 0, win));
                     OPS(other); OSU_CHECK(MPI_Win_complete(win)); OSU_CHECK(MPI_Win_wait(win));)
        }
        t1 = MPI_Wtime();
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
        break;
    }

    /* Everyone needs the count rank 0 ran for (passive modes may stop early). */
    OSU_CHECK(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (c->rank != 0)
        return 0;
    if (b->kind == OSU_LAT) {
        double us = (t1 - t0) * 1e6 / n;
        return o->sync == OSU_SYNC_FENCE || o->sync == OSU_SYNC_PSCW ? us / 2 : us;
    }
    {
        double mb = (double) c->size / 1e6 * n * W / (t1 - t0);
        return b->kind == OSU_BIBW ? mb * 2 : mb;
    }
}

static void *xmalloc_page(size_t bytes, int fill)
{
    void *p = NULL;

    if (posix_memalign(&p, (size_t) sysconf(_SC_PAGESIZE), bytes ? bytes : 1)) {
        fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, fill, bytes);
    return p;
}

int osu_start_pair(int *argc, char ***argv, const char *name, const osu_bench_t *b,
                   osu_opts_t *o, const char *extra_optstring, osu_extra_fn extra, void *data,
                   const char *extra_usage, int *rank)
{
    int nprocs, rc;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = osu_parse(*argc, *argv, b, o, extra_optstring, extra, data, extra_usage);
    if (rc) {
        MPI_Finalize();
        return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
    }
    if (nprocs != 2) {
        if (*rank == 0)
            fprintf(stderr, "%s requires exactly two processes\n", name);
        MPI_Finalize();
        return EXIT_FAILURE;
    }
    return -1;
}

int osu_main(const osu_bench_t *b, int argc, char **argv)
{
    osu_opts_t o;
    osu_ctx_t c;
    int rc, skip, iters;

    memset(&c, 0, sizeof c);
    c.b = b;
    c.o = &o;
    c.nprocs = 2;
    rc = osu_start_pair(&argc, &argv, b->name, b, &o, NULL, NULL, NULL, NULL, &c.rank);
    if (rc >= 0)
        return rc;

    if (c.rank == 0) {
        if (o.csv) {
            osu_csv_header(&o);
        } else {
            printf("# OSU-compatible %s Test (rmaib bench, OMB 6.1 method)\n", b->title);
            printf("# Window creation: %s\n", flavor_calls[o.win]);
            printf("# Synchronization: %s\n", sync_calls[o.sync]);
            printf("%-*s%*s\n", 10, "# Size", 20,
                   b->kind == OSU_LAT ? "Latency (us)" : "Bandwidth (MB/s)");
        }
        fflush(stdout);
    }

    skip = o.skip;
    iters = o.iters;
    /* Origin buffers for the largest point, touched once: a fresh 256 MiB of them per
     * size (4 MiB x 64) cost more than the point's own puts.  No benchmark changes
     * what it reads from them.  The window stays fresh per size, as in OMB. */
    {
        size_t top = b->fixed_size ? b->fixed_size : o.max_size;
        size_t span = b->kind == OSU_LAT ? top : top * (size_t) o.window_size;
        c.sbuf = xmalloc_page(span, 'a');
        c.rbuf = xmalloc_page(span, 'c');
        c.cbuf = xmalloc_page(span, 'a');
    }
    /* fop/cas time one 8-byte point on a window of the maximum size, as OMB does. */
    for (size_t size = b->fixed_size ? b->fixed_size : o.min_size;
         b->fixed_size || size <= o.max_size; size = size ? size * 2 : 1) {
        size_t span = b->kind == OSU_LAT ? size : size * (size_t) o.window_size;
        size_t winbytes = b->fixed_size && o.max_size > span ? o.max_size : span;
        if (winbytes < o.min_win)
            winbytes = o.min_win;
        double v;

        c.size = size;
        if (size > OSU_LARGE_MESSAGE_SIZE) {
            skip = o.skip_large;
            iters = o.iters_large;
        }
        osu_win_create(&c.w, winbytes, o.win, &o, MPI_COMM_WORLD, 1 - c.rank);

        v = run_point(&c, skip, iters);
        if (c.rank == 0)
            osu_row(&o, b->name, osu_sync_name(o.sync), o.win, size,
                    b->kind == OSU_LAT ? "latency" : "bandwidth", v,
                    b->kind == OSU_LAT ? "us" : "MB/s");

        osu_win_free(&c.w);
        if (b->fixed_size)
            break;
    }
    free(c.sbuf);
    free(c.rbuf);
    free(c.cbuf);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
