/*
 * Dynamic windows whose attached regions rmaib moves into shared memory (issue 36).
 *  - regions page-aligned, unaligned, of one page and of less than a page: the whole
 *    pages become a memfd mapping at the same address, the edges stay; puts and gets
 *    from every rank reach every byte of every region and nothing around it;
 *  - Fetch_and_op from every rank on an element in the moved pages and on one on an
 *    edge: every update counted, every fetched value distinct; Accumulate runs from
 *    an edge into the moved pages, and compare-and-swap increments: every one counted;
 *  - MPI_Win_detach: the memory is private again with its contents;
 *  - a region detached, changed by its owner and attached again (a new memfd at the
 *    same address): peers that had mapped the old one read the new bytes, and their
 *    puts land in it;
 *  - one region attached to two windows: the second keeps it on process_vm and both
 *    move the right bytes;
 *  - fork after attach: the child sees the contents, its writes stay its own;
 *  - info rmaib_map_user_memory=false, or RMAIB_MAP_USER_MEMORY=0: nothing moves.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "tap.h"
#include "pattern.h"
#include "pages.h"

enum { NREG = 4, GUARD = 64, ITER = 50 };

static int expect_map;          /* does this run move pages (see main)? */

/* Region r: its offset in its own page-aligned buffer, its size, whether it holds a
 * whole page. */
static const struct { size_t off, n; int whole; const char *what; } reg[NREG] = {
    { PAGE, 4 * PAGE, 1, "page-aligned 4 pages" },
    { PAGE + 100, 3 * PAGE + 200, 1, "unaligned 3 pages and edges" },
    { PAGE, PAGE, 1, "one aligned page" },
    { PAGE + 40, 1000, 0, "under a page" },
};

static MPI_Win dyn_window(MPI_Info info)
{
    MPI_Win win;
    MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win);
    return win;
}

/* Every rank puts its share of every target's regions, then reads its right
 * neighbour's back; the guards keep SENT_BYTE; then fetch-and-ops. */
static void regions(MPI_Info info, int want_map, const char *how)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np;
    unsigned char *buf[NREG];
    MPI_Aint *addr = malloc(sizeof *addr * (size_t) np * NREG), mine[NREG];
    MPI_Win win = dyn_window(info);
    for (int r = 0; r < NREG; r++) {
        size_t bytes = (reg[r].off + reg[r].n + PAGE) / PAGE * PAGE;   /* aligned_alloc's rule */
        buf[r] = aligned_alloc(PAGE, bytes);
        memset(buf[r], SENT_BYTE, bytes);
        TAP_CHECK(MPI_Win_attach(win, buf[r] + reg[r].off, (MPI_Aint) reg[r].n) == MPI_SUCCESS,
                  "%s: attach of %s failed", how, reg[r].what);
        MPI_Get_address(buf[r] + reg[r].off, &mine[r]);
        char *pg = page_up((char *) buf[r] + reg[r].off);
        int want = reg[r].whole && want_map ? expect_map : 0;
        TAP_CHECK(mapped_at(pg) == want, "%s, %s: page %p is %d, want %d", how, reg[r].what, pg,
                  mapped_at(pg), want);
        TAP_CHECK(mapped_at(buf[r] + reg[r].off - 1) == 0, "%s, %s: the page before moved",
                  how, reg[r].what);
    }
    MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++)
        for (int r = 0; r < NREG; r++) {
            size_t n = reg[r].n, lo = n * (size_t) me / (size_t) np;
            size_t hi = n * (size_t) (me + 1) / (size_t) np;
            unsigned char *src = malloc(n);
            for (size_t i = lo; i < hi; i++)
                src[i] = bpat(me, t, (long) (i + (size_t) r));
            if (hi > lo)
                MPI_Put(src + lo, (int) (hi - lo), MPI_BYTE, t, addr[t * NREG + r] + (MPI_Aint) lo,
                        (int) (hi - lo), MPI_BYTE, win);
            MPI_Win_flush(t, win);
            free(src);
        }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < NREG; r++) {
        const unsigned char *b = buf[r] + reg[r].off;
        size_t n = reg[r].n, bad = 0;
        for (size_t i = 0; i < n; i++) {
            int o = 0;
            while (n * (size_t) (o + 1) / (size_t) np <= i)
                o++;
            bad += b[i] != bpat(o, me, (long) (i + (size_t) r));
        }
        for (size_t i = 1; i <= GUARD; i++)
            bad += b[-(long) i] != SENT_BYTE || b[n + i - 1] != SENT_BYTE;
        TAP_CHECK(bad == 0, "%s, %s: %zu bytes wrong after the puts", how, reg[r].what, bad);
    }
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    for (int r = 0; r < NREG; r++) {
        size_t n = reg[r].n, bad = 0;
        unsigned char *got = malloc(n);
        MPI_Get(got, (int) n, MPI_BYTE, right, addr[right * NREG + r], (int) n, MPI_BYTE, win);
        MPI_Win_flush(right, win);
        for (size_t i = 0; i < n; i++) {
            int o = 0;
            while (n * (size_t) (o + 1) / (size_t) np <= i)
                o++;
            bad += got[i] != bpat(o, right, (long) (i + (size_t) r));
        }
        TAP_CHECK(bad == 0, "%s, %s: %zu bytes wrong in the get", how, reg[r].what, bad);
        free(got);
    }
    MPI_Win_unlock(right, win);

    /* Fetch-and-op: the first int64 of the second page of region 0 (moved) and of
     * region 1's first edge (not moved). */
    MPI_Aint at[2] = { 8 + PAGE, 0 };
    int rr[2] = { 0, 1 };
    MPI_Barrier(MPI_COMM_WORLD);        /* every get of our regions is done */
    for (int k = 0; k < 2; k++)
        memset(buf[rr[k]] + reg[rr[k]].off + at[k], 0, sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);
    int64_t *seen = calloc((size_t) ITER * (size_t) np, sizeof *seen);
    for (int k = 0; k < 2; k++) {
        int64_t one = 1, old;
        memset(seen, 0, sizeof *seen * (size_t) ITER * (size_t) np);
        MPI_Win_lock_all(0, win);
        for (int i = 0; i < ITER; i++) {
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, addr[right * NREG + rr[k]] + at[k],
                             MPI_SUM, win);
            MPI_Win_flush(right, win);
            TAP_CHECK(old >= 0 && old < (int64_t) ITER * np, "%s: fetch_and_op %d fetched %lld",
                      how, k, (long long) old);
            if (old >= 0 && old < (int64_t) ITER * np)
                seen[old]++;
        }
        MPI_Win_unlock_all(win);
        MPI_Allreduce(MPI_IN_PLACE, seen, ITER * np, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        int64_t v;
        memcpy(&v, buf[rr[k]] + reg[rr[k]].off + at[k], sizeof v);
        TAP_CHECK(v == ITER, "%s: fetch_and_op %d: counter %lld, want %d", how, k, (long long) v,
                  ITER);
        for (int i = 0; i < ITER; i++)   /* the left neighbour's updates, numbers 0..ITER-1 */
            TAP_CHECK(seen[i] == np, "%s: fetch_and_op %d: value %d fetched %lld times", how,
                      k, i, (long long) seen[i]);
    }
    free(seen);

    /* Accumulate: a run of int32 from region 1's first edge into its moved pages,
     * from every rank to every rank; compare-and-swap increments of one int64 in
     * region 0's moved pages of rank 0. */
    enum { RUN = 2000 };
    int32_t *run = (int32_t *) (void *) (buf[1] + reg[1].off), ones[RUN];
    int64_t *cas_at = (int64_t *) (void *) (buf[0] + reg[0].off + PAGE + 16);
    memset(run, 0, sizeof ones);
    *cas_at = 0;
    for (int i = 0; i < RUN; i++)
        ones[i] = 1;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < ITER; i++) {
        for (int t = 0; t < np; t++)
            MPI_Accumulate(ones, RUN, MPI_INT32_T, t, addr[t * NREG + 1], RUN, MPI_INT32_T,
                           MPI_SUM, win);
        MPI_Win_flush_all(win);
        int64_t cur = 0, next, got;
        do {
            MPI_Fetch_and_op(NULL, &cur, MPI_INT64_T, 0, addr[0] + PAGE + 16, MPI_NO_OP, win);
            MPI_Win_flush(0, win);
            next = cur + 1;
            MPI_Compare_and_swap(&next, &cur, &got, MPI_INT64_T, 0, addr[0] + PAGE + 16, win);
            MPI_Win_flush(0, win);
        } while (got != cur);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    size_t wrong = 0;
    for (int i = 0; i < RUN; i++)
        wrong += run[i] != ITER * np;
    TAP_CHECK(wrong == 0, "%s: accumulate across the edge: %zu of %d ints wrong (first %d)", how,
              wrong, RUN, (int) run[0]);
    if (me == 0)
        TAP_CHECK(*cas_at == (int64_t) ITER * np, "%s: compare-and-swap counter %lld, want %d",
                  how, (long long) *cas_at, ITER * np);
    MPI_Barrier(MPI_COMM_WORLD);

    for (int r = 0; r < NREG; r++) {
        unsigned char *b = buf[r] + reg[r].off;
        unsigned char keep = b[reg[r].n - 1];
        MPI_Win_detach(win, b);
        TAP_CHECK(mapped_at(page_up((char *) b)) == 0, "%s, %s: not private after detach", how,
                  reg[r].what);
        TAP_CHECK(b[reg[r].n - 1] == keep, "%s, %s: contents lost at detach", how, reg[r].what);
        free(buf[r]);
    }
    MPI_Win_free(&win);
    free(addr);
    tap_ok("%s: puts, gets and fetch-and-ops from every rank, every byte", how);
}

/* Do the n bytes at `at` of rank from hold v? */
static int read_back(MPI_Win win, MPI_Aint at, int from, size_t n, unsigned char v)
{
    unsigned char *got = malloc(n);
    MPI_Win_lock(MPI_LOCK_SHARED, from, 0, win);
    MPI_Get(got, (int) n, MPI_BYTE, from, at, (int) n, MPI_BYTE, win);
    MPI_Win_unlock(from, win);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += got[i] != v;
    free(got);
    return bad == 0;
}

/* Detach, change, attach again: a new memfd at the same address. */
static void reattach(void)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    size_t n = 2 * PAGE;
    unsigned char *b = aligned_alloc(PAGE, n);
    MPI_Aint mine, at;
    MPI_Win win = dyn_window(MPI_INFO_NULL);
    memset(b, 0x11, n);
    MPI_Win_attach(win, b, (MPI_Aint) n);
    MPI_Get_address(b, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &at, 1, MPI_AINT, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(read_back(win, at, right, n, 0x11), "reattach: first read wrong");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(win, b);
    memset(b, 0x22, n);
    MPI_Win_attach(win, b, (MPI_Aint) n);
    TAP_CHECK(mapped_at(b) == expect_map, "reattach: pages not moved again");
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(read_back(win, at, right, n, 0x22), "reattach: a peer read the old memory");
    unsigned char v[64];
    memset(v, 0x30 + me, sizeof v);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    MPI_Put(v, sizeof v, MPI_BYTE, right, at + PAGE, sizeof v, MPI_BYTE, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += b[i] != (i >= PAGE && i < PAGE + sizeof v ? 0x30 + left : 0x22);
    TAP_CHECK(bad == 0, "reattach: %zu bytes wrong after the put into the new region", bad);
    MPI_Win_detach(win, b);
    MPI_Win_free(&win);
    free(b);
    tap_ok("detach, change, attach again: peers read and write the new memory");
}

/* One region in two windows: the second keeps it where it is. */
static void two_windows(void)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    size_t n = 4 * PAGE;
    unsigned char *b = aligned_alloc(PAGE, n);
    memset(b, 0, n);
    MPI_Aint mine, at;
    MPI_Win w1 = dyn_window(MPI_INFO_NULL), w2 = dyn_window(MPI_INFO_NULL);
    MPI_Win_attach(w1, b, (MPI_Aint) n);
    MPI_Win_attach(w2, b, (MPI_Aint) n);
    TAP_CHECK(mapped_at(b) == expect_map, "two windows: the first one's pages not moved");
    MPI_Get_address(b, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &at, 1, MPI_AINT, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    unsigned char v[100];
    memset(v, 0x50 + me, sizeof v);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w1);
    MPI_Put(v, sizeof v, MPI_BYTE, right, at + 10, sizeof v, MPI_BYTE, w1);
    MPI_Win_unlock(right, w1);
    memset(v, 0x70 + me, sizeof v);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w2);
    MPI_Put(v, sizeof v, MPI_BYTE, right, at + 3 * PAGE, sizeof v, MPI_BYTE, w2);
    MPI_Win_unlock(right, w2);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(read_back(w2, at + 10, right, sizeof v, (unsigned char) (0x50 + me)),
              "two windows: the second one read other bytes than the first wrote");
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += b[i] != (i >= 10 && i < 10 + sizeof v ? 0x50 + left
                        : i >= 3 * PAGE && i < 3 * PAGE + sizeof v ? 0x70 + left : 0);
    TAP_CHECK(bad == 0, "two windows: %zu bytes wrong", bad);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_detach(w2, b);
    MPI_Win_detach(w1, b);
    TAP_CHECK(mapped_at(b) == 0, "two windows: memory not private after both detaches");
    MPI_Win_free(&w2);
    MPI_Win_free(&w1);
    free(b);
    tap_ok("one region in two windows: the second keeps it in place, both correct");
}

/* fork after attach: the child's copy is private. */
static void fork_after_attach(void)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    char *fm = aligned_alloc(PAGE, 2 * PAGE);
    memset(fm, 0x11, 2 * PAGE);
    MPI_Aint mine, at;
    MPI_Win w = dyn_window(MPI_INFO_NULL);
    MPI_Win_attach(w, fm, 2 * PAGE);
    MPI_Get_address(fm, &mine);
    MPI_Sendrecv(&mine, 1, MPI_AINT, left, 0, &at, 1, MPI_AINT, right, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    fork_after_put(w, fm, at);
    MPI_Win_detach(w, fm);
    MPI_Win_free(&w);
    free(fm);
    tap_ok("fork after attach: child sees the contents, its writes stay its own");
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    expect_map = pages_expect_moves();

    regions(MPI_INFO_NULL, 1, "default");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "rmaib_map_user_memory", "false");
    regions(info, 0, "info rmaib_map_user_memory=false");
    MPI_Info_free(&info);
    reattach();
    two_windows();
    fork_after_attach();
    return tap_done();
}
