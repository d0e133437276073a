/*
 * MPI_Win_create windows smaller than a page, inside a larger buffer (issue 50: IMB's
 * pattern).  A window that holds no whole page stays on process_vm_* (the pages
 * around it are the owner's: docs/performance.md), and the test checks that too:
 *  - windows of one byte and of a page minus one at offsets over the start, middle
 *    and end of a page: puts from every rank land on every byte of the window and on
 *    no byte around it, gets read them back, Accumulate (SUM) from every rank counts
 *    every update, and after MPI_Win_free the memory is private with its contents;
 *  - two windows in one page, and a third across that page's end: each one's bytes
 *    are its own; the first freed while the others live, which still work;
 *  - fork after creation: the child sees the window and the bytes around it as they
 *    were at the fork, not the parent's writes after it; its writes stay its own;
 *  - Fetch_and_op from every rank on an 8-byte window: every fetch distinct.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "tap.h"
#include "pattern.h"
#include "pages.h"

static int expect_map;          /* do whole pages inside a window move (see main)? */

/* What should hold the byte at p of a window [base, base + n): 1 the memfd, 0 not. */
static int want_at(const unsigned char *p, const unsigned char *base, size_t n)
{
    const unsigned char *pg = (const unsigned char *) ((uintptr_t) p / PAGE * PAGE);
    return expect_map && pg >= base && pg + PAGE <= base + n;
}

/* Is every byte of [p, p + n) other than [lo, hi) still SENT_BYTE? */
static void check_around(const unsigned char *p, size_t n, size_t lo, size_t hi, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (i < lo || i >= hi)
            TAP_CHECK(p[i] == SENT_BYTE, "%s: byte %zd from the window changed to %#x", what,
                      (ssize_t) i - (ssize_t) lo, p[i]);
}

/* Puts from every rank to every rank's window of n bytes at mem + off, a get back,
 * then ITER rounds of Accumulate (SUM 1 on every byte) from every rank. */
static void one_window(unsigned char *mem, size_t off, size_t n)
{
    enum { ITER = 3 };
    int me = tap_rank, np = tap_size;
    unsigned char *base = mem + off, *src = malloc(n), *got = malloc(n), *ones = malloc(n);
    memset(mem, SENT_BYTE, 3 * PAGE);
    memset(ones, 1, n);
    MPI_Win win;
    MPI_Win_create(base, (MPI_Aint) n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    TAP_CHECK(mapped_at(base) == want_at(base, base, n)
              && mapped_at(base + n - 1) == want_at(base + n - 1, base, n),
              "[%zu, +%zu): pages moved: %d, want %d", off, n, mapped_at(base),
              want_at(base, base, n));
    MPI_Win_lock_all(0, win);
    put_stripes(win, src, n, (long) off);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++)
        TAP_CHECK(base[i] == bpat(stripe_owner(i, n, np), me, (long) (off + i)),
                  "[%zu, +%zu): byte %zu is %#x", off, n, i, base[i]);
    check_around(mem, 3 * PAGE, off, off + n, "after puts");
    int t = (me + 1) % np;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Get(got, (int) n, MPI_BYTE, t, 0, (int) n, MPI_BYTE, win);
    MPI_Win_unlock(t, win);
    for (size_t i = 0; i < n; i++)
        TAP_CHECK(got[i] == bpat(stripe_owner(i, n, np), t, (long) (off + i)),
                  "[%zu, +%zu): got byte %zu = %#x", off, n, i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < ITER; k++)
        for (int d = 0; d < np; d++) {
            int tt = (me + d) % np;
            MPI_Accumulate(ones, (int) n, MPI_UINT8_T, tt, 0, (int) n, MPI_UINT8_T, MPI_SUM, win);
            MPI_Win_flush(tt, win);
        }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++) {
        unsigned char want = (unsigned char) (bpat(stripe_owner(i, n, np), me, (long) (off + i))
                                              + ITER * np);
        TAP_CHECK(base[i] == want, "[%zu, +%zu): accumulated byte %zu is %#x, want %#x", off, n,
                  i, base[i], want);
    }
    check_around(mem, 3 * PAGE, off, off + n, "after accumulates");
    MPI_Win_free(&win);
    TAP_CHECK(mapped_at(base) == 0 && mapped_at(base + n - 1) == 0,
              "[%zu, +%zu): not private after MPI_Win_free", off, n);
    for (size_t i = 0; i < n; i++)
        TAP_CHECK(base[i] == (unsigned char) (bpat(stripe_owner(i, n, np), me, (long) (off + i))
                                              + ITER * np), "[%zu, +%zu): byte %zu lost at "
                  "the free", off, n, i);
    check_around(mem, 3 * PAGE, off, off + n, "after the free");
    free(src);
    free(got);
    free(ones);
}

/* Every rank puts val + rank into byte i of each target's window w (n bytes). */
static void put_each(MPI_Win w, size_t n, unsigned char val)
{
    int me = tap_rank, np = tap_size;
    unsigned char v = (unsigned char) (val + me);
    MPI_Win_lock_all(0, w);
    for (int t = 0; t < np; t++)
        MPI_Put(&v, 1, MPI_BYTE, t, (MPI_Aint) ((size_t) me % n), 1, MPI_BYTE, w);
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void check_each(const unsigned char *base, size_t n, unsigned char val, const char *what)
{
    for (int o = 0; o < tap_size; o++) {
        size_t i = (size_t) o % n;
        if ((size_t) o == i)
            TAP_CHECK(base[i] == (unsigned char) (val + o), "%s: byte %zu is %#x, want %#x",
                      what, i, base[i], (unsigned char) (val + o));
    }
}

/* Three windows sharing pages: A and B in page 1, C across its end into page 2. */
static void shared_pages(unsigned char *mem)
{
    unsigned char *a = mem + PAGE + 100, *b = mem + PAGE + 2000, *c = mem + 2 * PAGE - 8;
    size_t na = 8, nb = 16, nc = 16;
    memset(mem, SENT_BYTE, 3 * PAGE);
    MPI_Win wa, wb, wc;
    MPI_Win_create(a, (MPI_Aint) na, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wa);
    MPI_Win_create(b, (MPI_Aint) nb, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wb);
    MPI_Win_create(c, (MPI_Aint) nc, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
    TAP_CHECK(!mapped_at(a) && !mapped_at(b) && !mapped_at(c + nc - 1),
              "shared pages: a page a window only partly covers was moved");
    put_each(wa, na, 0x10);
    put_each(wb, nb, 0x30);
    put_each(wc, nc, 0x50);
    check_each(a, na, 0x10, "A");
    check_each(b, nb, 0x30, "B");
    check_each(c, nc, 0x50, "C");
    for (size_t i = 0; i < 3 * PAGE; i++) {
        unsigned char *p = mem + i;
        int in = (p >= a && p < a + na) || (p >= b && p < b + nb) || (p >= c && p < c + nc);
        TAP_CHECK(in || *p == SENT_BYTE, "shared pages: byte %zu outside the windows changed", i);
    }
    MPI_Win_free(&wa);          /* B and C still live, in the same pages */
    TAP_CHECK(!mapped_at(b), "shared pages: B's page moved under it");
    put_each(wb, nb, 0x70);
    put_each(wc, nc, 0x90);
    check_each(a, na, 0x10, "A after its free");
    check_each(b, nb, 0x70, "B after A's free");
    check_each(c, nc, 0x90, "C after A's free");
    MPI_Win_free(&wc);
    put_each(wb, nb, 0xb0);
    check_each(b, nb, 0xb0, "B after C's free");
    MPI_Win_free(&wb);
    TAP_CHECK(mapped_at(a) == 0 && mapped_at(c + nc - 1) == 0,
              "shared pages: not private after the last free");
    check_each(b, nb, 0xb0, "B after its free");
    check_each(c, nc, 0x90, "C after its free");
    tap_ok("two windows in one page, one across its end; one freed while the others live");
}

/* fork while a 64-byte window lives in the middle of a page. */
static void fork_child(unsigned char *mem)
{
    int me = tap_rank, np = tap_size, left = (me + np - 1) % np;
    unsigned char *base = mem + PAGE + 1000;
    memset(mem, SENT_BYTE, 3 * PAGE);
    MPI_Win w;
    MPI_Win_create(base, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    put_each(w, 64, 0x20);
    int go[2];
    TAP_CHECK(pipe(go) == 0, "pipe failed");
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        ssize_t r = read(go[0], &c, 1);         /* after the parent's write below */
        int ok = r == 1 && base[me % 64] == 0x20 + me && base[-1] == SENT_BYTE
            && base[64] == SENT_BYTE && mapped_at(base) == 0;
        memset(mem + PAGE, 0x77, PAGE);
        _exit(ok ? 0 : 3);
    }
    base[-1] = 0x33;            /* the parent's, after the fork: not the child's */
    ssize_t wr = write(go[1], "x", 1);
    int status = -1;
    TAP_CHECK(wr == 1 && pid > 0 && waitpid(pid, &status, 0) == pid, "fork or waitpid failed");
    TAP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw the wrong bytes "
              "or shared pages (status %#x)", status);
    TAP_CHECK(base[-1] == 0x33 && base[64] == SENT_BYTE && base[left % 64] == 0x20 + left,
              "the child's writes reached the parent");
    close(go[0]);
    close(go[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    put_each(w, 64, 0x40);
    check_each(base, 64, 0x40, "put after fork");
    MPI_Win_free(&w);
    tap_ok("fork: the child's copy is the memory at the fork, its writes stay its own");
}

/* Fetch_and_op from every rank on an 8-byte window at each 8-aligned place given. */
static void fetch_and_op(unsigned char *mem, size_t off)
{
    enum { ITER = 20 };
    int me = tap_rank, np = tap_size;
    int64_t *x = (int64_t *) (mem + off), one = 1, got[ITER * 8];
    memset(mem, SENT_BYTE, 3 * PAGE);
    *x = 0;
    MPI_Win w;
    MPI_Win_create(x, 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    MPI_Win_lock_all(0, w);
    for (int k = 0; k < ITER; k++)
        for (int d = 0; d < np; d++) {
            int t = (me + d) % np;
            MPI_Fetch_and_op(&one, &got[k * np + d], MPI_INT64_T, t, 0, MPI_SUM, w);
            MPI_Win_flush(t, w);
        }
    MPI_Win_unlock_all(w);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(*x == (int64_t) ITER * np, "fetch_and_op at %zu: %lld, want %d", off,
              (long long) *x, ITER * np);
    int64_t *all = malloc(sizeof *all * ITER * (size_t) np * (size_t) np);
    MPI_Allgather(got, ITER * np, MPI_INT64_T, all, ITER * np, MPI_INT64_T, MPI_COMM_WORLD);
    char seen[ITER * 8] = { 0 };
    for (int o = 0; o < np; o++)
        for (int k = 0; k < ITER; k++) {
            int64_t v = all[o * ITER * np + k * np + (me - o + np) % np];
            TAP_CHECK(v >= 0 && v < ITER * np && !seen[v], "fetch_and_op at %zu: %lld twice",
                      off, (long long) v);
            if (v >= 0 && v < ITER * np)
                seen[v] = 1;
        }
    check_around(mem, 3 * PAGE, off, off + 8, "fetch_and_op");
    MPI_Win_free(&w);
    free(all);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    expect_map = pages_expect_moves();

    /* Three pages from their own mapping, as a large malloc gets them. */
    unsigned char *mem = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    static const size_t offs[] = { 0, 1, 7, 8, 63, 64, 1000, 2047, 2048, 2049, PAGE - 64,
                                   PAGE - 8, PAGE - 2, PAGE - 1 };
    for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++)
        one_window(mem, PAGE + offs[k], 1);
    tap_ok("1-byte windows at %zu offsets in a page: puts, gets, accumulates, every byte",
           sizeof offs / sizeof offs[0]);
    for (size_t k = 0; k < sizeof offs / sizeof offs[0]; k++)
        one_window(mem, PAGE + offs[k], PAGE - 1);
    tap_ok("windows of a page minus one at %zu offsets: puts, gets, accumulates, every byte",
           sizeof offs / sizeof offs[0]);
    static const size_t sizes[] = { 8, 64, 512, 4096 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (size_t o = 0; o < PAGE; o += 1024 + 8 * k)
            one_window(mem, PAGE + o, sizes[k]);
    tap_ok("IMB's sizes, 8 B to 4 KiB, remade at offsets over a page");
    for (size_t o = 0; o < PAGE; o += 1016)
        fetch_and_op(mem, PAGE + o);
    tap_ok("fetch_and_op from every rank on 8-byte windows: every fetch distinct");
    shared_pages(mem);
    fork_child(mem);
    munmap(mem, 3 * PAGE);
    return tap_done();
}
