/*
 * acc_ticket_lock: fetch-and-op and compare-and-swap are atomic read-modify-writes,
 * strong enough to build locks and counters on.  All in one lock_all epoch, against
 * words at one lock host:
 *  - a ticket lock: take a ticket with MPI_Fetch_and_op(MPI_SUM, 1) on `next`, spin
 *    until `serving` equals it (read with MPI_Fetch_and_op(MPI_NO_OP), or
 *    MPI_Get_accumulate(MPI_NO_OP), + flush), increment a plain counter with
 *    MPI_Get / MPI_Put + flush, release with MPI_Fetch_and_op(MPI_SUM, 1) on `serving`.
 *    Once with MPI_INT64_T and NO_OP fetch-and-op, once with MPI_LONG_LONG and
 *    NO_OP get-accumulate;
 *  - a test-and-set lock made of MPI_C_BOOL compare-and-swap (false -> true to take,
 *    true -> false to release, which must find it true) around another plain counter;
 *  - a fetch-and-add counter hammered by everyone at once for HAMMER_SECS (at least F
 *    times each): MPI_Fetch_and_op(MPI_SUM, 1) + flush on one MPI_INT64_T, no lock
 *    (every fetched value must come back exactly once), then MPI_Accumulate(MPI_SUM, 1)
 *    on an MPI_INT (the final count).  Time-bound, so that ranks sharing 2 cores
 *    really overlap;
 *  - CAS counters: a retry loop CAS(v -> v+1) until it succeeds, on MPI_INT64_T (which
 *    Open MPI 4.1.4 crashes on), MPI_INT, MPI_SHORT, MPI_SIGNED_CHAR,
 *    MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_CHAR (text to MPI-3.1 §11.3.4, a C integer to
 *    MPICH, Open MPI and rmaib), and on an int64 3 bytes off alignment (rmaib's locked
 *    path even on allocated memory).
 * Every lock and counter must end at exactly nprocs*K, and the values seen inside
 * critical sections and won by successful CASes must be 0 .. nprocs*K-1, each once
 * (a duplicate is two holders at once, or a lost update).  On an allocated window
 * (rmaib: CPU atomics) and a created one (rmaib: accumulate lock).  Env
 * ACC_TICKET_K overrides K, ACC_TICKET_F overrides F.  A lock that is never freed
 * hangs the test until tap.h's watchdog fails it: no timing threshold here.
 */
#include <stdbool.h>
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

/* Byte offsets in the lock host's window (disp_unit 1). */
#define OFF_NEXT64 0
#define OFF_SERVING64 8
#define OFF_COUNTER64 16
#define OFF_NEXTLL 24
#define OFF_SERVINGLL 32
#define OFF_COUNTERLL 40
#define OFF_COUNTERB 48
#define OFF_BOOL 56
#define OFF_FADD 112
#define OFF_ACC32 120
#define WIN_BYTES 128

/* The CAS counters (MPI handles are not constants everywhere: filled in at run time). */
enum { C_INT64, C_INT, C_SHORT, C_SCHAR, C_UCHAR, C_BYTE, C_CHAR, C_INT64_UNALIGNED, C_COUNT };
static struct cas_counter {
    const char *name;
    MPI_Datatype type;
    int size;
    MPI_Aint off;
} cc[C_COUNT];

static void cc_set(int c, const char *name, MPI_Datatype t, int size, MPI_Aint off)
{
    cc[c] = (struct cas_counter) { name, t, size, off };
}

static int K, F, host;
#define HAMMER_SECS 0.2
#define HAMMER_MAX 50000

/* A small non-negative counter value held in `size` bytes (little-endian x86). */
static int64_t get_small(const void *p, int size)
{
    int64_t v = 0;
    memcpy(&v, p, (size_t) size);
    return v;
}

static void set_small(void *p, int size, int64_t v)
{
    memcpy(p, &v, (size_t) size);
}

/* The host's word at off as the (small, non-negative) value of a `size`-byte type. */
static int64_t read_word(MPI_Win win, MPI_Aint off, int size)
{
    unsigned char b[8] = { 0 };
    EXPECT_OK(MPI_Get(b, size, MPI_BYTE, host, off, size, MPI_BYTE, win), "MPI_Get");
    EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
    return get_small(b, size);
}

/* Ticket lock on (next, serving) of type t, guarding the int64 counter at cnt. */
static void ticket_lock(MPI_Win win, MPI_Datatype t, MPI_Aint next, MPI_Aint serving,
                        MPI_Aint cnt, int use_getacc, int64_t *seen)
{
    for (int i = 0; i < K; i++) {
        int64_t one = 1, ticket = -1, now = -1, v = -1;
        EXPECT_OK(MPI_Fetch_and_op(&one, &ticket, t, host, next, MPI_SUM, win), "MPI_Fetch_and_op(SUM)");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        for (;;) {
            if (use_getacc)
                EXPECT_OK(MPI_Get_accumulate(NULL, 0, t, &now, 1, t, host, serving, 1, t, MPI_NO_OP,
                                        win), "MPI_Get_accumulate(NO_OP)");
            else
                EXPECT_OK(MPI_Fetch_and_op(NULL, &now, t, host, serving, MPI_NO_OP, win),
                     "MPI_Fetch_and_op(NO_OP)");
            EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
            if (now == ticket || tap_local_fail)
                break;
            if (now > ticket) {
                tap_fail("ticket %lld: serving is %lld", (long long) ticket, (long long) now);
                break;
            }
            poll_pause();
        }
        /* critical section: a plain read-modify-write */
        EXPECT_OK(MPI_Get(&v, 1, MPI_INT64_T, host, cnt, 1, MPI_INT64_T, win), "MPI_Get");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        seen[i] = v++;
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, host, cnt, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        int64_t old = -1;
        EXPECT_OK(MPI_Fetch_and_op(&one, &old, t, host, serving, MPI_SUM, win), "MPI_Fetch_and_op(SUM)");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        TAP_CHECK(old == ticket, "released ticket %lld but serving was %lld", (long long) ticket,
                  (long long) old);
    }
}

/* Test-and-set lock of MPI_C_BOOL compare-and-swaps, guarding the counter at cnt. */
static void bool_lock(MPI_Win win, int64_t *seen)
{
    const bool f = false, t = true;
    for (int i = 0; i < K; i++) {
        bool was = true;
        for (;;) {
            EXPECT_OK(MPI_Compare_and_swap(&t, &f, &was, MPI_C_BOOL, host, OFF_BOOL, win),
                 "MPI_Compare_and_swap(MPI_C_BOOL)");
            EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
            if (!was || tap_local_fail)
                break;
            poll_pause();
        }
        int64_t v = -1;
        EXPECT_OK(MPI_Get(&v, 1, MPI_INT64_T, host, OFF_COUNTERB, 1, MPI_INT64_T, win), "MPI_Get");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        seen[i] = v++;
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, host, OFF_COUNTERB, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        was = false;
        EXPECT_OK(MPI_Compare_and_swap(&f, &t, &was, MPI_C_BOOL, host, OFF_BOOL, win),
             "MPI_Compare_and_swap(MPI_C_BOOL)");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
        TAP_CHECK(was, "MPI_C_BOOL lock was free while held");
    }
}

/* K successful CAS(v -> v+1) on counter c, recording the v each one won. */
static void cas_counter(MPI_Win win, const struct cas_counter *c, int64_t *seen)
{
    int64_t guess = 0;
    for (int i = 0; i < K && !tap_local_fail; i++) {
        for (int tries = 0;; tries++) {
            unsigned char cmp[8], swp[8], res[8];
            set_small(cmp, c->size, guess);
            set_small(swp, c->size, guess + 1);
            memset(res, 0xEE, sizeof res);
            EXPECT_OK(MPI_Compare_and_swap(swp, cmp, res, c->type, host, c->off, win),
                 "MPI_Compare_and_swap(%s)", c->name);
            EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
            int64_t old = get_small(res, c->size);
            if (old == guess) {
                seen[i] = guess++;
                break;
            }
            if (tap_local_fail || old < guess || old >= (int64_t) tap_size * K || tries > 100000) {
                tap_fail("CAS on %s: expected %lld, found %lld", c->name, (long long) guess,
                         (long long) old);
                return;
            }
            guess = old;
            if (tries % 8 == 7)
                poll_pause();
        }
    }
}

/* Fetch-and-adds of 1 on one counter, then accumulates of 1 on another, as fast as
 * everyone can for HAMMER_SECS each (at least F, at most HAMMER_MAX): flush after each
 * fetch, every 64 accumulates.  Returns the fetch-and-adds done, *na the accumulates. */
static int hammer(MPI_Win win, int64_t *seen, int *na)
{
    int64_t one = 1;
    int one32 = 1, n;
    MPI_Barrier(MPI_COMM_WORLD);
    double end = now_s() + HAMMER_SECS;
    for (n = 0; n < HAMMER_MAX && (n < F || now_s() < end); n++) {
        EXPECT_OK(MPI_Fetch_and_op(&one, &seen[n], MPI_INT64_T, host, OFF_FADD, MPI_SUM, win),
             "MPI_Fetch_and_op(SUM)");
        EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    end = now_s() + HAMMER_SECS;
    for (*na = 0; *na < HAMMER_MAX && (*na < F || now_s() < end); ++*na) {
        EXPECT_OK(MPI_Accumulate(&one32, 1, MPI_INT, host, OFF_ACC32, 1, MPI_INT, MPI_SUM, win),
             "MPI_Accumulate(SUM)");
        if (*na % 64 == 63)
            EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
    }
    EXPECT_OK(MPI_Win_flush(host, win), "MPI_Win_flush");
    return n;
}

/* Rank 0: the n[r] values each rank r fetched are, together, 0 .. sum(n)-1, each once. */
static void check_fetched(const int64_t *seen, int n, int64_t total)
{
    int *counts = tap_rank == 0 ? malloc(sizeof(int) * (size_t) tap_size) : NULL;
    int *displs = tap_rank == 0 ? malloc(sizeof(int) * (size_t) tap_size) : NULL;
    int64_t *all = tap_rank == 0 ? malloc(sizeof(int64_t) * (size_t) total) : NULL;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (tap_rank == 0)
        for (int r = 0; r < tap_size; r++)
            displs[r] = r ? displs[r - 1] + counts[r - 1] : 0;
    MPI_Gatherv(seen, n, MPI_INT64_T, all, counts, displs, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char *hit = calloc((size_t) total, 1);
        for (int64_t i = 0; i < total; i++) {
            int64_t v = all[i];
            if (v < 0 || v >= total)
                tap_fail("fetch-and-add counter: fetched %lld, outside 0..%lld", (long long) v,
                         (long long) total - 1);
            else if (hit[v]++)
                tap_fail("fetch-and-add counter: value %lld was fetched twice", (long long) v);
        }
        free(hit);
    }
    free(all);
    free(counts);
    free(displs);
}

/* Rank 0: the values every rank saw (k each) are 0 .. nprocs*k-1, each once. */
static void check_seen_k(const int64_t *seen, int k, const char *what)
{
    int64_t n = (int64_t) tap_size * k;
    int64_t *all = tap_rank == 0 ? malloc(sizeof(int64_t) * (size_t) n) : NULL;
    MPI_Gather(seen, k, MPI_INT64_T, all, k, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (tap_rank == 0) {
        char *hit = calloc((size_t) n, 1);
        for (int64_t i = 0; i < n; i++) {
            int64_t v = all[i];
            if (v < 0 || v >= n)
                tap_fail("%s: rank %lld got %lld, outside 0..%lld", what, (long long) (i / k),
                         (long long) v, (long long) n - 1);
            else if (hit[v]++)
                tap_fail("%s: value %lld was got twice (second time by rank %lld)", what,
                         (long long) v, (long long) (i / k));
        }
        free(hit);
        free(all);
    }
}

static void check_seen(const int64_t *seen, const char *what)
{
    check_seen_k(seen, K, what);
}

static void run(int kind)
{
    kind_win_t w = win_open(kind, WIN_BYTES, 1, 0);
    int64_t *seen = malloc(sizeof(int64_t) * (size_t) K * (3 + C_COUNT));
    int64_t *fseen = malloc(sizeof(int64_t) * HAMMER_MAX);
    int nf, na;
    int64_t tf, ta;
    for (int i = 0; i < K * (3 + C_COUNT); i++)
        seen[i] = -1;

    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    ticket_lock(w.win, MPI_INT64_T, OFF_NEXT64, OFF_SERVING64, OFF_COUNTER64, 0, seen);
    ticket_lock(w.win, MPI_LONG_LONG, OFF_NEXTLL, OFF_SERVINGLL, OFF_COUNTERLL, 1, seen + K);
    bool_lock(w.win, seen + 2 * K);
    nf = hammer(w.win, fseen, &na);
    for (int c = 0; c < C_COUNT; c++)
        cas_counter(w.win, &cc[c], seen + (3 + c) * K);
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    {
        int64_t nf64 = nf, na64 = na;
        MPI_Allreduce(&nf64, &tf, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&na64, &ta, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    }

    int64_t want = (int64_t) tap_size * K;
    static const struct { const char *name; MPI_Aint off; } words[] = {
        { "ticket lock (MPI_INT64_T) next", OFF_NEXT64 },
        { "ticket lock (MPI_INT64_T) serving", OFF_SERVING64 },
        { "ticket lock (MPI_INT64_T) counter", OFF_COUNTER64 },
        { "ticket lock (MPI_LONG_LONG) next", OFF_NEXTLL },
        { "ticket lock (MPI_LONG_LONG) serving", OFF_SERVINGLL },
        { "ticket lock (MPI_LONG_LONG) counter", OFF_COUNTERLL },
        { "MPI_C_BOOL lock's counter", OFF_COUNTERB },
    };
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, host, 0, w.win), "MPI_Win_lock");
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        int64_t v = read_word(w.win, words[i].off, 8);
        TAP_CHECK(v == want, "%s is %lld, expected %lld", words[i].name, (long long) v,
                  (long long) want);
    }
    TAP_CHECK(read_word(w.win, OFF_BOOL, 1) == 0, "MPI_C_BOOL lock still taken");
    {
        int64_t v = read_word(w.win, OFF_FADD, 8);
        TAP_CHECK(v == tf, "fetch-and-add counter is %lld, expected %lld", (long long) v,
                  (long long) tf);
        v = read_word(w.win, OFF_ACC32, 4);
        TAP_CHECK(v == ta, "accumulate(SUM) MPI_INT counter is %lld, expected %lld", (long long) v,
                  (long long) ta);
    }
    for (int c = 0; c < C_COUNT; c++) {
        int64_t v = read_word(w.win, cc[c].off, cc[c].size);
        TAP_CHECK(v == want, "CAS counter %s is %lld, expected %lld", cc[c].name, (long long) v,
                  (long long) want);
    }
    EXPECT_OK(MPI_Win_unlock(host, w.win), "MPI_Win_unlock");
    if (tap_rank == host) {
        self_begin(w.win, MPI_LOCK_EXCLUSIVE);
        const unsigned char *b = w.base;
        TAP_CHECK(get_small(b + OFF_COUNTER64, 8) == want && get_small(b + OFF_COUNTERLL, 8) == want
                  && get_small(b + cc[C_INT64].off, 8) == want
                  && get_small(b + cc[C_BYTE].off, 1) == want,
                  "the lock host's own memory disagrees with what was read remotely");
        self_end(w.win);
    }

    check_seen(seen, "ticket lock (MPI_INT64_T, fetch-and-op NO_OP) critical section");
    check_seen(seen + K, "ticket lock (MPI_LONG_LONG, get-accumulate NO_OP) critical section");
    check_seen(seen + 2 * K, "MPI_C_BOOL test-and-set lock critical section");
    check_fetched(fseen, nf, tf);
    for (int c = 0; c < C_COUNT; c++) {
        char what[96];
        snprintf(what, sizeof what, "CAS counter %s", cc[c].name);
        check_seen(seen + (3 + c) * K, what);
    }
    free(seen);
    free(fseen);
    win_close(&w);
    tap_ok("%s, lock host rank %d: %d ranks x %d: two ticket locks (fetch-and-op), a "
           "MPI_C_BOOL CAS lock, CAS counters on int64, int, short, signed/unsigned char, byte, "
           "unaligned int64; %lld fetch-and-adds and %lld sums on one counter by all at once",
           win_kind_name[kind], host, tap_size, K, (long long) tf, (long long) ta);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    K = tap_env_int("ACC_TICKET_K", 12);
    F = tap_env_int("ACC_TICKET_F", 400);
    host = tap_size - 1;
    cc_set(C_INT64, "MPI_INT64_T", MPI_INT64_T, 8, 64);
    cc_set(C_INT, "MPI_INT", MPI_INT, (int) sizeof(int), 72);
    cc_set(C_SHORT, "MPI_SHORT", MPI_SHORT, (int) sizeof(short), 76);
    cc_set(C_SCHAR, "MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, 1, 78);
    cc_set(C_UCHAR, "MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, 1, 79);
    cc_set(C_BYTE, "MPI_BYTE", MPI_BYTE, 1, 80);
    cc_set(C_CHAR, "MPI_CHAR", MPI_CHAR, 1, 81);
    cc_set(C_INT64_UNALIGNED, "MPI_INT64_T 3 bytes off alignment", MPI_INT64_T, 8, 91);
    if ((int64_t) tap_size * K > 127) {
        K = 127 / tap_size;     /* the one-byte signed counter must not overflow */
        if (tap_rank == 0)
            printf("# K lowered to %d for the one-byte counters\n", K);
    }
    run(WIN_ALLOCATE);
    host = 0;
    run(WIN_CREATE);
    return tap_done();
}
