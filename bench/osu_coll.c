/*
 * OSU-style loops for the collectives (osu_coll.h): latency of the blocking calls,
 * latency and overlap of the non-blocking ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "osu_coll.h"

typedef struct {
    size_t min, max;
    int iters, skip, iters_large, skip_large, tests;
    double cap;
    int csv;
} opts_t;

/* -t (MPI_Test calls during the compute) only where optstring has it. */
static int parse(int argc, char **argv, const char *optstring, size_t max, opts_t *o)
{
    *o = (opts_t) { 4, max, 10000, 100, 1000, 10, 0, 0, 0 };
    int c;
    while ((c = getopt(argc, argv, optstring)) != -1) {
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

size_t osu_bytes_one(size_t size, int p)
{
    (void) p;
    return size;
}

size_t osu_bytes_all(size_t size, int p)
{
    return size * (size_t) p;
}

static int finish(char *s, char *r)
{
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}

/* MPI_Init, the options, the buffers: 0, or the exit status after a usage line. */
static int start(int *argc, char ***argv, const char *name, const char *optstring, size_t max,
                 osu_coll_bytes_fn sbytes, osu_coll_bytes_fn rbytes, opts_t *o, int *me,
                 int *p, char **s, char **r)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
    MPI_Comm_size(MPI_COMM_WORLD, p);
    if (parse(*argc, *argv, optstring, max, o) != 0) {
        if (*me == 0)
            fprintf(stderr, "usage: %s [-m MIN:MAX] [-i N] [-x N] [-T SECS]%s [-f csv]\n", name,
                    strchr(optstring, 't') ? " [-t N]" : "");
        MPI_Finalize();
        return 2;
    }
    *s = malloc(sbytes(o->max, *p));
    *r = malloc(rbytes(o->max, *p));
    memset(*s, 1, sbytes(o->max, *p));
    memset(*r, 0, rbytes(o->max, *p));
    if (*me == 0 && o->csv)
        printf("bench,variant,window,x,metric,value,unit\n");
    return 0;
}

/* From this size on, the output gives latency / memcpy: below it a copy costs
 * nanoseconds and the ratio says nothing about bandwidth. */
#define MEMCPY_RATIO_MIN 65536

static void row(const opts_t *o, const char *name, size_t x, const char *metric, double v,
                const char *unit)
{
    if (o->csv)
        printf("%s,default,none,%zu,%s,%.6g,%s\n", name, x, metric, v, unit);
    else if (strcmp(metric, "latency") == 0)
        printf("%-10zu%18.2f", x, v);
    else
        printf("%18.2f", v);
    fflush(stdout);
}

/* The iterations for one size: OMB's count, or fewer to stay near the cap; rank
 * 0 decides so that every rank runs the same number of calls. */
static int iterations(const opts_t *o, size_t size, osu_coll_fn fn, void *s, void *r,
                      MPI_Comm comm)
{
    int n = size >= 8192 ? o->iters_large : o->iters;
    if (o->cap > 0) {
        double t = MPI_Wtime();
        for (int i = 0; i < 5; i++)
            fn(s, r, size, comm);
        t = (MPI_Wtime() - t) / 5;
        int fit = t > 0 ? (int) (o->cap / t) : n;
        n = fit < 10 ? 10 : fit < n ? fit : n;
    }
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    return n;
}

static double memcpy_us(void *dst, const void *src, size_t bytes, int n)
{
    double t = MPI_Wtime();
    for (int i = 0; i < n; i++) {
        memcpy(dst, src, bytes);
        __asm__ __volatile__("" ::: "memory");
    }
    return (MPI_Wtime() - t) * 1e6 / n;
}

int osu_coll_main(int argc, char **argv, const char *name, const char *title, osu_coll_fn fn,
                  osu_coll_bytes_fn sbytes, osu_coll_bytes_fn rbytes)
{
    opts_t o;
    int me, p;
    char *s, *r;
    int st = start(&argc, &argv, name, "m:i:x:T:f:", 1UL << 22, sbytes, rbytes, &o, &me, &p, &s,
                   &r);
    if (st != 0)
        return st;
    if (me == 0 && !o.csv)
        printf("# OSU-style %s (%d ranks)\n# %-8s%18s%18s%18s\n", title, p, "Size",
               "Avg Latency(us)", "memcpy(us)", "latency/memcpy");
    for (size_t size = o.min; size <= o.max; size *= 2) {
        int skip = size >= 8192 ? o.skip_large : o.skip;
        for (int i = 0; i < skip; i++)
            fn(s, r, size, MPI_COMM_WORLD);
        int n = iterations(&o, size, fn, s, r, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < n; i++)
            fn(s, r, size, MPI_COMM_WORLD);
        double us = (MPI_Wtime() - t) * 1e6 / n, sum = 0;
        MPI_Reduce(&us, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (me == 0) {
            double mc = memcpy_us(r, s, size, n < 100 ? 100 : n);
            row(&o, name, size, "latency", sum / p, "us");
            row(&o, name, size, "memcpy", mc, "us");
            if (size >= MEMCPY_RATIO_MIN && mc > 0)
                row(&o, name, size, "per_memcpy", sum / p / mc, "x");
            if (!o.csv)
                printf("\n");
        }
        if (size == 0)
            break;
    }
    return finish(s, r);
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

static int i_iterations(const opts_t *o, size_t size, osu_icoll_fn fn, void *s, void *r)
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
                   osu_coll_bytes_fn sbytes, osu_coll_bytes_fn rbytes)
{
    opts_t o;
    int me, p;
    char *s, *r;
    int st = start(&argc, &argv, name, "m:i:x:T:f:t:", 1UL << 20, sbytes, rbytes, &o, &me, &p,
                   &s, &r);
    if (st != 0)
        return st;
    if (me == 0 && !o.csv)
        printf("# OSU-style %s (%d ranks)\n# %-8s%16s%16s%16s%12s\n", title, p, "Size",
               "Overall(us)", "Compute(us)", "Pure Comm.(us)", "Overlap(%)");
    for (size_t size = o.min; size <= o.max; size *= 2) {
        double comp, dummy;
        int skip = size >= 8192 ? o.skip_large : o.skip;
        timed(fn, s, r, size, skip, 0, 0, &dummy);
        int n = i_iterations(&o, size, fn, s, r);
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
    return finish(s, r);
}
