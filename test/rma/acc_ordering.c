/*
 * acc_ordering: accumulates from one origin to the same location take effect in
 * program order (the default accumulate_ordering, rar,raw,war,waw, MPI-3.1 §11.7.2),
 * with no flush between them.
 *
 * Every origin runs its own pseudo-random sequence of L operations on its own
 * element at one target: MPI_Accumulate with REPLACE, SUM, MAX, MIN, BXOR, BOR, BAND;
 * MPI_Get_accumulate with SUM and REPLACE; MPI_Fetch_and_op with NO_OP and SUM; and
 * MPI_Compare_and_swap whose compare value is the element's current value in the
 * sequential order (so it must succeed) or another one (so it must fail).  Each
 * fetching call must return exactly the value the sequence has reached at that
 * point, and the element must end at the sequential result.  Elements:
 *  - int64, naturally aligned (rmaib: CPU atomics on an allocated window);
 *  - int64 3 bytes off alignment (rmaib: accumulate lock);
 *  - double complex with REPLACE, SUM, PROD (by i, -1 or -i, exact), Get_accumulate
 *    and Fetch_and_op (rmaib: accumulate lock).
 * Each path is ordered on its own; one element is never reached through both.  In
 * one lock_all epoch, an exclusive lock epoch and a fence epoch, on an allocated and
 * a created window.  Env ACC_ORDERING_L overrides L.
 */
#include <complex.h>
#include "tap.h"
#include "pattern.h"
#include "windows.h"
#include "errcheck.h"

static int L, NPROCS;

/* Window layout (disp_unit 1): per origin r, an aligned int64 at 8r, an unaligned
 * int64 at OFF_U + 8r, a double complex at OFF_Z + 16r. */
#define MAXP 64
#define OFF_U (8 * MAXP + 3)
#define OFF_Z (OFF_U + 8 * MAXP + 13)   /* back to a multiple of 16 */
#define WIN_BYTES (OFF_Z + 16 * MAXP)

enum { I_ACC_REPLACE, I_ACC_SUM, I_ACC_MAX, I_ACC_MIN, I_ACC_BXOR, I_ACC_BOR, I_ACC_BAND,
       I_GACC_SUM, I_GACC_REPLACE, I_FOP_NOOP, I_FOP_SUM, I_CAS_HIT, I_CAS_MISS, I_NKINDS };
static const char *const ikind_name[I_NKINDS] = {
    "Accumulate(REPLACE)", "Accumulate(SUM)", "Accumulate(MAX)", "Accumulate(MIN)",
    "Accumulate(BXOR)", "Accumulate(BOR)", "Accumulate(BAND)", "Get_accumulate(SUM)",
    "Get_accumulate(REPLACE)", "Fetch_and_op(NO_OP)", "Fetch_and_op(SUM)",
    "Compare_and_swap (current value)", "Compare_and_swap (another value)",
};

enum { Z_ACC_REPLACE, Z_ACC_SUM, Z_ACC_PROD, Z_GACC_SUM, Z_FOP_NOOP, Z_FOP_REPLACE, Z_NKINDS };
static const char *const zkind_name[Z_NKINDS] = {
    "Accumulate(REPLACE)", "Accumulate(SUM)", "Accumulate(PROD)", "Get_accumulate(SUM)",
    "Fetch_and_op(NO_OP)", "Fetch_and_op(REPLACE)",
};

typedef struct {
    int kind;
    int64_t v, cmp;          /* operand, CAS compare value */
    int64_t fetched;         /* result buffer */
    int64_t want;            /* what the fetch must return */
} iop_t;

typedef struct {
    int kind;
    double _Complex v, fetched, want;
} zop_t;

/* Plan origin me's int64 sequence; returns the final value (starting from init). */
static int64_t plan_int(iop_t *ops, uint64_t seed, int64_t init)
{
    int64_t x = init;
    for (int i = 0; i < L; i++) {
        iop_t *o = &ops[i];
        o->kind = (int) (prng_next(&seed) % I_NKINDS);
        o->v = (int64_t) (prng_next(&seed) % 1000);
        if (o->kind == I_ACC_BAND)
            o->v |= 0x400;      /* keep some bits */
        o->want = x;
        o->fetched = -7777777;
        switch (o->kind) {
        case I_ACC_REPLACE: case I_GACC_REPLACE: x = o->v; break;
        case I_ACC_SUM: case I_GACC_SUM: case I_FOP_SUM: x += o->v; break;
        case I_ACC_MAX: x = o->v > x ? o->v : x; break;
        case I_ACC_MIN: x = o->v < x ? o->v : x; break;
        case I_ACC_BXOR: x ^= o->v; break;
        case I_ACC_BOR: x |= o->v; break;
        case I_ACC_BAND: x &= o->v; break;
        case I_CAS_HIT: o->cmp = x; x = o->v; break;
        case I_CAS_MISS: o->cmp = x + 1 + o->v; break;
        default: break;     /* NO_OP */
        }
    }
    return x;
}

static double _Complex plan_z(zop_t *ops, uint64_t seed, double _Complex init)
{
    static const double _Complex mul[3] = { I, -1, -I };
    double _Complex x = init;
    for (int i = 0; i < L; i++) {
        zop_t *o = &ops[i];
        o->kind = (int) (prng_next(&seed) % Z_NKINDS);
        o->want = x;
        o->fetched = -7777777;
        double re = (double) (prng_next(&seed) % 64), im = (double) (prng_next(&seed) % 64) - 32;
        o->v = CMPLX(re, im);
        switch (o->kind) {
        case Z_ACC_REPLACE: case Z_FOP_REPLACE: x = o->v; break;
        case Z_ACC_SUM: case Z_GACC_SUM: x += o->v; break;
        case Z_ACC_PROD: o->v = mul[prng_next(&seed) % 3]; x *= o->v; break;
        default: break;
        }
    }
    return x;
}

static void issue_int(MPI_Win win, int target, MPI_Aint disp, iop_t *o)
{
    static const MPI_Op acc_op[] = { MPI_REPLACE, MPI_SUM, MPI_MAX, MPI_MIN, MPI_BXOR, MPI_BOR,
                                     MPI_BAND };
    int rc;
    switch (o->kind) {
    case I_ACC_REPLACE: case I_ACC_SUM: case I_ACC_MAX: case I_ACC_MIN: case I_ACC_BXOR:
    case I_ACC_BOR: case I_ACC_BAND:
        rc = MPI_Accumulate(&o->v, 1, MPI_INT64_T, target, disp, 1, MPI_INT64_T, acc_op[o->kind],
                            win);
        break;
    case I_GACC_SUM: case I_GACC_REPLACE:
        rc = MPI_Get_accumulate(&o->v, 1, MPI_INT64_T, &o->fetched, 1, MPI_INT64_T, target, disp,
                                1, MPI_INT64_T, o->kind == I_GACC_SUM ? MPI_SUM : MPI_REPLACE, win);
        break;
    case I_FOP_NOOP: case I_FOP_SUM:
        rc = MPI_Fetch_and_op(&o->v, &o->fetched, MPI_INT64_T, target, disp,
                              o->kind == I_FOP_SUM ? MPI_SUM : MPI_NO_OP, win);
        break;
    default:
        rc = MPI_Compare_and_swap(&o->v, &o->cmp, &o->fetched, MPI_INT64_T, target, disp, win);
        break;
    }
    EXPECT_OK(rc, "MPI_%s", ikind_name[o->kind]);
}

static void issue_z(MPI_Win win, int target, MPI_Aint disp, zop_t *o)
{
    const MPI_Datatype Z = MPI_C_DOUBLE_COMPLEX;
    int rc;
    switch (o->kind) {
    case Z_ACC_REPLACE: case Z_ACC_SUM: case Z_ACC_PROD:
        rc = MPI_Accumulate(&o->v, 1, Z, target, disp, 1, Z,
                            o->kind == Z_ACC_REPLACE ? MPI_REPLACE
                            : o->kind == Z_ACC_SUM ? MPI_SUM : MPI_PROD, win);
        break;
    case Z_GACC_SUM:
        rc = MPI_Get_accumulate(&o->v, 1, Z, &o->fetched, 1, Z, target, disp, 1, Z, MPI_SUM, win);
        break;
    default:
        rc = MPI_Fetch_and_op(&o->v, &o->fetched, Z, target, disp,
                              o->kind == Z_FOP_NOOP ? MPI_NO_OP : MPI_REPLACE, win);
        break;
    }
    EXPECT_OK(rc, "MPI_%s (double complex)", zkind_name[o->kind]);
}

static int fetches_int(int kind)
{
    return kind >= I_GACC_SUM;
}

static int fetches_z(int kind)
{
    return kind >= Z_GACC_SUM;
}

static int64_t init_int(int r, int which)
{
    return 100 * r + which;
}

static double _Complex init_z(int r)
{
    return CMPLX(r, -r);
}

enum { M_LOCK_ALL, M_EXCLUSIVE, M_FENCE, M_COUNT };
static const char *const mode_name[M_COUNT] = {
    "one lock_all epoch", "one exclusive-lock epoch per origin", "one fence epoch",
};

static void run(kind_win_t *wp, int kind, int mode, int target)
{
    kind_win_t w = *wp;
    int me = tap_rank;
    if (me == target) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        unsigned char *b = w.base;
        for (int r = 0; r < NPROCS; r++) {
            int64_t a = init_int(r, 0), u = init_int(r, 1);
            double _Complex z = init_z(r);
            memcpy(b + 8 * r, &a, 8);
            memcpy(b + OFF_U + 8 * r, &u, 8);
            memcpy(b + OFF_Z + 16 * r, &z, 16);
        }
        self_end(w.win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    uint64_t seed = 0x9E3779B97F4A7C15ULL ^ ((uint64_t) (me + 1) << 20) ^ (uint64_t) (mode * 7 + kind);
    iop_t *a = malloc(sizeof(iop_t) * (size_t) L), *u = malloc(sizeof(iop_t) * (size_t) L);
    zop_t *z = malloc(sizeof(zop_t) * (size_t) L);
    int64_t fin_a = plan_int(a, seed, init_int(me, 0));
    int64_t fin_u = plan_int(u, seed * 3 + 1, init_int(me, 1));
    double _Complex fin_z = plan_z(z, seed * 5 + 2, init_z(me));

    if (mode == M_LOCK_ALL)
        EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    else if (mode == M_EXCLUSIVE)
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w.win), "MPI_Win_lock");
    else
        EXPECT_OK(MPI_Win_fence(0, w.win), "MPI_Win_fence");
    for (int i = 0; i < L; i++) {        /* the three sequences interleaved, no flush */
        issue_int(w.win, target, 8 * me, &a[i]);
        issue_int(w.win, target, OFF_U + 8 * me, &u[i]);
        issue_z(w.win, target, OFF_Z + 16 * me, &z[i]);
    }
    if (mode == M_LOCK_ALL)
        EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    else if (mode == M_EXCLUSIVE)
        EXPECT_OK(MPI_Win_unlock(target, w.win), "MPI_Win_unlock");
    else
        EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win), "MPI_Win_fence");

    for (int i = 0; i < L && !tap_local_fail; i++) {
        if (fetches_int(a[i].kind))
            TAP_CHECK(a[i].fetched == a[i].want, "aligned int64, operation %d, MPI_%s fetched "
                      "%lld, the sequence was at %lld", i, ikind_name[a[i].kind],
                      (long long) a[i].fetched, (long long) a[i].want);
        if (fetches_int(u[i].kind))
            TAP_CHECK(u[i].fetched == u[i].want, "unaligned int64, operation %d, MPI_%s fetched "
                      "%lld, the sequence was at %lld", i, ikind_name[u[i].kind],
                      (long long) u[i].fetched, (long long) u[i].want);
        if (fetches_z(z[i].kind))
            TAP_CHECK(z[i].fetched == z[i].want, "double complex, operation %d, MPI_%s fetched "
                      "%g%+gi, the sequence was at %g%+gi", i, zkind_name[z[i].kind],
                      creal(z[i].fetched), cimag(z[i].fetched), creal(z[i].want),
                      cimag(z[i].want));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* final values: read back by each origin, and at the target for everyone */
    int64_t ga = -1, gu = -1;
    double _Complex gz = -1;
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win), "MPI_Win_lock");
    EXPECT_OK(MPI_Get(&ga, 8, MPI_BYTE, target, 8 * me, 8, MPI_BYTE, w.win), "MPI_Get");
    EXPECT_OK(MPI_Get(&gu, 8, MPI_BYTE, target, OFF_U + 8 * me, 8, MPI_BYTE, w.win), "MPI_Get");
    EXPECT_OK(MPI_Get(&gz, 16, MPI_BYTE, target, OFF_Z + 16 * me, 16, MPI_BYTE, w.win), "MPI_Get");
    EXPECT_OK(MPI_Win_unlock(target, w.win), "MPI_Win_unlock");
    TAP_CHECK(ga == fin_a, "aligned int64 ends at %lld, the sequence at %lld", (long long) ga,
              (long long) fin_a);
    TAP_CHECK(gu == fin_u, "unaligned int64 ends at %lld, the sequence at %lld", (long long) gu,
              (long long) fin_u);
    TAP_CHECK(gz == fin_z, "double complex ends at %g%+gi, the sequence at %g%+gi", creal(gz),
              cimag(gz), creal(fin_z), cimag(fin_z));
    int64_t fa[MAXP], fu[MAXP];
    double _Complex fz[MAXP];
    MPI_Gather(&fin_a, 1, MPI_INT64_T, fa, 1, MPI_INT64_T, target, MPI_COMM_WORLD);
    MPI_Gather(&fin_u, 1, MPI_INT64_T, fu, 1, MPI_INT64_T, target, MPI_COMM_WORLD);
    MPI_Gather(&fin_z, 1, MPI_C_DOUBLE_COMPLEX, fz, 1, MPI_C_DOUBLE_COMPLEX, target,
               MPI_COMM_WORLD);
    if (me == target) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        const unsigned char *b = w.base;
        for (int r = 0; r < NPROCS; r++) {
            TAP_CHECK(memcmp(b + 8 * r, &fa[r], 8) == 0 && memcmp(b + OFF_U + 8 * r, &fu[r], 8) == 0
                      && memcmp(b + OFF_Z + 16 * r, &fz[r], 16) == 0,
                      "the target's own memory for origin %d disagrees with its sequence", r);
        }
        self_end(w.win);
    }
    free(a);
    free(u);
    free(z);
    tap_ok("%s, %s, target rank %d: %d operations per origin on an aligned int64, an unaligned "
           "int64 and a double complex take effect in order", win_kind_name[kind], mode_name[mode],
           target, L);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    NPROCS = tap_size;
    L = tap_env_int("ACC_ORDERING_L", 200);
    if (NPROCS > MAXP) {
        tap_skip("acc_ordering", "more than 64 ranks");
        return tap_done();
    }
    for (int kind = WIN_ALLOCATE; kind <= WIN_CREATE; kind++) {
        kind_win_t w = win_open(kind, WIN_BYTES, 1, 0);
        run(&w, kind, M_LOCK_ALL, tap_size - 1);
        run(&w, kind, M_EXCLUSIVE, 0);
        run(&w, kind, M_FENCE, tap_size / 2);
        win_close(&w);
    }
    return tap_done();
}
