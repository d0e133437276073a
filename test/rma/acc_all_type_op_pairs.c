/*
 * acc_all_type_op_pairs: every predefined operation on every predefined datatype it
 * is defined for (MPI-3.1 §5.9.2, §11.3.4) computes what the operation means, through
 * MPI_Accumulate, MPI_Get_accumulate (whose result is the old target value),
 * MPI_Fetch_and_op, MPI_Raccumulate and MPI_Rget_accumulate, to another rank, on an allocated window (rmaib: CPU atomics for
 * elements up to 8 bytes, the accumulate lock for wider ones) and on a created
 * window (rmaib: the accumulate lock for everything).
 *
 * Types and operations:
 *  - C integers of every width, signed and unsigned, MPI_INT8_T .. MPI_UINT64_T,
 *    MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR: SUM PROD MAX MIN LAND LOR LXOR BAND BOR BXOR;
 *  - multi-language MPI_AINT, MPI_OFFSET, MPI_COUNT: SUM PROD MAX MIN BAND BOR BXOR;
 *  - MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE: SUM PROD MAX MIN;
 *  - MPI_C_FLOAT_COMPLEX (and its alias MPI_C_COMPLEX), MPI_C_DOUBLE_COMPLEX,
 *    MPI_C_LONG_DOUBLE_COMPLEX: SUM PROD;
 *  - MPI_C_BOOL, MPI_LOGICAL (Fortran, 4 bytes, .true. = 1): LAND LOR LXOR;
 *    MPI_BYTE: BAND BOR BXOR;
 *  - MPI_CHAR, with the C integer ops on it as a signed char: text to MPI-3.1, but
 *    MPICH and Open MPI reduce it and unchanged programs (OSU's osu_acc_latency:
 *    MPI_SUM on MPI_CHAR) rely on it, so rmaib does too;
 *  - MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
 *    MPI_LONG_DOUBLE_INT, and Fortran's MPI_2REAL, MPI_2DOUBLE_PRECISION (the index
 *    a real): MAXLOC MINLOC, with ties (equal values keep the smaller index);
 *  - and REPLACE and NO_OP on every type (NO_OP only with the fetching calls: MPI-3.1
 *    does not allow it in MPI_Accumulate), MPI_WCHAR (in no reduction category)
 *    included.
 *
 * Every rank targets its right neighbour, all operations in one lock_all epoch; the
 * target checks its memory, the origin its results, against the operation computed
 * here.  Values are small and exactly representable, so float results are exact; long
 * double is compared by value (x87 keeps 6 padding bytes), pairs field by field.
 */
#include <complex.h>
#include <float.h>
#include <stdbool.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

#define NEL 6

enum cat { SINT, UINT, MLANG, FLT, CPLX, BOOL_, BYTE_, PAIR, LOGIC_, OPAQ, NCAT };
enum pv { PV_NONE, PV_FLOAT, PV_DOUBLE, PV_LONG, PV_INT, PV_SHORT, PV_LDOUBLE, PV_2FLOAT,
          PV_2DOUBLE };

typedef struct { float v; int i; } float_int;
typedef struct { double v; int i; } double_int;
typedef struct { long v; int i; } long_int;
typedef struct { int v; int i; } int_int;
typedef struct { short v; int i; } short_int;
typedef struct { long double v; int i; } ldouble_int;
typedef struct { float v; float i; } float_float;
typedef struct { double v; double i; } double_double;

typedef struct {
    const char *name;
    MPI_Datatype dt;
    enum cat cat;
    int size;
    enum pv pv;       /* pairs: the value's C type */
} type_t;

#define NTYPES 42
static type_t types[NTYPES];
static int ntypes;

static void add(const char *name, MPI_Datatype dt, enum cat cat, size_t size, enum pv pv)
{
    if (dt == MPI_DATATYPE_NULL)        /* a Fortran type of an MPI built without it */
        return;
    types[ntypes++] = (type_t) { name, dt, cat, (int) size, pv };
}

#define ADD(dt, cat, ctype) add(#dt, dt, cat, sizeof(ctype), PV_NONE)
#define ADD_PAIR(dt, ctype, pv) add(#dt, dt, PAIR, sizeof(ctype), pv)

static void types_build(void)
{
    ADD(MPI_INT8_T, SINT, int8_t);
    ADD(MPI_INT16_T, SINT, int16_t);
    ADD(MPI_INT32_T, SINT, int32_t);
    ADD(MPI_INT64_T, SINT, int64_t);
    ADD(MPI_UINT8_T, UINT, uint8_t);
    ADD(MPI_UINT16_T, UINT, uint16_t);
    ADD(MPI_UINT32_T, UINT, uint32_t);
    ADD(MPI_UINT64_T, UINT, uint64_t);
    ADD(MPI_SIGNED_CHAR, SINT, signed char);
    ADD(MPI_UNSIGNED_CHAR, UINT, unsigned char);
    ADD(MPI_CHAR, SINT, signed char);      /* see above */
    ADD(MPI_SHORT, SINT, short);
    ADD(MPI_UNSIGNED_SHORT, UINT, unsigned short);
    ADD(MPI_INT, SINT, int);
    ADD(MPI_UNSIGNED, UINT, unsigned);
    ADD(MPI_LONG, SINT, long);
    ADD(MPI_UNSIGNED_LONG, UINT, unsigned long);
    ADD(MPI_LONG_LONG, SINT, long long);
    ADD(MPI_UNSIGNED_LONG_LONG, UINT, unsigned long long);
    ADD(MPI_AINT, MLANG, MPI_Aint);
    ADD(MPI_OFFSET, MLANG, MPI_Offset);
    ADD(MPI_COUNT, MLANG, MPI_Count);
    ADD(MPI_FLOAT, FLT, float);
    ADD(MPI_DOUBLE, FLT, double);
    ADD(MPI_LONG_DOUBLE, FLT, long double);
    ADD(MPI_C_FLOAT_COMPLEX, CPLX, float _Complex);
    ADD(MPI_C_COMPLEX, CPLX, float _Complex);
    ADD(MPI_C_DOUBLE_COMPLEX, CPLX, double _Complex);
    ADD(MPI_C_LONG_DOUBLE_COMPLEX, CPLX, long double _Complex);
    ADD(MPI_C_BOOL, BOOL_, bool);
    ADD(MPI_BYTE, BYTE_, unsigned char);
    ADD_PAIR(MPI_FLOAT_INT, float_int, PV_FLOAT);
    ADD_PAIR(MPI_DOUBLE_INT, double_int, PV_DOUBLE);
    ADD_PAIR(MPI_LONG_INT, long_int, PV_LONG);
    ADD_PAIR(MPI_2INT, int_int, PV_INT);
    ADD_PAIR(MPI_SHORT_INT, short_int, PV_SHORT);
    ADD_PAIR(MPI_LONG_DOUBLE_INT, ldouble_int, PV_LDOUBLE);
    ADD_PAIR(MPI_2REAL, float_float, PV_2FLOAT);
    ADD_PAIR(MPI_2DOUBLE_PRECISION, double_double, PV_2DOUBLE);
    ADD(MPI_LOGICAL, LOGIC_, int32_t);
    ADD(MPI_WCHAR, OPAQ, wchar_t);
}

/* The categories as TAP lines report them. */
static const char *const group_name[NCAT] = {
    [SINT] = "signed C integers", [UINT] = "unsigned C integers",
    [MLANG] = "MPI_AINT/MPI_OFFSET/MPI_COUNT", [FLT] = "float/double/long double",
    [CPLX] = "C complex types", [BOOL_] = "MPI_C_BOOL", [BYTE_] = "MPI_BYTE",
    [PAIR] = "MAXLOC/MINLOC pair types", [LOGIC_] = "Fortran LOGICAL",
    [OPAQ] = "MPI_WCHAR (REPLACE and NO_OP only)",
};

enum op { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, MAXLOC, MINLOC, REPLACE, NO_OP,
          NOPS };
static const char *const op_name[NOPS] = {
    "MPI_SUM", "MPI_PROD", "MPI_MAX", "MPI_MIN", "MPI_LAND", "MPI_LOR", "MPI_LXOR", "MPI_BAND",
    "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP",
};
static MPI_Op mpi_op[NOPS];

#define B(o) (1u << (o))
static const unsigned cat_ops[NCAT] = {
    [SINT] = B(SUM) | B(PROD) | B(MAX) | B(MIN) | B(LAND) | B(LOR) | B(LXOR) | B(BAND) | B(BOR)
        | B(BXOR),
    [UINT] = B(SUM) | B(PROD) | B(MAX) | B(MIN) | B(LAND) | B(LOR) | B(LXOR) | B(BAND) | B(BOR)
        | B(BXOR),
    [MLANG] = B(SUM) | B(PROD) | B(MAX) | B(MIN) | B(BAND) | B(BOR) | B(BXOR),
    [FLT] = B(SUM) | B(PROD) | B(MAX) | B(MIN),
    [CPLX] = B(SUM) | B(PROD),
    [BOOL_] = B(LAND) | B(LOR) | B(LXOR),
    [BYTE_] = B(BAND) | B(BOR) | B(BXOR),
    [PAIR] = B(MAXLOC) | B(MINLOC),
    [LOGIC_] = B(LAND) | B(LOR) | B(LXOR),
};

static int valid(const type_t *t, int op)
{
    return op == REPLACE || op == NO_OP || (cat_ops[t->cat] & B(op));
}

/* ---- values ------------------------------------------------------------------ */

static const long iv_target[NEL] = { 5, -3, 0, 7, -8, 0 };     /* [5]: 1 + t%3 */
static const long iv_operand[NEL] = { 2, -4, 9, 0, -8, 0 };    /* [5]: 1 + r%4 */
static const double fv_target[NEL] = { 1.5, -2.25, 0.0, 3.0, -8.0, 0 };   /* [5]: t + 0.5 */
static const double fv_operand[NEL] = { 0.5, 4.0, -1.0, 3.0, -0.25, 0 };  /* [5]: r + 1 */
static const unsigned char bv_target[NEL] = { 0xF0, 0x3C, 0xAA, 0x01, 0xFF, 0 };
static const unsigned char bv_operand[NEL] = { 0x0F, 0x55, 0xFF, 0x81, 0x00, 0 };
static const int pv_target[NEL] = { 3, 4, 4, 8, -1, 2 }, pi_target[NEL] = { 7, 9, 1, 3, 5, 0 };
static const int pv_operand[NEL] = { 5, 4, 4, -1, -1, 2 }, pi_operand[NEL] = { 2, 2, 6, 4, 0, 0 };

/* role 0: the target's initial value of element k at rank `rank`; role 1: the
 * operand origin `rank` sends for element k. */
static long ival(int role, int k, int rank)
{
    if (k == NEL - 1)
        return role ? 1 + rank % 4 : 1 + rank % 3;
    return role ? iv_operand[k] : iv_target[k];
}

static double fval(int role, int k, int rank)
{
    if (k == NEL - 1)
        return role ? rank + 1.0 : rank + 0.5;
    return role ? fv_operand[k] : fv_target[k];
}

#define SET_PAIR(P, VT) do {                                                    \
        P x_ = { (VT) (role ? pv_operand[k] : pv_target[k]),                    \
                 k == NEL - 1 ? rank : role ? pi_operand[k] : pi_target[k] };   \
        memcpy(p, &x_, sizeof x_);                                              \
    } while (0)

static void gen(const type_t *t, void *p, int role, int k, int rank)
{
    memset(p, 0, (size_t) t->size);
    switch (t->cat) {
    case SINT: case UINT: case MLANG: case OPAQ: {
        int64_t v = ival(role, k, rank);
        memcpy(p, &v, (size_t) t->size);    /* the low bytes: two's complement, any width */
        break;
    }
    case FLT: {
        double v = fval(role, k, rank);
        if (t->size == sizeof(float)) { float x = (float) v; memcpy(p, &x, sizeof x); }
        else if (t->size == sizeof(double)) { memcpy(p, &v, sizeof v); }
        else { long double x = v; memcpy(p, &x, sizeof x); }
        break;
    }
    case CPLX: {
        double re = fval(role, k, rank), im = fval(role, (k + 1) % NEL, rank);
        if (t->size == sizeof(float _Complex)) {
            float _Complex x = CMPLXF((float) re, (float) im); memcpy(p, &x, sizeof x);
        } else if (t->size == sizeof(double _Complex)) {
            double _Complex x = CMPLX(re, im); memcpy(p, &x, sizeof x);
        } else {
            long double _Complex x = CMPLXL(re, im); memcpy(p, &x, sizeof x);
        }
        break;
    }
    case BOOL_: {
        bool v = k == NEL - 1 ? (role ? 1 : rank & 1) : role ? k < 2 || k == 4 : k % 2 == 0;
        memcpy(p, &v, sizeof v);
        break;
    }
    case LOGIC_: {
        int32_t v = k == NEL - 1 ? (role ? 1 : rank & 1) : role ? k < 2 || k == 4 : k % 2 == 0;
        memcpy(p, &v, sizeof v);
        break;
    }
    case BYTE_:
        *(unsigned char *) p = k == NEL - 1 ? (unsigned char) rank
            : role ? bv_operand[k] : bv_target[k];
        break;
    case PAIR:
        switch (t->pv) {
        case PV_FLOAT: SET_PAIR(float_int, float); break;
        case PV_DOUBLE: SET_PAIR(double_int, double); break;
        case PV_LONG: SET_PAIR(long_int, long); break;
        case PV_INT: SET_PAIR(int_int, int); break;
        case PV_SHORT: SET_PAIR(short_int, short); break;
        case PV_2FLOAT: SET_PAIR(float_float, float); break;
        case PV_2DOUBLE: SET_PAIR(double_double, double); break;
        default: SET_PAIR(ldouble_int, long double); break;
        }
        break;
    default:
        break;
    }
}

/* ---- the operations, computed here ------------------------------------------- */

static int64_t load_int(const type_t *t, const void *p)
{
    uint64_t u = 0;
    memcpy(&u, p, (size_t) t->size);
    if (t->cat != UINT && t->size < 8) {     /* sign-extend */
        int sh = 64 - 8 * t->size;
        return (int64_t) (u << sh) >> sh;
    }
    return (int64_t) u;
}

static void int_op(const type_t *t, int op, void *out, const void *x, const void *y)
{
    int64_t a = load_int(t, x), b = load_int(t, y);
    uint64_t ua = (uint64_t) a, ub = (uint64_t) b, r;
    int sgn = t->cat != UINT;
    if (!sgn && t->size < 8) {       /* unsigned narrower than 64 bits: zero-extended */
        uint64_t m = (1ULL << (8 * t->size)) - 1;
        ua &= m;
        ub &= m;
    }
    switch (op) {
    case SUM: r = ua + ub; break;
    case PROD: r = ua * ub; break;
    case MAX: r = sgn ? (uint64_t) (a > b ? a : b) : (ua > ub ? ua : ub); break;
    case MIN: r = sgn ? (uint64_t) (a < b ? a : b) : (ua < ub ? ua : ub); break;
    case LAND: r = ua && ub; break;
    case LOR: r = ua || ub; break;
    case LXOR: r = !ua != !ub; break;
    case BAND: r = ua & ub; break;
    case BOR: r = ua | ub; break;
    default: r = ua ^ ub; break;
    }
    memcpy(out, &r, (size_t) t->size);
}

#define REAL_OP(T) do {                                                         \
        T a_, b_, r_;                                                           \
        memcpy(&a_, x, sizeof a_);                                              \
        memcpy(&b_, y, sizeof b_);                                              \
        r_ = op == SUM ? a_ + b_ : op == PROD ? a_ * b_                         \
            : op == MAX ? (a_ > b_ ? a_ : b_) : (a_ < b_ ? a_ : b_);            \
        memcpy(out, &r_, sizeof r_);                                            \
    } while (0)

#define CPLX_OP(T) do {                                                         \
        T a_, b_, r_;                                                           \
        memcpy(&a_, x, sizeof a_);                                              \
        memcpy(&b_, y, sizeof b_);                                              \
        r_ = op == SUM ? a_ + b_ : a_ * b_;                                     \
        memcpy(out, &r_, sizeof r_);                                            \
    } while (0)

/* MAXLOC/MINLOC as MPI-3.1 §5.9.4 defines them: the larger (smaller) value with its
 * index; equal values keep the smaller index. */
#define PAIR_OP(P) do {                                                         \
        P a_, b_, r_;                                                           \
        memcpy(&a_, x, sizeof a_);                                              \
        memcpy(&b_, y, sizeof b_);                                              \
        r_ = a_;                                                                \
        if (op == MAXLOC ? b_.v > a_.v : b_.v < a_.v)                           \
            r_ = b_;                                                            \
        else if (b_.v == a_.v && b_.i < a_.i)                                   \
            r_.i = b_.i;                                                        \
        memcpy(out, &r_, sizeof r_);                                            \
    } while (0)

/* out = x op y for one element of t (x the target's value, y the operand). */
static void compute(const type_t *t, int op, void *out, const void *x, const void *y)
{
    if (op == NO_OP) {
        memcpy(out, x, (size_t) t->size);
        return;
    }
    if (op == REPLACE) {
        memcpy(out, y, (size_t) t->size);
        return;
    }
    switch (t->cat) {
    case SINT: case UINT: case MLANG:
        int_op(t, op, out, x, y);
        return;
    case FLT:
        if (t->size == sizeof(float)) REAL_OP(float);
        else if (t->size == sizeof(double)) REAL_OP(double);
        else REAL_OP(long double);
        return;
    case CPLX:
        if (t->size == sizeof(float _Complex)) CPLX_OP(float _Complex);
        else if (t->size == sizeof(double _Complex)) CPLX_OP(double _Complex);
        else CPLX_OP(long double _Complex);
        return;
    case BOOL_: {
        bool a = *(const unsigned char *) x != 0, b = *(const unsigned char *) y != 0;
        bool r = op == LAND ? a && b : op == LOR ? a || b : a != b;
        memcpy(out, &r, sizeof r);
        return;
    }
    case LOGIC_: {
        int32_t a, b, r;
        memcpy(&a, x, sizeof a);
        memcpy(&b, y, sizeof b);
        r = op == LAND ? a && b : op == LOR ? a || b : !a != !b;
        memcpy(out, &r, sizeof r);
        return;
    }
    case BYTE_: {
        unsigned char a = *(const unsigned char *) x, b = *(const unsigned char *) y;
        *(unsigned char *) out = (unsigned char) (op == BAND ? a & b : op == BOR ? a | b : a ^ b);
        return;
    }
    case PAIR:
        switch (t->pv) {
        case PV_FLOAT: PAIR_OP(float_int); break;
        case PV_DOUBLE: PAIR_OP(double_int); break;
        case PV_LONG: PAIR_OP(long_int); break;
        case PV_INT: PAIR_OP(int_int); break;
        case PV_SHORT: PAIR_OP(short_int); break;
        case PV_2FLOAT: PAIR_OP(float_float); break;
        case PV_2DOUBLE: PAIR_OP(double_double); break;
        default: PAIR_OP(ldouble_int); break;
        }
        return;
    default:
        return;
    }
}

/* Equal values (not bytes: long double and pairs carry padding); a string for both. */
#define PAIR_EQ(P, FMT, CAST) do {                                              \
        P a_, b_;                                                               \
        memcpy(&a_, p, sizeof a_);                                              \
        memcpy(&b_, q, sizeof b_);                                              \
        snprintf(buf, len, "(" FMT ", %g), expected (" FMT ", %g)", CAST a_.v,  \
                 (double) a_.i, CAST b_.v, (double) b_.i);                      \
        return a_.v == b_.v && a_.i == b_.i;                                    \
    } while (0)

static int same(const type_t *t, const void *p, const void *q, char *buf, size_t len)
{
    switch (t->cat) {
    case SINT: case UINT: case MLANG: case LOGIC_: case OPAQ:
        snprintf(buf, len, "%lld, expected %lld", (long long) load_int(t, p),
                 (long long) load_int(t, q));
        return load_int(t, p) == load_int(t, q);
    case FLT: {
        long double a, b;
        if (t->size == sizeof(float)) { float u, v; memcpy(&u, p, 4); memcpy(&v, q, 4); a = u; b = v; }
        else if (t->size == sizeof(double)) { double u, v; memcpy(&u, p, 8); memcpy(&v, q, 8); a = u; b = v; }
        else { memcpy(&a, p, sizeof a); memcpy(&b, q, sizeof b); }
        snprintf(buf, len, "%Lg, expected %Lg", a, b);
        return a == b;
    }
    case CPLX: {
        long double ar, ai, br, bi;
        if (t->size == sizeof(float _Complex)) {
            float _Complex u, v; memcpy(&u, p, sizeof u); memcpy(&v, q, sizeof v);
            ar = crealf(u); ai = cimagf(u); br = crealf(v); bi = cimagf(v);
        } else if (t->size == sizeof(double _Complex)) {
            double _Complex u, v; memcpy(&u, p, sizeof u); memcpy(&v, q, sizeof v);
            ar = creal(u); ai = cimag(u); br = creal(v); bi = cimag(v);
        } else {
            long double _Complex u, v; memcpy(&u, p, sizeof u); memcpy(&v, q, sizeof v);
            ar = creall(u); ai = cimagl(u); br = creall(v); bi = cimagl(v);
        }
        snprintf(buf, len, "%Lg%+Lgi, expected %Lg%+Lgi", ar, ai, br, bi);
        return ar == br && ai == bi;
    }
    case PAIR:
        switch (t->pv) {
        case PV_FLOAT: PAIR_EQ(float_int, "%g", (double)); break;
        case PV_DOUBLE: PAIR_EQ(double_int, "%g", (double)); break;
        case PV_LONG: PAIR_EQ(long_int, "%ld", (long)); break;
        case PV_INT: PAIR_EQ(int_int, "%d", (int)); break;
        case PV_SHORT: PAIR_EQ(short_int, "%d", (int)); break;
        case PV_2FLOAT: PAIR_EQ(float_float, "%g", (double)); break;
        case PV_2DOUBLE: PAIR_EQ(double_double, "%g", (double)); break;
        default: PAIR_EQ(ldouble_int, "%Lg", (long double)); break;
        }
        return 0;
    default:
        snprintf(buf, len, "%#x, expected %#x", *(const unsigned char *) p,
                 *(const unsigned char *) q);
        return *(const unsigned char *) p == *(const unsigned char *) q;
    }
}

/* ---- the cases ------------------------------------------------------------------ */

/* One (type, op): a slot of NEL elements for MPI_Accumulate, NEL for
 * MPI_Get_accumulate, one for MPI_Fetch_and_op, NEL for MPI_Raccumulate and NEL for
 * MPI_Rget_accumulate, at byte offset off of the window. */
typedef struct {
    const type_t *t;
    int op;
    MPI_Aint off;
    int kf;              /* the element Fetch_and_op works on */
} case_t;

#define MAXCASES (NTYPES * NOPS)
static case_t cases[MAXCASES];
static int ncases;
static MPI_Aint win_bytes;

static MPI_Aint slot_acc(const case_t *c) { return c->off; }
static MPI_Aint slot_gacc(const case_t *c) { return c->off + (MPI_Aint) NEL * c->t->size; }
static MPI_Aint slot_fop(const case_t *c) { return c->off + (MPI_Aint) 2 * NEL * c->t->size; }
static MPI_Aint slot_racc(const case_t *c) { return c->off + (MPI_Aint) (2 * NEL + 1) * c->t->size; }
static MPI_Aint slot_rgacc(const case_t *c) { return c->off + (MPI_Aint) (3 * NEL + 1) * c->t->size; }

static void cases_build(void)
{
    MPI_Aint off = 0;
    for (int i = 0; i < ntypes; i++)
        for (int op = 0; op < NOPS; op++) {
            if (!valid(&types[i], op))
                continue;
            case_t *c = &cases[ncases++];
            c->t = &types[i];
            c->op = op;
            c->off = off;
            c->kf = (i + op) % NEL;
            off += ((MPI_Aint) (4 * NEL + 1) * types[i].size + 31) / 32 * 32;
        }
    win_bytes = off;
}

static void init_target(kind_win_t *w)
{
    self_begin(w->win, MPI_LOCK_EXCLUSIVE);
    for (int n = 0; n < ncases; n++) {
        const case_t *c = &cases[n];
        unsigned char *b = w->base;
        for (int k = 0; k < NEL; k++) {
            gen(c->t, b + slot_acc(c) + k * c->t->size, 0, k, tap_rank);
            gen(c->t, b + slot_gacc(c) + k * c->t->size, 0, k, tap_rank);
            gen(c->t, b + slot_racc(c) + k * c->t->size, 0, k, tap_rank);
            gen(c->t, b + slot_rgacc(c) + k * c->t->size, 0, k, tap_rank);
        }
        gen(c->t, b + slot_fop(c), 0, c->kf, tap_rank);
    }
    self_end(w->win);
}

/* Compare one element; on a mismatch record type, op, call and element. */
static void check_elem(const case_t *c, const char *call, const char *what, int k,
                       const void *got, const void *want, const char *kind)
{
    char vals[200];
    if (!same(c->t, got, want, vals, sizeof vals)) {
        char where[64];
        snprintf(where, sizeof where, "element %d", k);
        tap_fail("%s, %s %s on %s: %s %s is %s", kind, call, op_name[c->op], c->t->name, what,
                 where, vals);
    }
}

static void run(int kind)
{
    int right = (tap_rank + 1) % tap_size, left = (tap_rank + tap_size - 1) % tap_size;
    kind_win_t w = win_open(kind, win_bytes, 1, 0);
    init_target(&w);
    /* operands and results stay put until the epoch ends */
    unsigned char *opnd = malloc((size_t) win_bytes), *res = malloc((size_t) win_bytes);
    memset(res, 0xCC, (size_t) win_bytes);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t) ncases);
    MPI_Barrier(MPI_COMM_WORLD);

    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    for (int n = 0; n < ncases; n++) {
        const case_t *c = &cases[n];
        const type_t *t = c->t;
        for (int k = 0; k < NEL; k++) {
            gen(t, opnd + slot_acc(c) + k * t->size, 1, k, tap_rank);
            gen(t, opnd + slot_gacc(c) + k * t->size, 1, k, tap_rank);
            gen(t, opnd + slot_racc(c) + k * t->size, 1, k, tap_rank);
            gen(t, opnd + slot_rgacc(c) + k * t->size, 1, k, tap_rank);
        }
        gen(t, opnd + slot_fop(c), 1, c->kf, tap_rank);
        req[2 * n] = req[2 * n + 1] = MPI_REQUEST_NULL;     /* a failed call sets none */
        if (c->op != NO_OP)
            EXPECT_OK(MPI_Accumulate(opnd + slot_acc(c), NEL, t->dt, right, slot_acc(c), NEL, t->dt,
                                mpi_op[c->op], w.win), "MPI_Accumulate %s on %s",
                 op_name[c->op], t->name);
        EXPECT_OK(MPI_Get_accumulate(opnd + slot_gacc(c), NEL, t->dt, res + slot_gacc(c), NEL, t->dt,
                                right, slot_gacc(c), NEL, t->dt, mpi_op[c->op], w.win),
             "MPI_Get_accumulate %s on %s", op_name[c->op], t->name);
        EXPECT_OK(MPI_Fetch_and_op(opnd + slot_fop(c), res + slot_fop(c), t->dt, right, slot_fop(c),
                              mpi_op[c->op], w.win), "MPI_Fetch_and_op %s on %s",
             op_name[c->op], t->name);
        if (c->op != NO_OP)
            EXPECT_OK(MPI_Raccumulate(opnd + slot_racc(c), NEL, t->dt, right, slot_racc(c), NEL, t->dt,
                                 mpi_op[c->op], w.win, &req[2 * n]), "MPI_Raccumulate %s on %s",
                 op_name[c->op], t->name);
        EXPECT_OK(MPI_Rget_accumulate(opnd + slot_rgacc(c), NEL, t->dt, res + slot_rgacc(c), NEL, t->dt,
                                 right, slot_rgacc(c), NEL, t->dt, mpi_op[c->op], w.win,
                                 &req[2 * n + 1]), "MPI_Rget_accumulate %s on %s",
             op_name[c->op], t->name);
    }
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t) ncases);
    EXPECT_OK(MPI_Waitall(2 * ncases, req, st), "MPI_Waitall");
    free(st);
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    free(req);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Per category: the origin's results and the target's memory. */
    for (int g = 0; g < NCAT; g++) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        const unsigned char *mem = w.base;
        for (int n = 0; n < ncases; n++) {
            const case_t *c = &cases[n];
            const type_t *t = c->t;
            if ((int) t->cat != g)
                continue;
            unsigned char x[64], y[64], want[64];
            for (int k = 0; k < NEL; k++) {
                /* my window, operated on by my left neighbour */
                gen(t, x, 0, k, tap_rank);
                gen(t, y, 1, k, left);
                compute(t, c->op, want, x, y);
                if (c->op != NO_OP) {
                    check_elem(c, "MPI_Accumulate", "target", k, mem + slot_acc(c) + k * t->size,
                               want, win_kind_name[kind]);
                    check_elem(c, "MPI_Raccumulate", "target", k,
                               mem + slot_racc(c) + k * t->size, want, win_kind_name[kind]);
                } else {
                    check_elem(c, "(no call)", "target", k, mem + slot_acc(c) + k * t->size, x,
                               win_kind_name[kind]);
                }
                check_elem(c, "MPI_Rget_accumulate", "target", k,
                           mem + slot_rgacc(c) + k * t->size, want, win_kind_name[kind]);
                check_elem(c, "MPI_Get_accumulate", "target", k,
                           mem + slot_gacc(c) + k * t->size, want, win_kind_name[kind]);
                if (k == c->kf)
                    check_elem(c, "MPI_Fetch_and_op", "target", k, mem + slot_fop(c), want,
                               win_kind_name[kind]);
                /* my results, fetched from my right neighbour */
                gen(t, x, 0, k, right);
                check_elem(c, "MPI_Get_accumulate", "result", k, res + slot_gacc(c) + k * t->size,
                           x, win_kind_name[kind]);
                check_elem(c, "MPI_Rget_accumulate", "result", k,
                           res + slot_rgacc(c) + k * t->size, x, win_kind_name[kind]);
                if (k == c->kf)
                    check_elem(c, "MPI_Fetch_and_op", "result", k, res + slot_fop(c), x,
                               win_kind_name[kind]);
            }
        }
        self_end(w.win);
        char list[400] = "";
        for (int i = 0; i < ntypes; i++)
            if ((int) types[i].cat == g && strlen(list) < sizeof list - 40)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         list[0] ? " " : "", types[i].name + 4);
        tap_ok("%s, %s (%s): every allowed op + REPLACE + NO_OP via Accumulate, "
               "Get_accumulate, Fetch_and_op, Raccumulate, Rget_accumulate", win_kind_name[kind],
               group_name[g], list);
    }
    free(opnd);
    free(res);
    win_close(&w);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    types_build();
    const MPI_Op ops[NOPS] = { MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,
                               MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE,
                               MPI_NO_OP };
    memcpy(mpi_op, ops, sizeof ops);
    /* The C layouts used here must be MPI's. */
    for (int i = 0; i < ntypes; i++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(types[i].dt, &lb, &ext);
        TAP_CHECK(ext == types[i].size, "%s has extent %ld, its C type %d bytes", types[i].name,
                  (long) ext, types[i].size);
    }
    cases_build();
    tap_ok("%d predefined types have the extents of their C types; %d (type, op) cases",
           ntypes, ncases);
    run(WIN_ALLOCATE);
    run(WIN_CREATE);
    return tap_done();
}
