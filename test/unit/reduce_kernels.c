/*
 * The accumulate family's kernels, without MPI.  Checks that
 *   - rmaib_reduce_valid, rmaib_cas_valid and rmaib_basic_size follow MPI-3.1
 *     §5.9.2 / §11.3.4 and C's layouts, for every basic kind and op;
 *   - rmaib_reduce matches a plain element-by-element reference for every valid
 *     (type, op), at several lengths and alignments, in place (in == inout) too,
 *     leaving padding bytes and the bytes past the end alone;
 *   - rmaib_cpu_atomic agrees bit for bit with rmaib_reduce (NaNs included) for every
 *     pair it supports, and support is all-or-nothing per type;
 *   - two threads hammering one element with atomic SUMs, MAXLOC and CAS increments
 *     lose nothing.
 * Prints TAP.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/reduce.h"
#include "base/atomic_cpu.h"
#include "unit_tap.h"


static const char *const bname[RMAIB_BASIC_COUNT] = {
    "NONE", "INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64",
    "FLOAT", "DOUBLE", "LONG_DOUBLE", "C_FLOAT_COMPLEX", "C_DOUBLE_COMPLEX",
    "C_LONG_DOUBLE_COMPLEX", "BOOL", "BYTE", "CHAR", "LOGICAL4", "OPAQUE4", "FLOAT_INT",
    "DOUBLE_INT", "LONG_INT", "2INT", "SHORT_INT", "LONG_DOUBLE_INT", "2FLOAT", "2DOUBLE"
};
static const char *const oname[RMAIB_OP_COUNT] = {
    "?", "SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR",
    "MAXLOC", "MINLOC", "REPLACE", "NO_OP"
};

/* ---------------------------------------------------------------- the rules */

/* Allowed ops, in rmaib_op_t order:
 *                       SUM PROD MAX MIN LAND LOR LXOR BAND BOR BXOR MAXLOC MINLOC REPLACE NO_OP */
#define R_INTEGER "yyyyyyyyyy..yy"   /* C integer */
#define R_FLOAT   "yyyy........yy"   /* floating point: no logical or bit ops */
#define R_COMPLEX "yy..........yy"   /* complex: no MAX/MIN either */
#define R_BOOL    "....yyy.....yy"   /* logical */
#define R_BYTE    ".......yyy..yy"   /* byte */
#define R_CHAR    R_INTEGER          /* text to MPI-3.1, a C integer to MPICH and rmaib */
#define R_PAIR    "..........yyyy"   /* MAXLOC/MINLOC pairs */
#define R_OPAQUE  "............yy"   /* MPI_WCHAR: in no op group */

static const char *const rules[RMAIB_BASIC_COUNT] = {
    [RMAIB_BASIC_NONE] = NULL,
    [RMAIB_BASIC_INT8] = R_INTEGER, [RMAIB_BASIC_INT16] = R_INTEGER,
    [RMAIB_BASIC_INT32] = R_INTEGER, [RMAIB_BASIC_INT64] = R_INTEGER,
    [RMAIB_BASIC_UINT8] = R_INTEGER, [RMAIB_BASIC_UINT16] = R_INTEGER,
    [RMAIB_BASIC_UINT32] = R_INTEGER, [RMAIB_BASIC_UINT64] = R_INTEGER,
    [RMAIB_BASIC_FLOAT] = R_FLOAT, [RMAIB_BASIC_DOUBLE] = R_FLOAT,
    [RMAIB_BASIC_LONG_DOUBLE] = R_FLOAT,
    [RMAIB_BASIC_C_FLOAT_COMPLEX] = R_COMPLEX, [RMAIB_BASIC_C_DOUBLE_COMPLEX] = R_COMPLEX,
    [RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX] = R_COMPLEX,
    [RMAIB_BASIC_BOOL] = R_BOOL, [RMAIB_BASIC_BYTE] = R_BYTE, [RMAIB_BASIC_CHAR] = R_CHAR,
    [RMAIB_BASIC_FLOAT_INT] = R_PAIR, [RMAIB_BASIC_DOUBLE_INT] = R_PAIR,
    [RMAIB_BASIC_LONG_INT] = R_PAIR, [RMAIB_BASIC_2INT] = R_PAIR,
    [RMAIB_BASIC_SHORT_INT] = R_PAIR, [RMAIB_BASIC_LONG_DOUBLE_INT] = R_PAIR,
    [RMAIB_BASIC_LOGICAL4] = R_BOOL, [RMAIB_BASIC_OPAQUE4] = R_OPAQUE,
    [RMAIB_BASIC_2FLOAT] = R_PAIR, [RMAIB_BASIC_2DOUBLE] = R_PAIR,
};

static int allowed(rmaib_basic_t b, rmaib_op_t op)
{
    return rules[b] && rules[b][op - 1] == 'y';
}

/* The types the CPU can update with one lock-free instruction or CAS of <= 8 bytes. */
static int cpu_type(rmaib_basic_t b)
{
    switch (b) {
    case RMAIB_BASIC_INT8: case RMAIB_BASIC_INT16: case RMAIB_BASIC_INT32: case RMAIB_BASIC_INT64:
    case RMAIB_BASIC_UINT8: case RMAIB_BASIC_UINT16: case RMAIB_BASIC_UINT32:
    case RMAIB_BASIC_UINT64: case RMAIB_BASIC_FLOAT: case RMAIB_BASIC_DOUBLE:
    case RMAIB_BASIC_C_FLOAT_COMPLEX: case RMAIB_BASIC_BOOL: case RMAIB_BASIC_BYTE:
    case RMAIB_BASIC_CHAR: case RMAIB_BASIC_FLOAT_INT: case RMAIB_BASIC_2INT:
    case RMAIB_BASIC_SHORT_INT: case RMAIB_BASIC_LOGICAL4: case RMAIB_BASIC_OPAQUE4:
    case RMAIB_BASIC_2FLOAT:
        return 1;
    default:
        return 0;
    }
}

/* The test's own idea of the C layouts. */
struct t_fi { float v; int i; };
struct t_di { double v; int i; };
struct t_li { long v; int i; };
struct t_ii { int v; int i; };
struct t_si { short v; int i; };
struct t_ldi { long double v; int i; };
struct t_ff { float v; float i; };
struct t_dd { double v; double i; };

static const size_t c_size[RMAIB_BASIC_COUNT] = {
    0, 1, 2, 4, 8, 1, 2, 4, 8, sizeof(float), sizeof(double), sizeof(long double),
    sizeof(float _Complex), sizeof(double _Complex), sizeof(long double _Complex),
    sizeof(_Bool), 1, sizeof(char), 4, 4, sizeof(struct t_fi), sizeof(struct t_di),
    sizeof(struct t_li), sizeof(struct t_ii), sizeof(struct t_si), sizeof(struct t_ldi),
    sizeof(struct t_ff), sizeof(struct t_dd)
};

static void test_rules(void)
{
    for (int b = 0; b < RMAIB_BASIC_COUNT; b++) {
        char bad[256] = "";
        size_t len = 0;
        for (int op = 0; op <= RMAIB_OP_COUNT; op++) {
            int want = b == RMAIB_BASIC_NONE ? RMAIB_ERR_TYPE
                : op >= RMAIB_OP_SUM && op < RMAIB_OP_COUNT && allowed(b, op) ? RMAIB_OK
                : RMAIB_ERR_OP;
            int got = rmaib_reduce_valid((rmaib_basic_t) b, (rmaib_op_t) op);
            if (got != want && len < sizeof bad - 40)
                len += (size_t) snprintf(bad + len, sizeof bad - len, " %s=%d(want %d)",
                                         op < RMAIB_OP_COUNT ? oname[op] : "COUNT", got, want);
        }
        tap(len == 0, "reduce_valid: %s allows exactly %s%s", bname[b],
            rules[b] ? rules[b] : "nothing (not a basic type)", bad);
    }
    tap(rmaib_reduce_valid(RMAIB_BASIC_COUNT, RMAIB_OP_SUM) == RMAIB_ERR_TYPE
        && rmaib_reduce_valid((rmaib_basic_t) 1000, RMAIB_OP_REPLACE) == RMAIB_ERR_TYPE,
        "reduce_valid: an unknown type is RMAIB_ERR_TYPE");

    int sizes_ok = 1, cas_ok = 1;
    for (int b = 0; b < RMAIB_BASIC_COUNT; b++) {
        if (rmaib_basic_size((rmaib_basic_t) b) != c_size[b]) {
            printf("# basic_size(%s) = %zu, C says %zu\n", bname[b],
                   rmaib_basic_size((rmaib_basic_t) b), c_size[b]);
            sizes_ok = 0;
        }
        int want = (b >= RMAIB_BASIC_INT8 && b <= RMAIB_BASIC_UINT64) || b == RMAIB_BASIC_BOOL
            || b == RMAIB_BASIC_LOGICAL4 || b == RMAIB_BASIC_BYTE || b == RMAIB_BASIC_CHAR
            ? RMAIB_OK : RMAIB_ERR_TYPE;
        if (rmaib_cas_valid((rmaib_basic_t) b) != want) {
            printf("# cas_valid(%s) = %d, want %d\n", bname[b], rmaib_cas_valid((rmaib_basic_t) b),
                   want);
            cas_ok = 0;
        }
    }
    tap(sizes_ok && rmaib_basic_size(RMAIB_BASIC_COUNT) == 0,
        "basic_size is sizeof the C type (pairs: the struct) for every kind, 0 for NONE");
    tap(cas_ok, "cas_valid: integers, C_BOOL, LOGICAL and BYTE only (MPI-3.1 11.3.4)");

    int sup_ok = 1, whole_ok = 1;
    for (int b = 0; b < RMAIB_BASIC_COUNT; b++)
        for (int op = RMAIB_OP_SUM; op < RMAIB_OP_COUNT; op++) {
            int want = cpu_type(b) && allowed(b, op);
            int got = rmaib_cpu_atomic_supported((rmaib_basic_t) b, (rmaib_op_t) op);
            if (got != want) {
                printf("# cpu_atomic_supported(%s, %s) = %d\n", bname[b], oname[op], got);
                sup_ok = 0;
            }
            if (allowed(b, op)
                && got != rmaib_cpu_atomic_supported((rmaib_basic_t) b, RMAIB_OP_REPLACE))
                whole_ok = 0;
        }
    tap(sup_ok, "cpu_atomic_supported: every valid op on the <= 8-byte types, nothing else");
    tap(whole_ok, "cpu_atomic_supported is all-or-nothing per type");
}

/* ---------------------------------------------------------------- values */

static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Bytes of a value of size n that carry it (long double: the x87 10). */
static size_t vbytes(size_t n, int ld)
{
    return ld ? RMAIB_LDBL_BYTES : n;
}

static const uint64_t awk_int[] = {
    0, 1, 2, UINT64_MAX, UINT64_MAX - 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
    0x7fffffff, 0x80000000, 0xffffffff, UINT64_C(0x7fffffffffffffff),
    UINT64_C(0x8000000000000000), UINT64_C(0x5555555555555555), UINT64_C(0xaaaaaaaaaaaaaaaa)
};
static const double awk_cplx[] = { 0, 1, -1, 2.5, -3, 0.25, 1024, -0.5, 7 };
static const int awk_idx[] = { -3, -2, -1, 0, 1, 2, 3, INT32_MIN, INT32_MAX };
static const uint32_t nan_f[] = { 0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001 };
static const uint64_t nan_d[] = {
    UINT64_C(0x7ff8000000000000), UINT64_C(0xfff8000000000000),
    UINT64_C(0x7ff8000000abcdef), UINT64_C(0x7ff0000000000001)
};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void put_u(unsigned char *p, size_t w, uint64_t v)
{
    uint8_t a = (uint8_t) v; uint16_t b = (uint16_t) v; uint32_t c = (uint32_t) v;
    switch (w) {
    case 1: memcpy(p, &a, 1); break;
    case 2: memcpy(p, &b, 2); break;
    case 4: memcpy(p, &c, 4); break;
    default: memcpy(p, &v, 8); break;
    }
}

static uint64_t get_u(const unsigned char *p, size_t w)
{
    uint8_t a; uint16_t b; uint32_t c; uint64_t d;
    switch (w) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

static int64_t get_s(const unsigned char *p, size_t w)
{
    int8_t a; int16_t b; int32_t c; int64_t d;
    switch (w) {
    case 1: memcpy(&a, p, 1); return a;
    case 2: memcpy(&b, p, 2); return b;
    case 4: memcpy(&c, p, 4); return c;
    default: memcpy(&d, p, 8); return d;
    }
}

/* A real value: half from the awkward list (signed zeros, extremes, subnormals,
 * infinities), half small multiples of 1/64; NaNs (several payloads) only if nan. */
#define GEN_REAL(T, MAXV, TMINV) do {                                           \
        static const T awk_[] = { 0, -0.0, 1, -1, 0.5, -2.5, 3, (T) 1e30, (T) -1e-30, \
                                  MAXV, -MAXV, TMINV, -TMINV, INFINITY, -INFINITY }; \
        T v_ = (h & 1) ? awk_[(h >> 8) % NELEM(awk_)]                           \
            : (T) ((int64_t) (h >> 44) - (1 << 19)) / 64;                       \
        memcpy(e, &v_, vbytes(sizeof v_, sizeof v_ == sizeof(long double)));   \
        if (nan && h % 5 == 0 && sizeof v_ == 4)                                \
            memcpy(e, &nan_f[(h >> 20) % 4], 4);                                \
        if (nan && h % 5 == 0 && sizeof v_ == 8)                                \
            memcpy(e, &nan_d[(h >> 20) % 4], 8);                                \
    } while (0)

#define GEN_CPLX(T) do {                                                        \
        T re_ = (T) awk_cplx[(h >> 8) % NELEM(awk_cplx)];                       \
        T im_ = (T) awk_cplx[(h >> 24) % NELEM(awk_cplx)];                      \
        size_t vb_ = vbytes(sizeof(T), sizeof(T) == sizeof(long double));       \
        memcpy(e, &re_, vb_);                                                   \
        memcpy(e + sizeof(T), &im_, vb_);                                       \
        if (nan && h % 5 == 0)                                                  \
            memcpy(e + ((h >> 40) & 1) * sizeof(T), &nan_f[(h >> 20) % 4], 4); \
    } while (0)

/* A pair: few distinct values so that ties (and the index rule) come up often.
 * IT is the index's type (int, or the real of 2REAL/2DOUBLE_PRECISION). */
#define GEN_PAIR(P, VT, IT, ...) do {                                           \
        static const VT awk_[] = { __VA_ARGS__ };                               \
        VT v_ = awk_[(h >> 8) % NELEM(awk_)];                                   \
        IT i_ = (IT) awk_idx[(h >> 24) % NELEM(awk_idx)];                       \
        memcpy(e + offsetof(P, v), &v_, vbytes(sizeof v_, sizeof v_ == sizeof(long double))); \
        memcpy(e + offsetof(P, i), &i_, sizeof i_);                             \
        if (nan && sizeof v_ == 4 && h % 7 == 0 && (VT) 0.5 != 0)               \
            memcpy(e + offsetof(P, v), &nan_f[(h >> 20) % 4], 4);               \
    } while (0)

/* Write the value of element idx of side 0 (target) or 1 (operand) of a test of
 * (b, salt) into e, leaving its padding alone.  Every 4th element is the same on
 * both sides. */
static void gen(rmaib_basic_t b, unsigned char *e, size_t idx, int side, unsigned salt, int nan)
{
    uint64_t h = mix(mix((uint64_t) b * 131 + salt) + idx * 2 + (idx % 4 ? (unsigned) side : 0));
    size_t w = rmaib_basic_size(b);

    switch (b) {
    case RMAIB_BASIC_INT8: case RMAIB_BASIC_INT16: case RMAIB_BASIC_INT32: case RMAIB_BASIC_INT64:
    case RMAIB_BASIC_UINT8: case RMAIB_BASIC_UINT16: case RMAIB_BASIC_UINT32:
    case RMAIB_BASIC_UINT64: case RMAIB_BASIC_BYTE: case RMAIB_BASIC_CHAR:
        put_u(e, w, (h & 1) ? awk_int[(h >> 8) % NELEM(awk_int)] : h >> 3);
        break;
    case RMAIB_BASIC_BOOL:  /* mostly 0 and 1, sometimes a non-canonical "true" byte */
        put_u(e, 1, h % 7 == 0 ? 0x80 : (h >> 8) & 1);
        break;
    case RMAIB_BASIC_LOGICAL4:      /* the same, on 4 bytes */
        put_u(e, 4, h % 7 == 0 ? 0x100 : (h >> 8) & 1);
        break;
    case RMAIB_BASIC_OPAQUE4:
        put_u(e, 4, h >> 3);
        break;
    case RMAIB_BASIC_FLOAT:
        GEN_REAL(float, FLT_MAX, FLT_TRUE_MIN);
        break;
    case RMAIB_BASIC_DOUBLE:
        GEN_REAL(double, DBL_MAX, DBL_TRUE_MIN);
        break;
    case RMAIB_BASIC_LONG_DOUBLE:
        GEN_REAL(long double, LDBL_MAX, LDBL_TRUE_MIN);
        break;
    case RMAIB_BASIC_C_FLOAT_COMPLEX:
        GEN_CPLX(float);
        break;
    case RMAIB_BASIC_C_DOUBLE_COMPLEX:
        nan = 0;
        GEN_CPLX(double);
        break;
    case RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX:
        nan = 0;
        GEN_CPLX(long double);
        break;
    case RMAIB_BASIC_FLOAT_INT:
        GEN_PAIR(struct t_fi, float, int, -1.5f, 0.0f, -0.0f, 1.5f, 1e30f, INFINITY, -INFINITY);
        break;
    case RMAIB_BASIC_DOUBLE_INT:
        GEN_PAIR(struct t_di, double, int, -1.5, 0.0, -0.0, 1.5, 1e300, -INFINITY);
        break;
    case RMAIB_BASIC_LONG_DOUBLE_INT:
        GEN_PAIR(struct t_ldi, long double, int, -1.5L, 0.0L, -0.0L, 1.5L, LDBL_MAX, -INFINITY);
        break;
    case RMAIB_BASIC_LONG_INT:
        GEN_PAIR(struct t_li, long, int, -2, -1, 0, 1, 2, INT64_MIN, INT64_MAX);
        break;
    case RMAIB_BASIC_2INT:
        GEN_PAIR(struct t_ii, int, int, -2, -1, 0, 1, 2, INT32_MIN, INT32_MAX);
        break;
    case RMAIB_BASIC_SHORT_INT:
        GEN_PAIR(struct t_si, short, int, -2, -1, 0, 1, 2, INT16_MIN, INT16_MAX);
        break;
    case RMAIB_BASIC_2FLOAT:
        GEN_PAIR(struct t_ff, float, float, -1.5f, 0.0f, -0.0f, 1.5f, 1e30f, -INFINITY);
        break;
    case RMAIB_BASIC_2DOUBLE:
        GEN_PAIR(struct t_dd, double, double, -1.5, 0.0, -0.0, 1.5, 1e300, INFINITY);
        break;
    default:
        break;
    }
}

/* ---------------------------------------------------------------- the reference */

#define REF_REAL(T) do {                                                        \
        T a_, c_;                                                               \
        memcpy(&a_, x, sizeof a_);                                              \
        memcpy(&c_, y, sizeof c_);                                              \
        switch (op) {                                                           \
        case RMAIB_OP_SUM:  a_ = a_ + c_; break;                                \
        case RMAIB_OP_PROD: a_ = a_ * c_; break;                                \
        case RMAIB_OP_MAX:  if (a_ < c_) a_ = c_; break;  /* ties keep the target */ \
        case RMAIB_OP_MIN:  if (c_ < a_) a_ = c_; break;                        \
        default: break;                                                         \
        }                                                                       \
        memcpy(x, &a_, vbytes(sizeof a_, sizeof a_ == sizeof(long double)));    \
    } while (0)

/* (a + bi)(c + di) = (ac - bd) + (ad + bc)i, on values small enough to be exact. */
#define REF_CPLX(T) do {                                                        \
        T ar_, ai_, cr_, ci_, rr_, ri_;                                         \
        size_t vb_ = vbytes(sizeof(T), sizeof(T) == sizeof(long double));       \
        memcpy(&ar_, x, sizeof(T)); memcpy(&ai_, x + sizeof(T), sizeof(T));     \
        memcpy(&cr_, y, sizeof(T)); memcpy(&ci_, y + sizeof(T), sizeof(T));     \
        if (op == RMAIB_OP_SUM) { rr_ = ar_ + cr_; ri_ = ai_ + ci_; }           \
        else { rr_ = ar_ * cr_ - ai_ * ci_; ri_ = ar_ * ci_ + ai_ * cr_; }      \
        memcpy(x, &rr_, vb_);                                                   \
        memcpy(x + sizeof(T), &ri_, vb_);                                       \
    } while (0)

/* MPI-3.1 §5.9.4: w = max(u, v); k = i if u > v, min(i, j) if u == v, j if u < v. */
#define REF_PAIR(P, VT, IT) do {                                                \
        VT u_, v_;                                                              \
        IT i_, j_;                                                              \
        memcpy(&u_, x + offsetof(P, v), sizeof u_);                             \
        memcpy(&i_, x + offsetof(P, i), sizeof i_);                             \
        memcpy(&v_, y + offsetof(P, v), sizeof v_);                             \
        memcpy(&j_, y + offsetof(P, i), sizeof j_);                             \
        int better_ = op == RMAIB_OP_MAXLOC ? v_ > u_ : v_ < u_;                \
        if (better_) { u_ = v_; i_ = j_; }                                      \
        else if (u_ == v_) i_ = i_ < j_ ? i_ : j_;                              \
        memcpy(x + offsetof(P, v), &u_, vbytes(sizeof u_, sizeof u_ == sizeof(long double))); \
        memcpy(x + offsetof(P, i), &i_, sizeof i_);                             \
    } while (0)

static int is_signed(rmaib_basic_t b)
{
    return (b >= RMAIB_BASIC_INT8 && b <= RMAIB_BASIC_INT64) || b == RMAIB_BASIC_CHAR;
}

/* *x = *x op *y for one element of b, written the plain way. */
static void ref_elem(rmaib_basic_t b, rmaib_op_t op, unsigned char *x, const unsigned char *y)
{
    size_t w = rmaib_basic_size(b);

    if (op == RMAIB_OP_NO_OP)
        return;
    if (op == RMAIB_OP_REPLACE) {
        memcpy(x, y, w);
        return;
    }
    switch (b) {
    case RMAIB_BASIC_INT8: case RMAIB_BASIC_INT16: case RMAIB_BASIC_INT32: case RMAIB_BASIC_INT64:
    case RMAIB_BASIC_UINT8: case RMAIB_BASIC_UINT16: case RMAIB_BASIC_UINT32:
    case RMAIB_BASIC_UINT64: case RMAIB_BASIC_BOOL: case RMAIB_BASIC_BYTE:
    case RMAIB_BASIC_CHAR: case RMAIB_BASIC_LOGICAL4: {
        uint64_t a = get_u(x, w), c = get_u(y, w), r = a;
        int64_t sa = get_s(x, w), sc = get_s(y, w);
        int cgt = is_signed(b) ? sc > sa : c > a;     /* operand greater than target */
        int clt = is_signed(b) ? sc < sa : c < a;
        switch (op) {
        case RMAIB_OP_SUM:  r = a + c; break;                 /* wraps mod 2^64, then 2^w */
        case RMAIB_OP_PROD: r = a * c; break;
        case RMAIB_OP_MAX:  r = cgt ? c : a; break;
        case RMAIB_OP_MIN:  r = clt ? c : a; break;
        case RMAIB_OP_LAND: r = a != 0 && c != 0; break;
        case RMAIB_OP_LOR:  r = a != 0 || c != 0; break;
        case RMAIB_OP_LXOR: r = (a != 0) != (c != 0); break;
        case RMAIB_OP_BAND: r = a & c; break;
        case RMAIB_OP_BOR:  r = a | c; break;
        case RMAIB_OP_BXOR: r = a ^ c; break;
        default: break;
        }
        put_u(x, w, r);
        break;
    }
    case RMAIB_BASIC_FLOAT: REF_REAL(float); break;
    case RMAIB_BASIC_DOUBLE: REF_REAL(double); break;
    case RMAIB_BASIC_LONG_DOUBLE: REF_REAL(long double); break;
    case RMAIB_BASIC_C_FLOAT_COMPLEX: REF_CPLX(float); break;
    case RMAIB_BASIC_C_DOUBLE_COMPLEX: REF_CPLX(double); break;
    case RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX: REF_CPLX(long double); break;
    case RMAIB_BASIC_FLOAT_INT: REF_PAIR(struct t_fi, float, int); break;
    case RMAIB_BASIC_DOUBLE_INT: REF_PAIR(struct t_di, double, int); break;
    case RMAIB_BASIC_LONG_INT: REF_PAIR(struct t_li, long, int); break;
    case RMAIB_BASIC_2INT: REF_PAIR(struct t_ii, int, int); break;
    case RMAIB_BASIC_SHORT_INT: REF_PAIR(struct t_si, short, int); break;
    case RMAIB_BASIC_LONG_DOUBLE_INT: REF_PAIR(struct t_ldi, long double, int); break;
    case RMAIB_BASIC_2FLOAT: REF_PAIR(struct t_ff, float, float); break;
    case RMAIB_BASIC_2DOUBLE: REF_PAIR(struct t_dd, double, double); break;
    default: break;
    }
}

/* ---------------------------------------------------------------- rmaib_reduce */

#define GUARD 24

/* First differing byte of a and b (n bytes), or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return (long) k;
    return -1;
}

static void hex(char *out, const unsigned char *p, size_t n)
{
    for (size_t k = 0; k < n && k < 32; k++)
        sprintf(out + 2 * k, "%02x", p[k]);
}

static int report(const char *what, const unsigned char *got, const unsigned char *want,
                  size_t total, size_t off, size_t w)
{
    long d = first_diff(got, want, total);
    if (d < 0)
        return 1;
    char g[80] = "", x[80] = "";
    long el = ((long) d - (long) off) / (long) w;
    size_t start = off + (size_t) (el < 0 ? 0 : el) * w;
    if (start + w <= total) {
        hex(g, got + start, w);
        hex(x, want + start, w);
    }
    printf("# %s: byte %ld (element %ld) differs: got %s want %s\n", what, d, el, g, x);
    return 0;
}

/* rmaib_reduce on n elements, inout at byte offset io_off and in at in_off, or in
 * place (in == inout) when in_off < 0; compares everything, padding and guard
 * bytes included, with the reference. */
static int run_reduce(rmaib_basic_t b, rmaib_op_t op, size_t n, size_t io_off, long in_off)
{
    size_t w = rmaib_basic_size(b), total = n * w + 2 * GUARD;
    unsigned char *io = malloc(total), *in = malloc(total), *want = malloc(total);
    int ok;

    memset(io, 0xa5, total);
    memset(in, 0x5a, total);
    unsigned char *x = io + io_off, *y = in_off < 0 ? x : in + in_off;
    for (size_t k = 0; k < n; k++) {
        gen(b, x + k * w, k, 0, (unsigned) (n + io_off), 0);
        if (in_off >= 0)
            gen(b, y + k * w, k, 1, (unsigned) (n + io_off), 0);
    }
    memcpy(want, io, total);
    for (size_t k = 0; k < n; k++) {
        unsigned char e[64];
        memcpy(e, y + k * w, w);
        ref_elem(b, op, want + io_off + k * w, e);
    }
    rmaib_reduce(b, op, x, y, n);
    char what[96];
    snprintf(what, sizeof what, "n=%zu io+%zu in%s%ld", n, io_off, in_off < 0 ? "=io" : "+",
             in_off < 0 ? 0 : in_off);
    ok = report(what, io, want, total, io_off, w);
    free(io);
    free(in);
    free(want);
    return ok;
}

static void test_reduce(const char *kernels)
{
    static const size_t lens[] = { 0, 1, 3, 5, 8, 13, 29, 37, 100, 300, 1031 };
    static const size_t offs[][2] = { { 0, 0 }, { 1, 3 }, { 5, 0 }, { 8, 16 } };

    for (int b = 1; b < RMAIB_BASIC_COUNT; b++)
        for (int op = RMAIB_OP_SUM; op < RMAIB_OP_COUNT; op++) {
            if (!allowed(b, op))
                continue;
            int ok = 1;
            for (size_t l = 0; l < NELEM(lens); l++) {
                for (size_t o = 0; o < NELEM(offs); o++)
                    ok &= run_reduce(b, op, lens[l], offs[o][0], (long) offs[o][1]);
                ok &= run_reduce(b, op, lens[l], 3, -1);
            }
            tap(ok, "reduce %s %s, %s kernels, matches the reference (any alignment, in place, "
                "padding kept)", bname[b], oname[op], kernels);
        }
}

/* ---------------------------------------------------------------- CPU atomics */

#define AN 300

static int run_atomic(rmaib_basic_t b, rmaib_op_t op)
{
    size_t w = rmaib_basic_size(b), bytes = AN * w;
    static uint64_t t0[AN], want[AN], t1[AN], t2[AN], t3[AN];  /* targets: 8-aligned */
    static unsigned char opnd[AN * 8 + 1], f1[AN * 8 + 3], f3[AN * 8 + 5];
    unsigned char *y = opnd + 1, *fa = f1 + 3, *fc = f3 + 5;   /* unaligned on purpose */
    const void *yarg = op == RMAIB_OP_NO_OP ? NULL : y;
    int ok = 1;

    memset(t0, 0xa5, sizeof t0);
    memset(opnd, 0x5a, sizeof opnd);
    for (size_t k = 0; k < AN; k++) {
        gen(b, (unsigned char *) t0 + k * w, k, 0, 77, 1);
        gen(b, y + k * w, k, 1, 77, 1);
    }
    memcpy(want, t0, sizeof t0);
    rmaib_reduce(b, op, want, y, AN);

    /* one element at a time, with fetch */
    memcpy(t1, t0, sizeof t0);
    memset(f1, 0, sizeof f1);
    for (size_t k = 0; k < AN; k++)
        rmaib_cpu_atomic(b, op, (unsigned char *) t1 + k * w,
                         yarg ? (const unsigned char *) yarg + k * w : NULL, fa + k * w);
    ok &= report("single, target", (unsigned char *) t1, (unsigned char *) want, sizeof t1, 0, w);
    ok &= report("single, fetch", fa, (unsigned char *) t0, bytes, 0, w);

    /* the _n form without and with fetch */
    memcpy(t2, t0, sizeof t0);
    rmaib_cpu_atomic_n(b, op, t2, yarg, NULL, AN);
    ok &= report("_n, no fetch", (unsigned char *) t2, (unsigned char *) want, sizeof t2, 0, w);
    memcpy(t3, t0, sizeof t0);
    rmaib_cpu_atomic_n(b, op, t3, yarg, fc, AN);
    ok &= report("_n, target", (unsigned char *) t3, (unsigned char *) want, sizeof t3, 0, w);
    ok &= report("_n, fetch", fc, (unsigned char *) t0, bytes, 0, w);
    return ok;
}

static void test_atomic(void)
{
    for (int b = 1; b < RMAIB_BASIC_COUNT; b++)
        for (int op = RMAIB_OP_SUM; op < RMAIB_OP_COUNT; op++)
            if (rmaib_cpu_atomic_supported((rmaib_basic_t) b, (rmaib_op_t) op))
                tap(run_atomic((rmaib_basic_t) b, (rmaib_op_t) op),
                    "cpu_atomic %s %s agrees with reduce bit for bit (NaNs too), fetch = old",
                    bname[b], oname[op]);
}

static int cas_case(size_t size, uint64_t old, uint64_t cmp, uint64_t swp, int expect_swap)
{
    static uint64_t target;
    unsigned char c[9], s[10], r[12];
    uint64_t got = 0, res = 0;

    target = 0;
    memcpy(&target, &old, size);       /* little-endian: the low bytes are the element */
    memcpy(c + 1, &cmp, size);
    memcpy(s + 2, &swp, size);
    memset(r, 0xee, sizeof r);
    rmaib_cpu_cas(size, &target, c + 1, s + 2, r + 3);
    memcpy(&got, &target, size);
    memcpy(&res, r + 3, size);
    uint64_t mask = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
    return res == (old & mask) && got == ((expect_swap ? swp : old) & mask)
        && (target & ~mask) == 0 && r[3 + size] == 0xee;
}

static void test_cas(void)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    for (size_t k = 0; k < NELEM(sizes); k++) {
        size_t s = sizes[k];
        uint64_t a = UINT64_C(0x8123456789abcdef), bb = UINT64_C(0x0fedcba987654321);
        tap(cas_case(s, a, a, bb, 1) && cas_case(s, a, bb, 0, 0) && cas_case(s, 0, 0, a, 1)
            && cas_case(s, a, a ^ (UINT64_C(1) << (8 * s - 1)), bb, 0),
            "cas of %zu bytes: swaps on a match, keeps on a mismatch, returns the old value", s);
    }
    /* floats compare bitwise: -0.0 is not 0.0, a NaN matches its own bits */
    double z = 0.0, mz = -0.0, one = 1.0, nan1;
    uint64_t nb = UINT64_C(0x7ff8000000000123);
    memcpy(&nan1, &nb, 8);
    double t = mz, r;
    rmaib_cpu_cas(8, &t, &z, &one, &r);
    int ok = memcmp(&t, &mz, 8) == 0 && memcmp(&r, &mz, 8) == 0;
    t = nan1;
    rmaib_cpu_cas(8, &t, &nan1, &one, &r);
    ok &= t == 1.0 && memcmp(&r, &nan1, 8) == 0;
    tap(ok, "cas on double compares bit patterns (-0.0 != 0.0, NaN == same NaN)");
}

/* ---------------------------------------------------------------- two threads */

#define ITER 100000

static struct {
    _Alignas(64) int64_t i64;
    _Alignas(64) double d;
    _Alignas(64) int8_t i8;
    _Alignas(64) uint64_t cas;
    _Alignas(64) struct t_ii loc;
} sh;

typedef struct {
    int id;
    pthread_barrier_t *bar;
    int64_t i64_sum;        /* of the fetched old values */
    double d_sum;
    int i64_monotonic;
    long cas_retries;
} worker_t;

static void *worker(void *arg)
{
    worker_t *me = arg;
    int64_t one = 1, prev = -1;
    double oned = 1.0;
    int8_t one8 = 1;

    me->i64_monotonic = 1;
    pthread_barrier_wait(me->bar);
    for (int k = 0; k < ITER; k++) {
        int64_t old;
        double dold;
        rmaib_cpu_atomic(RMAIB_BASIC_INT64, RMAIB_OP_SUM, &sh.i64, &one, &old);
        me->i64_sum += old;
        if (old <= prev)
            me->i64_monotonic = 0;
        prev = old;
        rmaib_cpu_atomic(RMAIB_BASIC_DOUBLE, RMAIB_OP_SUM, &sh.d, &oned, &dold);
        me->d_sum += dold;
        rmaib_cpu_atomic(RMAIB_BASIC_INT8, RMAIB_OP_SUM, &sh.i8, &one8, NULL);

        uint64_t cur, next, res;
        rmaib_cpu_atomic(RMAIB_BASIC_UINT64, RMAIB_OP_NO_OP, &sh.cas, NULL, &cur);
        for (;;) {
            next = cur + 1;
            rmaib_cpu_cas(8, &sh.cas, &cur, &next, &res);
            if (res == cur)
                break;
            cur = res;
            me->cas_retries++;
        }

        struct t_ii mine = { k, me->id };
        rmaib_cpu_atomic(RMAIB_BASIC_2INT, RMAIB_OP_MAXLOC, &sh.loc, &mine, NULL);
    }
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[2];
    worker_t w[2];
    pthread_barrier_t bar;

    memset(&sh, 0, sizeof sh);
    sh.loc.v = -1;
    sh.loc.i = 99;
    pthread_barrier_init(&bar, NULL, 2);
    for (int t = 0; t < 2; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].id = t;
        w[t].bar = &bar;
        pthread_create(&th[t], NULL, worker, &w[t]);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&bar);

    const int64_t n = 2 * ITER;
    printf("# CAS retries under contention: %ld + %ld\n", w[0].cas_retries, w[1].cas_retries);
    tap(sh.i64 == n && w[0].i64_sum + w[1].i64_sum == n * (n - 1) / 2
        && w[0].i64_monotonic && w[1].i64_monotonic,
        "2 threads x %d int64 SUM: total %lld, every old value fetched exactly once", ITER,
        (long long) sh.i64);
    tap(sh.d == (double) n && w[0].d_sum + w[1].d_sum == (double) (n * (n - 1) / 2),
        "2 threads x %d double SUM (CAS loop): total %.1f, fetched olds all distinct", ITER, sh.d);
    tap(sh.i8 == (int8_t) (uint8_t) (n % 256),
        "2 threads x %d int8 SUM wraps to %d", ITER, (int) sh.i8);
    tap(sh.cas == (uint64_t) n, "2 threads x %d CAS increments: total %llu", ITER,
        (unsigned long long) sh.cas);
    tap(sh.loc.v == ITER - 1 && sh.loc.i == 0,
        "2 threads x %d 2INT MAXLOC: (%d, %d), the tie goes to the smaller index", ITER,
        sh.loc.v, sh.loc.i);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_rules();
    /* the short runs' AVX-512 kernels where the CPU has them, and the plain ones */
    if (rmaib_reduce_use_wide(1))
        test_reduce("AVX-512");
    rmaib_reduce_use_wide(0);
    test_reduce("plain");
    rmaib_reduce_use_wide(1);
    test_atomic();
    test_cas();
    test_threads();
    printf("1..%d\n", tap_n);
    return tap_bad ? 1 : 0;
}
