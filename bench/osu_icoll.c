/*
 * OSU-style latency and overlap loop for the non-blocking collectives
 * (osu_icoll.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "osu_icoll.h"

typedef struct {
    size_t min, max;
    int iters, skip, iters_large, skip_large, tests;
    double cap;
    int csv;
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t) { 4, 1UL << 20, 10000, 100, 1000, 10, 0, 0, 0 };
    int c;
    while ((c = getopt(argc, argv, "m:i:x:T:f:t:")) != -1) {
        switch (c) {
        case 'm':
            if (sscanf(optarg, "%zu:%zu", &o->min, &o->max) != 2)
                return -1;
            break;
        case 'i':
            o->iters = o->iters_large = atoi(optarg);
            break;
        case 'x':
            o->skip = o->skip_large = atoi(optarg);
            break;
        case 'T':
            o->cap = atof(optarg);
            break;
        case 't':
            o->tests = atoi(optarg);
            break;
        case 'f':
            o->csv = strcmp(optarg, "csv") == 0;
            break;
        default:
            return -1;
        }
    }
    return o->min <= o->max && o->iters > 0 && o->tests >= 0 ? 0 : -1;
}

/* Busy for us microseconds by the clock, with tests MPI_Test calls spread over it. */
static void compute(double us, int tests, MPI_Request *req)
{
    double end = MPI_Wtime() + us * 1e-6;
    int flag, done = 0;
    for (int k = 0; k <= tests; k++) {
        double until = MPI_Wtime() + (end - MPI_Wtime()) / (tests + 1 - k);
        while (MPI_Wtime() < until)
            ;
        if (k < tests && !done)
            MPI_Test(req, &flag, MPI_STATUS_IGNORE), done = flag;
    }
}

/* Mean over n calls of start (+ compute of comp_us) + wait, in us; *comp gets the
 * compute's own mean. */
static double timed(osu_icoll_fn fn, void *s, void *r, size_t size, int n, double comp_us,
                    int tests, double *comp)
{
    double total = 0, c = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        MPI_Request req;
        double t0 = MPI_Wtime();
        fn(s, r, size, MPI_COMM_WORLD, &req);
        if (comp_us > 0) {
            double t1 = MPI_Wtime();
            compute(comp_us, tests, &req);
            c += MPI_Wtime() - t1;
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        total += MPI_Wtime() - t0;
    }
    *comp = c * 1e6 / n;
    return total * 1e6 / n;
}

static double mean_over_ranks(double v, int p)
{
    double sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / p;
}

static void rows(const opts_t *o, const char *name, size_t x, double pure, double all,
                 double comp, double ovl)
{
    if (!o->csv) {
        printf("%-10zu%16.2f%16.2f%16.2f%12.2f\n", x, all, comp, pure, ovl);
    } else {
        printf("%s,default,none,%zu,latency,%.6g,us\n", name, x, pure);
        printf("%s,default,none,%zu,overall,%.6g,us\n", name, x, all);
        printf("%s,default,none,%zu,compute,%.6g,us\n", name, x, comp);
        printf("%s,default,none,%zu,overlap,%.6g,%%\n", name, x, ovl);
    }
    fflush(stdout);
}

static int iterations(const opts_t *o, size_t size, osu_icoll_fn fn, void *s, void *r)
{
    int n = size >= 8192 ? o->iters_large : o->iters;
    if (o->cap > 0) {
        double comp, t = timed(fn, s, r, size, 5, 0, 0, &comp) * 1e-6;
        int fit = t > 0 ? (int) (o->cap / t / 2) : n;     /* two timed loops */
        n = fit < 10 ? 10 : fit < n ? fit : n;
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return n;
}

int osu_icoll_main(int argc, char **argv, const char *name, const char *title, osu_icoll_fn fn,
                   osu_icoll_bytes_fn sbytes, osu_icoll_bytes_fn rbytes)
{
    opts_t o;
    int me, p;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (parse(argc, argv, &o) != 0) {
        if (me == 0)
            fprintf(stderr, "usage: %s [-m MIN:MAX] [-i N] [-x N] [-T SECS] [-t N] [-f csv]\n",
                    name);
        MPI_Finalize();
        return 2;
    }
    char *s = malloc(sbytes(o.max, p)), *r = malloc(rbytes(o.max, p));
    memset(s, 1, sbytes(o.max, p));
    memset(r, 0, rbytes(o.max, p));
    if (me == 0 && o.csv)
        printf("bench,variant,window,x,metric,value,unit\n");
    else if (me == 0)
        printf("# OSU-style %s (%d ranks)\n# %-8s%16s%16s%16s%12s\n", title, p, "Size",
               "Overall(us)", "Compute(us)", "Pure Comm.(us)", "Overlap(%)");
    for (size_t size = o.min; size <= o.max; size *= 2) {
        double comp, dummy;
        int skip = size >= 8192 ? o.skip_large : o.skip;
        timed(fn, s, r, size, skip, 0, 0, &dummy);
        int n = iterations(&o, size, fn, s, r);
        double pure = timed(fn, s, r, size, n, 0, 0, &dummy);
        /* Every rank computes for the same time: rank 0's pure latency. */
        double target = pure;
        MPI_Bcast(&target, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double all = timed(fn, s, r, size, n, target, o.tests, &comp);
        pure = mean_over_ranks(pure, p);
        all = mean_over_ranks(all, p);
        comp = mean_over_ranks(comp, p);
        double ovl = 100 - 100 * (all - comp) / pure;
        if (me == 0)
            rows(&o, name, size, pure, all, comp, ovl < 0 ? 0 : ovl > 100 ? 100 : ovl);
        if (size == 0)
            break;
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
