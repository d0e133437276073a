/*
 * get_accumulate_noop_consistent: an atomic read (MPI_Get_accumulate or
 * MPI_Fetch_and_op with MPI_NO_OP) never sees an element half written.
 *
 * Writers (every rank but the reader) keep replacing whole elements at the target
 * with MPI_Accumulate(MPI_REPLACE) -- and now and then MPI_Fetch_and_op(MPI_REPLACE)
 * -- always with values whose parts are equal: an 8-byte integer whose two 4-byte
 * halves are equal, a double complex whose real and imaginary parts are equal.  The
 * reader (the last rank) meanwhile reads the arrays with MPI_Get_accumulate(NO_OP)
 * and single elements with MPI_Fetch_and_op(NO_OP), and checks that every element it
 * got has equal parts and is a value some writer wrote; then it raises a stop flag
 * (MPI_Fetch_and_op(MPI_REPLACE)) that the writers poll.  Arrays at the target:
 *  - uint64, naturally aligned (rmaib: CPU atomics on an allocated window);
 *  - uint64 3 bytes off alignment (rmaib: accumulate lock);
 *  - double complex, 16 bytes (rmaib: accumulate lock), 8 bytes off a multiple of 16.
 * Some elements of the last two straddle a cache line, where a plain copy can tear.
 * On an allocated window and on a created one (rmaib: accumulate lock throughout),
 * in a lock_all epoch with a flush after every operation.  The reader goes on past
 * its ACC_NOOP_READS rounds (env, default 200) until it has seen every array change
 * under it MIN_CHANGES times, so the check cannot pass without concurrent writes;
 * a writer that never gets to write hangs the test until tap.h's watchdog fails it.
 */
#include <complex.h>
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

#define M 16
#define MIN_CHANGES 8
#define OFF_U64 0
#define OFF_UNALIGNED (M * 8 + 3)
#define OFF_CPLX 280       /* 8 mod 16: some elements straddle a cache line */
#define OFF_STOP (OFF_CPLX + M * 16)
#define WIN_BYTES (OFF_STOP + 8)

static int reader, target;

/* The value writer w's n-th write gives element e: 32 bits, repeated in both halves
 * (never 0, the initial value, which is consistent too). */
static uint32_t word(int w, long n, int e)
{
    return ((uint32_t) (w + 1) << 24) | (((uint32_t) n * M + (uint32_t) e) & 0xFFFFFFu);
}

static uint64_t both_halves(uint32_t x)
{
    return (uint64_t) x << 32 | x;
}

/* The element at p, read by NO_OP: parts equal, and 0 or a writer's value. */
static void check_u64(const void *p, const char *what, int e)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    uint32_t hi = (uint32_t) (v >> 32), lo = (uint32_t) v;
    TAP_CHECK(hi == lo, "%s: element %d read torn: %#018llx", what, e, (unsigned long long) v);
    TAP_CHECK(hi >> 24 <= (uint32_t) tap_size, "%s: element %d holds %#018llx, which nobody wrote",
              what, e, (unsigned long long) v);
}

static void check_cplx(const void *p, const char *what, int e)
{
    double _Complex v;
    memcpy(&v, p, sizeof v);
    TAP_CHECK(creal(v) == cimag(v), "%s: element %d read torn: %.17g%+.17gi", what, e, creal(v),
              cimag(v));
}

/* Write until the stop flag is up (once: one round only). */
static void writer(MPI_Win win, int once)
{
    uint64_t u[M];
    double _Complex c[M];
    long n;
    for (n = 0;; n++) {
        for (int e = 0; e < M; e++) {
            uint32_t x = word(tap_rank, n, e);
            u[e] = both_halves(x);
            c[e] = CMPLX((double) x, (double) x);
        }
        if (n % 4 == 3) {
            uint64_t old;
            double _Complex cold;
            int e = (int) (n % M);
            EXPECT_OK(MPI_Fetch_and_op(&u[e], &old, MPI_UINT64_T, target, OFF_U64 + e * 8, MPI_REPLACE,
                                  win), "MPI_Fetch_and_op(REPLACE)");
            EXPECT_OK(MPI_Fetch_and_op(&u[e], &old, MPI_UINT64_T, target, OFF_UNALIGNED + e * 8,
                                  MPI_REPLACE, win), "MPI_Fetch_and_op(REPLACE)");
            EXPECT_OK(MPI_Fetch_and_op(&c[e], &cold, MPI_C_DOUBLE_COMPLEX, target, OFF_CPLX + e * 16,
                                  MPI_REPLACE, win), "MPI_Fetch_and_op(REPLACE)");
        } else {
            EXPECT_OK(MPI_Accumulate(u, M, MPI_UINT64_T, target, OFF_U64, M, MPI_UINT64_T, MPI_REPLACE,
                                win), "MPI_Accumulate(REPLACE)");
            EXPECT_OK(MPI_Accumulate(u, M, MPI_UINT64_T, target, OFF_UNALIGNED, M, MPI_UINT64_T,
                                MPI_REPLACE, win), "MPI_Accumulate(REPLACE)");
            EXPECT_OK(MPI_Accumulate(c, M, MPI_C_DOUBLE_COMPLEX, target, OFF_CPLX, M,
                                MPI_C_DOUBLE_COMPLEX, MPI_REPLACE, win), "MPI_Accumulate(REPLACE)");
        }
        EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
        if (n % 4 == 0) {
            int64_t stop = 0;
            EXPECT_OK(MPI_Fetch_and_op(NULL, &stop, MPI_INT64_T, target, OFF_STOP, MPI_NO_OP, win),
                 "MPI_Fetch_and_op(NO_OP)");
            EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
            if (stop || tap_local_fail || once)
                break;
            poll_pause();
        }
    }
}

/* Reads at least `rounds` times, and until every array has changed MIN_CHANGES times;
 * changed counts the elements found different from the previous round (writes that
 * landed while the reader was reading).  Returns the rounds read. */
static int read_all(MPI_Win win, int rounds, long *changed)
{
    unsigned char u[M * 8], x[M * 8], c[M * 16], pu[M * 8], px[M * 8], pc[M * 16];
    int r;
    for (r = 0; !tap_local_fail && (r < rounds || changed[0] < MIN_CHANGES
                                    || changed[1] < MIN_CHANGES || changed[2] < MIN_CHANGES);
         r++) {
        int e = r % M;
        EXPECT_OK(MPI_Get_accumulate(NULL, 0, MPI_UINT64_T, u, M, MPI_UINT64_T, target, OFF_U64, M,
                                MPI_UINT64_T, MPI_NO_OP, win), "MPI_Get_accumulate(NO_OP)");
        EXPECT_OK(MPI_Get_accumulate(NULL, 0, MPI_UINT64_T, x, M, MPI_UINT64_T, target, OFF_UNALIGNED,
                                M, MPI_UINT64_T, MPI_NO_OP, win), "MPI_Get_accumulate(NO_OP)");
        EXPECT_OK(MPI_Get_accumulate(NULL, 0, MPI_C_DOUBLE_COMPLEX, c, M, MPI_C_DOUBLE_COMPLEX, target,
                                OFF_CPLX, M, MPI_C_DOUBLE_COMPLEX, MPI_NO_OP, win),
             "MPI_Get_accumulate(NO_OP)");
        EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
        for (int k = 0; k < M; k++) {
            check_u64(u + k * 8, "aligned uint64, MPI_Get_accumulate(NO_OP)", k);
            check_u64(x + k * 8, "unaligned uint64, MPI_Get_accumulate(NO_OP)", k);
            check_cplx(c + k * 16, "double complex, MPI_Get_accumulate(NO_OP)", k);
            if (r) {
                changed[0] += memcmp(u + k * 8, pu + k * 8, 8) != 0;
                changed[1] += memcmp(x + k * 8, px + k * 8, 8) != 0;
                changed[2] += memcmp(c + k * 16, pc + k * 16, 16) != 0;
            }
        }
        memcpy(pu, u, sizeof u);
        memcpy(px, x, sizeof x);
        memcpy(pc, c, sizeof c);
        EXPECT_OK(MPI_Fetch_and_op(NULL, u, MPI_UINT64_T, target, OFF_U64 + e * 8, MPI_NO_OP, win),
             "MPI_Fetch_and_op(NO_OP)");
        EXPECT_OK(MPI_Fetch_and_op(NULL, x, MPI_UINT64_T, target, OFF_UNALIGNED + e * 8, MPI_NO_OP,
                              win), "MPI_Fetch_and_op(NO_OP)");
        EXPECT_OK(MPI_Fetch_and_op(NULL, c, MPI_C_DOUBLE_COMPLEX, target, OFF_CPLX + e * 16, MPI_NO_OP,
                              win), "MPI_Fetch_and_op(NO_OP)");
        EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
        check_u64(u, "aligned uint64, MPI_Fetch_and_op(NO_OP)", e);
        check_u64(x, "unaligned uint64, MPI_Fetch_and_op(NO_OP)", e);
        check_cplx(c, "double complex, MPI_Fetch_and_op(NO_OP)", e);
        if (r % 8 == 7)
            poll_pause();
    }
    TAP_CHECK(tap_local_fail || (changed[0] >= MIN_CHANGES && changed[1] >= MIN_CHANGES
                                 && changed[2] >= MIN_CHANGES),
              "the reader stopped before seeing concurrent writes");
    int64_t one = 1, old;
    EXPECT_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, target, OFF_STOP, MPI_REPLACE, win),
         "MPI_Fetch_and_op(REPLACE)");
    EXPECT_OK(MPI_Win_flush(target, win), "MPI_Win_flush");
    return r;
}

static void run(int kind, int rounds)
{
    kind_win_t w = win_open(kind, WIN_BYTES, 1, 0);
    long changed[3] = { 0, 0, 0 };
    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    if (tap_rank != reader)     /* one round each first, so that the reader sees writes */
        writer(w.win, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == reader)
        rounds = read_all(w.win, rounds, changed);
    else
        writer(w.win, 0);
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    MPI_Barrier(MPI_COMM_WORLD);

    /* After the epoch the target itself sees consistent elements too. */
    if (tap_rank == target) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        for (int k = 0; k < M; k++) {
            const unsigned char *b = w.base;
            check_u64(b + OFF_U64 + k * 8, "aligned uint64 at the target", k);
            check_u64(b + OFF_UNALIGNED + k * 8, "unaligned uint64 at the target", k);
            check_cplx(b + OFF_CPLX + k * 16, "double complex at the target", k);
        }
        self_end(w.win);
    }
    if (tap_rank == reader)
        printf("# %s: %d read rounds; elements that changed between rounds: %ld aligned, "
               "%ld unaligned, %ld complex (of %d each)\n", win_kind_name[kind], rounds,
               changed[0], changed[1], changed[2], (rounds - 1) * M);
    win_close(&w);
    tap_ok("%s: NO_OP reads of aligned and unaligned uint64 and of double complex, while %d "
           "writer%s replace them, never see a torn element", win_kind_name[kind], tap_size - 1,
           tap_size > 2 ? "s" : "");
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int rounds = tap_env_int("ACC_NOOP_READS", 200);
    reader = tap_size - 1;
    target = 0;
    run(WIN_ALLOCATE, rounds);
    run(WIN_CREATE, rounds);
    return tap_done();
}
