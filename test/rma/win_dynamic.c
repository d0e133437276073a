/*
 * MPI_Win_create_dynamic with MPI_Win_attach and MPI_Win_detach.  Every rank
 * attaches three regions of different sizes (each the middle of a larger buffer,
 * so writes outside the region are seen), publishes their addresses with
 * MPI_Get_address + MPI_Allgather, and:
 *  - every origin puts into its own chunk of every region of every rank: the chunks
 *    hold its values, the guard bytes around each region keep the sentinel;
 *  - every origin gets its chunks back;
 *  - after one region is detached everywhere, the other two still work;
 *  - the region attached again (same memory), and a fresh region attached in
 *    addition, are reachable once their addresses are exchanged again;
 *  - after detach and MPI_Win_free the memory is the user's, with its data.
 */
#include "tap.h"
#include "pattern.h"

#define NREG 3
#define GUARD 64
static const size_t reg_bytes[NREG] = { 96, 4096 + 40, 32768 };

static int me, np;

/* Origin o's chunk of a region of len bytes. */
static void chunk(size_t len, int o, size_t *off, size_t *n)
{
    size_t c = len / (size_t) np;
    *off = (size_t) o * c;
    *n = c;
}

/* Put into chunk me of the regions in mask of every rank, in one lock_all epoch.
 * addr[t*NREG + r] is region r's address on rank t. */
static void put_all(MPI_Win win, const MPI_Aint *addr, int mask, int tag)
{
    size_t stride = reg_bytes[NREG - 1];
    unsigned char *src = malloc((size_t) np * NREG * stride);   /* not reused before unlock */
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < np; i++) {
        int t = (me + i) % np;
        for (int r = 0; r < NREG; r++) {
            if (!(mask & 1 << r))
                continue;
            size_t off, n;
            unsigned char *s = src + ((size_t) t * NREG + r) * stride;
            chunk(reg_bytes[r], me, &off, &n);
            for (size_t k = 0; k < n; k++)
                s[k] = bpat(me, t, (long) (off + k + 1000 * tag));
            int rc = MPI_Put(s, (int) n, MPI_BYTE, t, MPI_Aint_add(addr[t * NREG + r], (MPI_Aint) off),
                             (int) n, MPI_BYTE, win);
            TAP_CHECK(rc == MPI_SUCCESS, "put to region %d of rank %d returned %d", r, t, rc);
        }
    }
    MPI_Win_unlock_all(win);
    free(src);
}

static void check_local(MPI_Win win, const unsigned char *buf, int r, size_t len, int tag)
{
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    MPI_Win_sync(win);
    for (size_t k = 0; k < GUARD; k++) {
        TAP_CHECK(buf[k] == SENT_BYTE, "region %d: guard byte %zu before it written", r, k);
        TAP_CHECK(buf[GUARD + len + k] == SENT_BYTE, "region %d: guard byte %zu after it written",
                  r, k);
    }
    for (int o = 0; o < np; o++) {
        size_t off, n;
        chunk(len, o, &off, &n);
        for (size_t k = 0; k < n; k++)
            TAP_CHECK(buf[GUARD + off + k] == bpat(o, me, (long) (off + k + 1000 * tag)),
                      "region %d, chunk of rank %d, byte %zu is %#x", r, o, k, buf[GUARD + off + k]);
    }
    for (size_t k = (size_t) np * (len / (size_t) np); k < len; k++)
        TAP_CHECK(buf[GUARD + k] == SENT_BYTE, "region %d: tail byte %zu written", r, k);
    MPI_Win_unlock(me, win);
}

/* Get chunk me of the regions in mask from every rank, in one lock_all epoch, and check. */
static void get_all(MPI_Win win, const MPI_Aint *addr, int mask, int tag)
{
    size_t stride = reg_bytes[NREG - 1];
    unsigned char *dst = calloc((size_t) np * NREG, stride);
    MPI_Win_lock_all(0, win);
    for (int i = 0; i < np; i++) {
        int t = (me + np - i) % np;
        for (int r = 0; r < NREG; r++) {
            if (!(mask & 1 << r))
                continue;
            size_t off, n;
            chunk(reg_bytes[r], me, &off, &n);
            int rc = MPI_Get(dst + ((size_t) t * NREG + r) * stride, (int) n, MPI_BYTE, t,
                             MPI_Aint_add(addr[t * NREG + r], (MPI_Aint) off), (int) n, MPI_BYTE, win);
            TAP_CHECK(rc == MPI_SUCCESS, "get from region %d of rank %d returned %d", r, t, rc);
        }
    }
    MPI_Win_unlock_all(win);
    for (int t = 0; t < np; t++)
        for (int r = 0; r < NREG; r++) {
            if (!(mask & 1 << r))
                continue;
            size_t off, n;
            const unsigned char *d = dst + ((size_t) t * NREG + r) * stride;
            chunk(reg_bytes[r], me, &off, &n);
            for (size_t k = 0; k < n; k++)
                TAP_CHECK(d[k] == bpat(me, t, (long) (off + k + 1000 * tag)),
                          "get from region %d of rank %d: byte %zu is %#x", r, t, k, d[k]);
        }
    free(dst);
}

static void exchange(unsigned char *const *buf, MPI_Aint *addr)
{
    MPI_Aint mine[NREG];
    for (int r = 0; r < NREG; r++)
        MPI_Get_address(buf[r] + GUARD, &mine[r]);
    MPI_Allgather(mine, NREG, MPI_AINT, addr, NREG, MPI_AINT, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    unsigned char *buf[NREG];
    MPI_Aint *addr = malloc((size_t) np * NREG * sizeof(MPI_Aint));
    MPI_Win win;

    int rc = MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    TAP_CHECK(rc == MPI_SUCCESS, "MPI_Win_create_dynamic returned %d", rc);
    for (int r = 0; r < NREG; r++) {
        buf[r] = malloc(reg_bytes[r] + 2 * GUARD);
        memset(buf[r], SENT_BYTE, reg_bytes[r] + 2 * GUARD);
        rc = MPI_Win_attach(win, buf[r] + GUARD, (MPI_Aint) reg_bytes[r]);
        TAP_CHECK(rc == MPI_SUCCESS, "attach of region %d returned %d", r, rc);
    }
    exchange(buf, addr);
    tap_ok("create_dynamic and attach of %d regions", NREG);

    put_all(win, addr, 7, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < NREG; r++)
        check_local(win, buf[r], r, reg_bytes[r], 0);
    tap_ok("put into %d attached regions of every rank, guards untouched", NREG);

    get_all(win, addr, 7, 0);
    tap_ok("get from %d attached regions of every rank", NREG);

    /* detach region 1 everywhere; regions 0 and 2 keep working */
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_Win_detach(win, buf[1] + GUARD);
    TAP_CHECK(rc == MPI_SUCCESS, "detach returned %d", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    put_all(win, addr, 5, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    check_local(win, buf[0], 0, reg_bytes[0], 1);
    check_local(win, buf[2], 2, reg_bytes[2], 1);
    get_all(win, addr, 5, 1);
    tap_ok("after detaching one region, the other two still work");

    /* attach region 1 again, and a fresh region besides */
    rc = MPI_Win_attach(win, buf[1] + GUARD, (MPI_Aint) reg_bytes[1]);
    TAP_CHECK(rc == MPI_SUCCESS, "re-attach returned %d", rc);
    unsigned char *fresh = malloc(reg_bytes[1] + 2 * GUARD);
    memset(fresh, SENT_BYTE, reg_bytes[1] + 2 * GUARD);
    rc = MPI_Win_attach(win, fresh + GUARD, (MPI_Aint) reg_bytes[1]);
    TAP_CHECK(rc == MPI_SUCCESS, "attach of a fresh region returned %d", rc);
    exchange(buf, addr);
    put_all(win, addr, 2, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    check_local(win, buf[1], 1, reg_bytes[1], 2);
    get_all(win, addr, 2, 2);
    tap_ok("a region attached again is reachable at its address");

    unsigned char *old1 = buf[1];
    buf[1] = fresh;
    exchange(buf, addr);
    put_all(win, addr, 2, 3);
    MPI_Barrier(MPI_COMM_WORLD);
    check_local(win, fresh, 1, reg_bytes[1], 3);
    get_all(win, addr, 2, 3);
    check_local(win, old1, 1, reg_bytes[1], 2);      /* the other region is unchanged */
    tap_ok("a fresh region attached later is reachable, the earlier one unchanged");

    /* detach everything, free the window: the memory and its data stay the user's */
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_Win_detach(win, old1 + GUARD);
    for (int r = 0; r < NREG; r++)
        rc |= MPI_Win_detach(win, buf[r] + GUARD);
    TAP_CHECK(rc == MPI_SUCCESS, "detaching all regions failed");
    rc = MPI_Win_free(&win);
    TAP_CHECK(rc == MPI_SUCCESS && win == MPI_WIN_NULL, "MPI_Win_free: %d", rc);
    for (int o = 0; o < np; o++) {
        size_t off, n;
        chunk(reg_bytes[2], o, &off, &n);
        TAP_CHECK(buf[2][GUARD + off] == bpat(o, me, (long) (off + 1000)),
                  "after free, region 2 lost the data of rank %d", o);
    }
    memset(buf[2], 0, reg_bytes[2]);
    tap_ok("detach all and free: the memory keeps its data");

    for (int r = 0; r < NREG; r++)
        free(buf[r]);
    free(old1);
    free(addr);
    return tap_done();
}
