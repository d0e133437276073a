/*
 * acc_overlapping_ranges: concurrent MPI_SUM accumulates from every rank into
 * overlapping ranges of one target's arrays lose no update and tear no element.
 *
 * Each rank, ITERS times, adds small integers to a range of LEN of an array's NEL
 * elements at the target; the ranges of different ranks and iterations overlap in
 * every pattern.  All values are small integers (exact in double), so the final
 * arrays are known exactly: every rank computes them, reads them back and compares,
 * and the target checks its own memory too.  The window (disp_unit 1) holds one
 * array per case, all updated in the same epochs:
 *  - int32, int64, double: rmaib's native path on an allocated window (stripe locks);
 *  - double complex, 16 bytes: the accumulate lock on any window (locked path);
 *  - both paths in one array pair: an int64 array naturally aligned and one 3 bytes
 *    off alignment, each element always reached at its own alignment; a third of the
 *    operations cover both arrays in one call (an hindexed target type), so one call
 *    runs both paths.
 * Everything runs on an allocated window and on a created one (where rmaib takes
 * the locked path for every type), under four synchronisations: one lock_all epoch
 * with no flush, fence epochs, an exclusive lock per operation, one shared-lock
 * epoch.  The target is a different rank for each.  Env ACC_OVERLAP_ITERS
 * overrides ITERS.
 */
#include <complex.h>
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

#define NEL 64
#define LEN 24

enum { A_I32, A_I64, A_DBL, A_DCPLX, A_MIXED_ALIGNED, A_MIXED_UNALIGNED, A_COUNT };
static const struct {
    const char *name;
    int size;        /* element bytes */
    MPI_Aint off;    /* array's byte offset in the window */
} arrays[A_COUNT] = {
    { "int32_t", 4, 0 },
    { "int64_t", 8, 256 },
    { "double", 8, 768 },
    { "double complex", 16, 1280 },
    { "int64_t, aligned half of the mixed pair", 8, 2304 },
    { "int64_t, unaligned half of the mixed pair", 8, 2304 + 512 + 3 },
};
#define WIN_BYTES (2304 + 1024 + 16)
static MPI_Datatype mpi_type[A_COUNT];

/* Operation kinds of one iteration: one per plain array, and one for the pair. */
enum { K_I32, K_I64, K_DBL, K_DCPLX, K_MIXED, K_COUNT };

enum { M_LOCK_ALL, M_FENCE, M_EXCLUSIVE, M_SHARED, M_COUNT };
static const char *const mode_name[M_COUNT] = {
    "lock_all epoch", "fence epochs", "exclusive lock per operation", "shared lock epoch",
};
#define FENCE_EVERY 8

static int ITERS;
static MPI_Datatype pair_type;   /* LEN int64 of the aligned array, LEN of the unaligned */

/* The range origin r covers in iteration i with op kind k, and what it adds to its
 * j-th element (the imaginary part gets -2 times that). */
static int range_start(int r, int i, int k)
{
    return (r * 7 + i * 11 + k * 5) % (NEL - LEN + 1);
}

static long addend(int r, int i, int j)
{
    return 1 + (r + i + j) % 5;
}

/* For the pair: iteration i reaches the aligned array (0), the unaligned one (1) or
 * both in one call (2). */
static int mixed_region(int i)
{
    return i % 3;
}

static void store(int a, void *p, long re)
{
    switch (a) {
    case A_I32: { int32_t v = (int32_t) re; memcpy(p, &v, sizeof v); break; }
    case A_DBL: { double v = (double) re; memcpy(p, &v, sizeof v); break; }
    case A_DCPLX: {
        double _Complex v = CMPLX((double) re, -2.0 * (double) re);
        memcpy(p, &v, sizeof v);
        break;
    }
    default: { int64_t v = re; memcpy(p, &v, sizeof v); break; }
    }
}

static long shown(int a, const void *p)
{
    switch (a) {
    case A_I32: { int32_t v; memcpy(&v, p, sizeof v); return v; }
    case A_DBL: { double v; memcpy(&v, p, sizeof v); return (long) v; }
    case A_DCPLX: { double _Complex v; memcpy(&v, p, sizeof v); return (long) creal(v); }
    default: { int64_t v; memcpy(&v, p, sizeof v); return (long) v; }
    }
}

static long initial(int a, int j)
{
    return 1000 * (a + 1) + j;
}

/* Origin `me`'s operation of kind k in iteration i; operand (2*LEN elements) must
 * stay untouched until the operation completes. */
static void issue(MPI_Win win, int k, int target, int i, unsigned char *operand)
{
    int me = tap_rank, s = range_start(me, i, k), rc;
    int a = k == K_MIXED ? A_MIXED_ALIGNED : k;
    int es = arrays[a].size;
    for (int j = 0; j < 2 * LEN; j++)
        store(a, operand + (size_t) j * es, addend(me, i, j % LEN));
    MPI_Aint disp = arrays[a].off + (MPI_Aint) s * es;
    if (k == K_MIXED && mixed_region(i) == 2) {
        rc = MPI_Accumulate(operand, 2 * LEN, mpi_type[a], target, disp, 1, pair_type, MPI_SUM,
                            win);
    } else {
        if (k == K_MIXED && mixed_region(i) == 1)
            disp = arrays[A_MIXED_UNALIGNED].off + (MPI_Aint) s * es;
        rc = MPI_Accumulate(operand, LEN, mpi_type[a], target, disp, LEN, mpi_type[a], MPI_SUM,
                            win);
    }
    EXPECT_OK(rc, "MPI_Accumulate to the %s array (iteration %d)", arrays[a].name, i);
}

static void issue_all(MPI_Win win, int target, int i, unsigned char *ops)
{
    for (int k = 0; k < K_COUNT; k++)
        issue(win, k, target, i, ops + (size_t) k * 2 * LEN * 16);
}

/* Every array's expected final values: exp[a][j]. */
static void expected(long exp[A_COUNT][NEL])
{
    for (int a = 0; a < A_COUNT; a++)
        for (int j = 0; j < NEL; j++)
            exp[a][j] = initial(a, j);
    for (int r = 0; r < tap_size; r++)
        for (int i = 0; i < ITERS; i++)
            for (int k = 0; k < K_COUNT; k++) {
                int s = range_start(r, i, k);
                for (int j = 0; j < LEN; j++) {
                    if (k != K_MIXED) {
                        exp[k][s + j] += addend(r, i, j);
                        continue;
                    }
                    if (mixed_region(i) != 1)
                        exp[A_MIXED_ALIGNED][s + j] += addend(r, i, j);
                    if (mixed_region(i) != 0)
                        exp[A_MIXED_UNALIGNED][s + j] += addend(r, i, j);
                }
            }
}

static void compare(const unsigned char *img, long exp[A_COUNT][NEL], const char *where)
{
    for (int a = 0; a < A_COUNT; a++)
        for (int j = 0; j < NEL; j++) {
            unsigned char want[16];
            const unsigned char *p = img + arrays[a].off + (size_t) j * arrays[a].size;
            store(a, want, exp[a][j]);
            TAP_CHECK(memcmp(p, want, (size_t) arrays[a].size) == 0,
                      "%s: %s array, element %d is %ld, expected %ld", where, arrays[a].name, j,
                      shown(a, p), exp[a][j]);
        }
}

static void run(kind_win_t *w, int kind, int mode, int target, unsigned char *ops)
{
    size_t opbytes = (size_t) K_COUNT * 2 * LEN * 16;

    if (tap_rank == target) {
        self_begin(w->win, MPI_LOCK_EXCLUSIVE);
        for (int a = 0; a < A_COUNT; a++)
            for (int j = 0; j < NEL; j++)
                store(a, (unsigned char *) w->base + arrays[a].off + (size_t) j * arrays[a].size,
                      initial(a, j));
        self_end(w->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    switch (mode) {
    case M_LOCK_ALL:
        EXPECT_OK(MPI_Win_lock_all(0, w->win), "MPI_Win_lock_all");
        for (int i = 0; i < ITERS; i++)
            issue_all(w->win, target, i, ops + opbytes * (size_t) i);
        EXPECT_OK(MPI_Win_unlock_all(w->win), "MPI_Win_unlock_all");
        break;
    case M_FENCE:
        EXPECT_OK(MPI_Win_fence(0, w->win), "MPI_Win_fence");
        for (int i = 0; i < ITERS; i++) {
            issue_all(w->win, target, i, ops + opbytes * (size_t) i);
            if (i % FENCE_EVERY == FENCE_EVERY - 1)
                EXPECT_OK(MPI_Win_fence(0, w->win), "MPI_Win_fence");
        }
        EXPECT_OK(MPI_Win_fence(0, w->win), "MPI_Win_fence");
        break;
    case M_EXCLUSIVE:
        for (int i = 0; i < ITERS; i++) {
            EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w->win), "MPI_Win_lock");
            issue_all(w->win, target, i, ops + opbytes * (size_t) i);
            EXPECT_OK(MPI_Win_unlock(target, w->win), "MPI_Win_unlock");
        }
        break;
    default:
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w->win), "MPI_Win_lock");
        for (int i = 0; i < ITERS; i++)
            issue_all(w->win, target, i, ops + opbytes * (size_t) i);
        EXPECT_OK(MPI_Win_unlock(target, w->win), "MPI_Win_unlock");
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    static long exp[A_COUNT][NEL];
    expected(exp);
    if (tap_rank == target) {
        self_begin(w->win, MPI_LOCK_EXCLUSIVE);
        compare(w->base, exp, "target's own memory");
        self_end(w->win);
    }
    unsigned char img[WIN_BYTES];
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w->win), "MPI_Win_lock");
    EXPECT_OK(MPI_Get(img, WIN_BYTES, MPI_BYTE, target, 0, WIN_BYTES, MPI_BYTE, w->win), "MPI_Get");
    EXPECT_OK(MPI_Win_unlock(target, w->win), "MPI_Win_unlock");
    compare(img, exp, "read back");

    tap_ok("%s, %s, target rank %d: %d ranks x %d sums into overlapping ranges of int32, "
           "int64, double, double complex, and an aligned+unaligned int64 pair", mode_name[mode],
           win_kind_name[kind], target, tap_size, ITERS);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    ITERS = tap_env_int("ACC_OVERLAP_ITERS", 40);
    mpi_type[A_I32] = MPI_INT32_T;
    mpi_type[A_I64] = mpi_type[A_MIXED_ALIGNED] = mpi_type[A_MIXED_UNALIGNED] = MPI_INT64_T;
    mpi_type[A_DBL] = MPI_DOUBLE;
    mpi_type[A_DCPLX] = MPI_C_DOUBLE_COMPLEX;
    {
        int bl[2] = { LEN, LEN };
        MPI_Aint d[2] = { 0, arrays[A_MIXED_UNALIGNED].off - arrays[A_MIXED_ALIGNED].off };
        MPI_Type_create_hindexed(2, bl, d, MPI_INT64_T, &pair_type);
        MPI_Type_commit(&pair_type);
    }
    unsigned char *ops = malloc((size_t) ITERS * K_COUNT * 2 * LEN * 16);
    const int targets[M_COUNT] = { tap_size - 1, 0, tap_size / 2, 1 };

    for (int kind = WIN_ALLOCATE; kind <= WIN_CREATE; kind++) {
        kind_win_t w = win_open(kind, WIN_BYTES, 1, 0);
        for (int m = 0; m < M_COUNT; m++)
            run(&w, kind, m, targets[m], ops);
        win_close(&w);
    }
    free(ops);
    MPI_Type_free(&pair_type);
    return tap_done();
}
