/*
 * Shared by the collective tests: element values every rank can compute for any
 * rank, typed access to buffers of the tested types, and the serial reference of
 * a reduction.  Values are small integers, so that every order of summation or
 * multiplication gives exactly the reference, in floating point too.
 */
#ifndef RMAIB_TEST_COLL_CHECK_H
#define RMAIB_TEST_COLL_CHECK_H

#include <stdint.h>
#include "../rma/tap.h"

enum { K_INT, K_INT64, K_UINT8, K_FLOAT, K_DOUBLE };

typedef struct {
    MPI_Datatype dt;
    int kind;
    size_t size;
    const char *name;
} ctype_t;

static const ctype_t ctypes[] = {
    { MPI_INT, K_INT, sizeof(int), "MPI_INT" },
    { MPI_LONG_LONG, K_INT64, sizeof(long long), "MPI_LONG_LONG" },
    { MPI_UNSIGNED_CHAR, K_UINT8, 1, "MPI_UNSIGNED_CHAR" },
    { MPI_FLOAT, K_FLOAT, sizeof(float), "MPI_FLOAT" },
    { MPI_DOUBLE, K_DOUBLE, sizeof(double), "MPI_DOUBLE" },
};

/* Element i of rank r for op (PROD stays within +-2^8 over 8 ranks; logical ops
 * see zeros and ones). */
static inline long long cval(MPI_Op op, int r, size_t i)
{
    static const int prod[3] = { 1, -1, 2 };
    if (op == MPI_PROD)
        return prod[(r + i) % 3];
    if (op == MPI_LAND || op == MPI_LOR)
        return (r + i) % 4 != 0 && (i % 5 != 0 || r % 2);
    return (long long) ((r * 7 + i * 13) % 17) - 8;
}

static inline void cput(void *buf, size_t i, int kind, long long v)
{
    switch (kind) {
    case K_INT: ((int *) buf)[i] = (int) v; break;
    case K_INT64: ((long long *) buf)[i] = v; break;
    case K_UINT8: ((unsigned char *) buf)[i] = (unsigned char) v; break;
    case K_FLOAT: ((float *) buf)[i] = (float) v; break;
    default: ((double *) buf)[i] = (double) v; break;
    }
}

/* The element as a long long, and whether it is exactly that (floats). */
static inline long long cget(const void *buf, size_t i, int kind, int *exact)
{
    double d;
    *exact = 1;
    switch (kind) {
    case K_INT: return ((const int *) buf)[i];
    case K_INT64: return ((const long long *) buf)[i];
    case K_UINT8: return ((const unsigned char *) buf)[i];
    case K_FLOAT: d = ((const float *) buf)[i]; break;
    default: d = ((const double *) buf)[i]; break;
    }
    *exact = d == (double) (long long) d;
    return (long long) d;
}

static inline long long capply(MPI_Op op, long long a, long long b)
{
    if (op == MPI_SUM) return a + b;
    if (op == MPI_PROD) return a * b;
    if (op == MPI_MAX) return b > a ? b : a;
    if (op == MPI_MIN) return b < a ? b : a;
    if (op == MPI_LAND) return (a != 0) && (b != 0);
    if (op == MPI_LOR) return (a != 0) || (b != 0);
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    return a ^ b;               /* MPI_BXOR */
}

/* The reduction of element i over p ranks, wrapped to the type as MPI would. */
static inline long long cref(MPI_Op op, int p, size_t i, int kind)
{
    long long acc = cval(op, 0, i);
    for (int r = 1; r < p; r++) {
        long long v = cval(op, r, i);
        if (kind == K_UINT8) {  /* compare as the type does */
            acc = (unsigned char) acc;
            v = (unsigned char) v;
        }
        acc = capply(op, acc, v);
    }
    if (kind == K_UINT8)
        acc = (unsigned char) acc;
    else if (kind == K_INT)
        acc = (int) acc;
    return acc;
}

/* Check n elements of buf against the reference for p ranks; record the first miss. */
static inline void ccheck(const void *buf, size_t n, const ctype_t *t, MPI_Op op, int p,
                          const char *what)
{
    for (size_t i = 0; i < n; i++) {
        int exact;
        long long got = cget(buf, i, t->kind, &exact), want = cref(op, p, i, t->kind);
        if (!exact || got != want) {
            tap_fail("%s %s: element %zu is %lld, want %lld", what, t->name, i, got, want);
            return;
        }
    }
}

/* Is buf bitwise the same on every rank of comm?  (Compared with rank 0's copy,
 * sent by the host's MPI_Bcast, which rmaib does not take over.) */
static inline int csame_everywhere(const void *buf, size_t bytes, MPI_Comm comm)
{
    char *copy = malloc(bytes ? bytes : 1);
    memcpy(copy, buf, bytes);
    MPI_Bcast(copy, (int) bytes, MPI_BYTE, 0, comm);
    int same = memcmp(copy, buf, bytes) == 0;
    free(copy);
    return same;
}

#endif
