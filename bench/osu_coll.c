/*
 * OSU-style latency loop for the collectives (osu_coll.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "osu_coll.h"

typedef struct {
    size_t min, max;
    int iters, skip, iters_large, skip_large;
    double cap;
    int csv;
} opts_t;

static int parse(int argc, char **argv, opts_t *o)
{
    *o = (opts_t) { 4, 1UL << 22, 10000, 100, 1000, 10, 0, 0 };
    int c;
    while ((c = getopt(argc, argv, "m:i:x:T:f:")) != -1) {
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
        case 'f':
            o->csv = strcmp(optarg, "csv") == 0;
            break;
        default:
            return -1;
        }
    }
    return o->min <= o->max && o->iters > 0 ? 0 : -1;
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
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (parse(argc, argv, &o) != 0) {
        if (me == 0)
            fprintf(stderr, "usage: %s [-m MIN:MAX] [-i N] [-x N] [-T SECS] [-f csv]\n", name);
        MPI_Finalize();
        return 2;
    }
    char *s = malloc(sbytes(o.max, p)), *r = malloc(rbytes(o.max, p));
    memset(s, 1, sbytes(o.max, p));
    memset(r, 0, rbytes(o.max, p));
    if (me == 0 && o.csv)
        printf("bench,variant,window,x,metric,value,unit\n");
    else if (me == 0)
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
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
