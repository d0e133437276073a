/*
 * MPI_Win_create windows whose whole pages rmaib moves into shared memory (issue 36).
 *  - page-aligned and unaligned regions: the whole pages become a memfd mapping at the
 *    same address (seen in /proc/self/maps), the edges stay where they were; puts and
 *    gets from every rank land on every byte of the region and nowhere else;
 *  - a region of one page or less: mapped only if it holds a whole page;
 *  - Accumulate and Fetch_and_op from every rank on elements in the moved pages and on
 *    the edges, and runs across the edge: every update counted, every fetch distinct;
 *  - two windows over the same memory: the second one is refused (the pages are a
 *    memfd already) and both still move the right bytes;
 *  - after MPI_Win_free the memory is private again with its contents, and free() and
 *    malloc() reuse it;
 *  - memory unmapped before MPI_Win_free (as MPICH's test3 frees it): the free leaves
 *    the hole alone, and a new mapping there keeps its bytes;
 *  - fork after creation: the child sees the contents at fork, its writes stay its own;
 *  - a region of 256 MiB with a few pages touched: it moves (pages never touched cost
 *    nothing), puts to pages spread over it land, and its bytes survive the free;
 *  - info rmaib_map_user_memory=false, or RMAIB_MAP_USER_MEMORY=0: nothing moves;
 *  - memory that is not private anonymous stays where it is and still works: locked
 *    (mlock), MADV_DONTFORK (what RDMA registration does), a private file mapping,
 *    the stack.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "tap.h"
#include "pattern.h"
#include "pages.h"

static int expect_map;          /* does this run move pages (see main)? */

/* Every rank puts its share of every target's region (bytes [o*n/np, (o+1)*n/np)),
 * then reads back whole regions; the bytes around the region keep SENT_BYTE. */
static void put_get_all(unsigned char *alloc, size_t off, size_t n, MPI_Info info,
                        int want_map, const char *what)
{
    int me = tap_rank, np = tap_size;
    unsigned char *base = alloc + off, *src = malloc(n), *got = malloc(n);
    memset(alloc, SENT_BYTE, off + n + 64);
    MPI_Win win;
    MPI_Win_create(base, (MPI_Aint) n, 1, info, MPI_COMM_WORLD, &win);
    char *pg = page_up((char *) base);
    if (pg + PAGE <= (char *) base + n && want_map)
        TAP_CHECK(mapped_at(pg) == expect_map, "%s: page %p is %d, want %d", what, pg,
                  mapped_at(pg), expect_map);
    TAP_CHECK(want_map || mapped_at(pg) != 1, "%s: page %p moved", what, pg);
    if ((char *) base != pg)
        TAP_CHECK(mapped_at(base) != 1, "%s: the first edge moved", what);
    MPI_Win_lock_all(0, win);
    put_stripes(win, src, n, 0);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++) {
        int o = stripe_owner(i, n, np);
        TAP_CHECK(base[i] == bpat(o, me, (long) i), "%s: byte %zu is %#x, want %#x", what, i,
                  base[i], bpat(o, me, (long) i));
    }
    for (size_t i = 0; i < off; i++)
        TAP_CHECK(alloc[i] == SENT_BYTE, "%s: byte %zu before the region changed", what, i);
    for (size_t i = 0; i < 64; i++)
        TAP_CHECK(base[n + i] == SENT_BYTE, "%s: byte %zu after the region changed", what, i);
    int t = (me + 1) % np;
    MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win);
    MPI_Get(got, (int) n, MPI_BYTE, t, 0, (int) n, MPI_BYTE, win);
    MPI_Win_unlock(t, win);
    for (size_t i = 0; i < n; i++)
        TAP_CHECK(got[i] == bpat(stripe_owner(i, n, np), t, (long) i), "%s: got byte %zu = %#x", what,
                  i, got[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
    TAP_CHECK(mapped_at(pg) != 1, "%s: after MPI_Win_free the page is still shared", what);
    for (size_t i = 0; i < n; i++)
        TAP_CHECK(base[i] == bpat(stripe_owner(i, n, np), me, (long) i), "%s: after free byte %zu lost",
                  what, i);
    free(src);
    free(got);
    tap_ok("%s: puts and gets from every rank, every byte", what);
}

/* A large region, mostly never touched: one put per 1 MiB from the left neighbour,
 * into pages the owner touched and pages it did not. */
static void large_region(void)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    size_t n = (size_t) 256 << 20, step = (size_t) 1 << 20;
    char *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TAP_CHECK(m != MAP_FAILED, "large region: mmap of 256 MiB failed");
    if (m == MAP_FAILED)
        return;
    for (size_t off = 0; off < n; off += 16 * step)
        m[off + 1] = 0x5a;              /* touched: every 16 MiB */
    MPI_Win w;
    MPI_Win_create(m, (MPI_Aint) n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    TAP_CHECK(mapped_at(m + n / 2) == expect_map, "large region: pages not moved");
    unsigned char v = (unsigned char) (0x60 + me);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
    for (size_t off = 0; off < n; off += step)
        MPI_Put(&v, 1, MPI_BYTE, right, (MPI_Aint) off, 1, MPI_BYTE, w);
    MPI_Win_unlock(right, w);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&w);
    TAP_CHECK(mapped_at(m + n / 2) == 0, "large region: not private after the free");
    size_t bad = 0;
    for (size_t off = 0; off < n; off += step)
        bad += (unsigned char) m[off] != 0x60 + left
            || m[off + 1] != (off % (16 * step) == 0 ? 0x5a : 0) || m[off + 2] != 0;
    TAP_CHECK(bad == 0, "large region: %zu of %zu pages wrong after the free", bad, n / step);
    munmap(m, n);
    tap_ok("a 256 MiB region, few pages touched: moved, every put kept after the free");
}

/* Accumulate (SUM 1 on the whole region) and Fetch_and_op (on an element in the moved
 * pages and one on the edge) from every rank to every rank, ITER times. */
static void accumulate_all(void)
{
    enum { ITER = 50 };
    int me = tap_rank, np = tap_size;
    size_t n = (3 * PAGE + 512) / sizeof(int64_t);     /* starts 256 bytes before a page */
    char *alloc = aligned_alloc(PAGE, 5 * PAGE);
    int64_t *a = (int64_t *) (alloc + PAGE - 256), *ones = malloc(n * sizeof *ones);
    memset(a, 0, n * sizeof *a);
    for (size_t i = 0; i < n; i++)
        ones[i] = 1;
    MPI_Win win;
    MPI_Win_create(a, (MPI_Aint) (n * sizeof *a), sizeof *a, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    TAP_CHECK(mapped_at(alloc + PAGE) == expect_map, "accumulate: page not moved");
    MPI_Aint inner = 256 / 8 + 8, edge = 3;             /* in a moved page; on the edge */
    int64_t *fetched = malloc(2 * ITER * (size_t) np * sizeof *fetched), one = 1;
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < ITER; k++)
        for (int d = 0; d < np; d++) {
            int t = (me + d) % np;
            MPI_Accumulate(ones, (int) n, MPI_INT64_T, t, 0, (int) n, MPI_INT64_T, MPI_SUM, win);
            MPI_Fetch_and_op(&one, &fetched[(k * np + d) * 2], MPI_INT64_T, t, inner, MPI_SUM, win);
            MPI_Fetch_and_op(&one, &fetched[(k * np + d) * 2 + 1], MPI_INT64_T, t, edge, MPI_SUM,
                             win);
            MPI_Win_flush(t, win);
        }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++) {
        int64_t want = (int64_t) ITER * np * (1 + ((MPI_Aint) i == inner || (MPI_Aint) i == edge));
        TAP_CHECK(a[i] == want, "accumulate: element %zu is %lld, want %lld", i, (long long) a[i],
                  (long long) want);
    }
    /* Each target's fetches, gathered: Accumulates and Fetch_and_ops interleave, so a
     * fetched value is some count in [0, 2*ITER*np); none may repeat on one target. */
    int64_t *all = malloc(2 * ITER * (size_t) np * (size_t) np * sizeof *all);
    MPI_Allgather(fetched, 2 * ITER * np, MPI_INT64_T, all, 2 * ITER * np, MPI_INT64_T,
                  MPI_COMM_WORLD);
    for (int j = 0; j < 2; j++) {
        char *seen = calloc(2 * ITER * (size_t) np + 1, 1);
        for (int o = 0; o < np; o++)
            for (int k = 0; k < ITER; k++) {
                int d = (me - o + np) % np;   /* origin o reached me at step d */
                int64_t v = all[(size_t) o * 2 * ITER * np + (k * np + d) * 2 + j];
                TAP_CHECK(v >= 0 && v < 2 * ITER * np && !seen[v], "fetch_and_op %s: value "
                          "%lld twice or out of range", j ? "edge" : "inner", (long long) v);
                if (v >= 0 && v < 2 * ITER * np)
                    seen[v] = 1;
            }
        free(seen);
    }
    MPI_Win_free(&win);
    free(all);
    free(fetched);
    free(ones);
    free(alloc);
    tap_ok("accumulate and fetch_and_op from every rank: moved pages, edges, runs across");
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    expect_map = pages_expect_moves();

    unsigned char *buf = aligned_alloc(PAGE, 8 * PAGE);
    put_get_all(buf, 0, 4 * PAGE, MPI_INFO_NULL, 1, "page-aligned 4 pages");
    put_get_all(buf, 100, 3 * PAGE + 200, MPI_INFO_NULL, 1, "unaligned 3 pages and edges");
    put_get_all(buf, 0, PAGE, MPI_INFO_NULL, 1, "one aligned page");
    put_get_all(buf, 8, PAGE, MPI_INFO_NULL, 1, "one page, unaligned (no whole page)");
    put_get_all(buf, 40, 1000, MPI_INFO_NULL, 1, "under a page");
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "rmaib_map_user_memory", "false");
    put_get_all(buf, 0, 4 * PAGE, info, 0, "info rmaib_map_user_memory=false");
    MPI_Info_free(&info);

    /* Refused: each stays where it is, on process_vm, and works. */
    const char *san = getenv("RMAIB_SANITIZERS");
    if (san && *san) {
        tap_skip("locked (mlock)", "AddressSanitizer's mlock locks nothing");
    } else if (mlock(buf, 4 * PAGE) == 0) {
        put_get_all(buf, 0, 4 * PAGE, MPI_INFO_NULL, 0, "locked (mlock)");
        munlock(buf, 4 * PAGE);
    } else {
        tap_skip("locked (mlock)", "mlock refused (RLIMIT_MEMLOCK)");
    }
    char *nofork = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    madvise(nofork, 4 * PAGE, MADV_DONTFORK);
    put_get_all((unsigned char *) nofork, 0, 3 * PAGE, MPI_INFO_NULL, 0,
                "MADV_DONTFORK (as RDMA registration marks it)");
    munmap(nofork, 4 * PAGE);
    FILE *tf = tmpfile();
    char *filemem = MAP_FAILED;
    if (tf && ftruncate(fileno(tf), 4 * PAGE) == 0)
        filemem = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fileno(tf), 0);
    TAP_CHECK(filemem != MAP_FAILED, "mapping a temporary file failed");
    if (filemem != MAP_FAILED) {
        put_get_all((unsigned char *) filemem, 0, 3 * PAGE, MPI_INFO_NULL, 0,
                    "a private file mapping");
        munmap(filemem, 4 * PAGE);
    }
    if (tf)
        fclose(tf);
    unsigned char stackmem[4 * PAGE];
    put_get_all(stackmem, 0, 3 * PAGE, MPI_INFO_NULL, 0, "the stack");
    free(buf);

    accumulate_all();
    large_region();

    /* Two windows over the same pages: the second stays on process_vm. */
    int *mem = aligned_alloc(PAGE, 4 * PAGE), *src = malloc(4 * PAGE), *got = malloc(4 * PAGE);
    int n = 4 * PAGE / (int) sizeof(int), right = (me + 1) % np, left = (me + np - 1) % np;
    fill_int(mem, (size_t) n, SENT_INT);
    MPI_Win w1, w2;
    MPI_Win_create(mem, 4 * PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
    MPI_Win_create(mem, 4 * PAGE, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w2);
    TAP_CHECK(mapped_at(mem) == expect_map, "two windows: the first one's pages not moved");
    for (int i = 0; i < n; i++)
        src[i] = pat(me, right, 1, i);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w2);
    MPI_Put(src, n / 2, MPI_INT, right, n / 4, n / 2, MPI_INT, w2);
    MPI_Win_unlock(right, w2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w1);
    MPI_Get(got, n, MPI_INT, right, 0, n, MPI_INT, w1);
    MPI_Win_unlock(right, w1);
    for (int i = 0; i < n; i++) {
        int want = i >= n / 4 && i < 3 * n / 4 ? pat(me, right, 1, i - n / 4) : SENT_INT;
        TAP_CHECK(got[i] == want, "two windows: int %d = %#x, want %#x", i, (unsigned) got[i],
                  (unsigned) want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&w1);          /* the first one goes first: the second still works */
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w2);
    MPI_Put(src, 1, MPI_INT, right, 0, 1, MPI_INT, w2);
    MPI_Win_unlock(right, w2);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(mem[0] == pat(left, me, 1, 0), "two windows: put after the first's free lost");
    MPI_Win_free(&w2);
    TAP_CHECK(mapped_at(mem) == 0, "two windows: memory not private after both frees");
    tap_ok("two windows over the same memory: the second refused, both correct");
    free(mem);

    /* Freed, then reused by malloc: private again, with what was written. */
    size_t big = 64 * 1024;
    char *h = malloc(big);
    memset(h, SENT_BYTE, big);
    MPI_Win w;
    MPI_Win_create(h, (MPI_Aint) big, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    TAP_CHECK(mapped_at(page_up(h)) == expect_map, "malloc'd 64 KiB: not moved");
    unsigned char *bsrc = malloc(big);
    for (size_t i = 0; i < big; i++)
        bsrc[i] = bpat(me, right, (long) i);
    MPI_Win_fence(0, w);
    MPI_Put(bsrc, (int) big, MPI_BYTE, right, 0, (int) big, MPI_BYTE, w);
    MPI_Win_fence(0, w);
    MPI_Win_free(&w);
    TAP_CHECK(mapped_at(page_up(h)) == 0, "malloc'd 64 KiB: not private after free");
    for (size_t i = 0; i < big; i++)
        TAP_CHECK((unsigned char) h[i] == bpat(left, me, (long) i), "after free byte %zu lost", i);
    free(h);
    free(bsrc);
    char *again[8];
    for (int k = 0; k < 8; k++) {
        again[k] = malloc(big / 8);
        memset(again[k], k + 1, big / 8);
    }
    for (int k = 0; k < 8; k++) {
        TAP_CHECK(again[k][0] == k + 1 && again[k][big / 8 - 1] == k + 1, "malloc reuse %d", k);
        free(again[k]);
    }
    tap_ok("window freed: contents kept, memory private, malloc reuses it");

    /* Unmapped before MPI_Win_free, and the address used again meanwhile. */
    char *um = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(um, 1, 4 * PAGE);
    MPI_Win_create(um, 4 * PAGE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    munmap(um, 4 * PAGE);
    char *again2 = mmap(um, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS
                        | MAP_FIXED_NOREPLACE, -1, 0);
    if (again2 != MAP_FAILED)
        memset(again2, 9, 2 * PAGE);
    MPI_Win_free(&w);
    TAP_CHECK(again2 == MAP_FAILED || (again2[0] == 9 && again2[2 * PAGE - 1] == 9
                                       && mapped_at(again2) == 0), "the new mapping changed");
    TAP_CHECK(mapped_at(um + 3 * PAGE) == -1 || mapped_at(um + 3 * PAGE) == 0,
              "MPI_Win_free mapped the freed pages again as shared");
    if (again2 != MAP_FAILED)
        munmap(again2, 2 * PAGE);
    tap_ok("memory unmapped before MPI_Win_free: the free leaves what is there now alone");

    /* fork after creation: the child's copy is private. */
    char *fm = aligned_alloc(PAGE, 2 * PAGE);
    memset(fm, 0x11, 2 * PAGE);
    MPI_Win_create(fm, 2 * PAGE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    fork_after_put(w, fm, 0);
    MPI_Win_free(&w);
    free(fm);
    tap_ok("fork after creation: child sees the contents, its writes stay its own");

    free(src);
    free(got);
    return tap_done();
}
