/*
 * A count past INT_MAX: 2^31 + 4 KiB + 3 bytes in one MPI_Put_c and one MPI_Get_c
 * (MPI_BYTE, so the count is the byte count), into a window of rank 1 made by
 * MPI_Win_allocate_c, every byte checked at the target and back at the origin.
 * Rank 0 exposes nothing; rank 1's window and rank 0's buffer take 2.2 GB each.
 * Where the machine has not that much memory available the test checks that the
 * calls are refused cleanly instead: MPI_ERR_NO_MEM from the creation, or skips.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tap.h"
#include "errcheck.h"

#define BYTES ((MPI_Count) INT_MAX + 1 + 4096 + 3)

static unsigned char byte_at(MPI_Count i)
{
    return (unsigned char) ((uint64_t) i * 131 + ((uint64_t) i >> 20));
}

/* kB of memory available, from /proc/meminfo (0 if unknown). */
static long long mem_available_kb(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static MPI_Count first_wrong(const unsigned char *p)
{
    for (MPI_Count i = 0; i < BYTES; i++)
        if (p[i] != byte_at(i))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank;
    if (tap_size != 2) {
        tap_skip("a put and a get past 2^31 bytes", "needs exactly 2 ranks");
        return tap_done();
    }
#ifdef RMAIB_TEST_NETMOD
    /* MPICH 4.0.2's MPI_Put_c and MPI_Get_c pass the count to MPID_Put and MPID_Get,
     * whose count is an int: 2^31 + 4099 arrives negative, and the netmod refuses it
     * before touching any memory (the drop-in serves such counts). */
    MPI_Win nw;
    unsigned char *nbase = NULL, small[64] = { 0 };
    EXPECT_OK(MPI_Win_allocate(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &nbase, &nw),
              "MPI_Win_allocate");
    memset(nbase, 0x5a, 64);
    MPI_Win_set_errhandler(nw, MPI_ERRORS_RETURN);
    MPI_Win_lock_all(0, nw);
    EXPECT_CLASS(MPI_Put_c(small, BYTES, MPI_BYTE, 1 - me, 0, BYTES, MPI_BYTE, nw), MPI_ERR_COUNT,
                 "MPI_Put_c of 2^31 + 4099 bytes through the netmod");
    EXPECT_CLASS(MPI_Get_c(small, BYTES, MPI_BYTE, 1 - me, 0, BYTES, MPI_BYTE, nw), MPI_ERR_COUNT,
                 "MPI_Get_c of 2^31 + 4099 bytes through the netmod");
    MPI_Win_unlock_all(nw);
    MPI_Barrier(MPI_COMM_WORLD);
    int intact = 1;
    for (int i = 0; i < 64; i++)
        intact &= nbase[i] == 0x5a && small[i] == 0;
    TAP_CHECK(intact, "a refused call changed the window or the buffer");
    MPI_Win_free(&nw);
    tap_ok("MPI_Put_c and MPI_Get_c past 2^31 bytes: MPI_ERR_COUNT from the netmod, "
           "nothing written (MPICH 4.0.2 passes the count on as an int)");
    return tap_done();
#endif
    /* Under the sanitizers it would take minutes of CI for what large_count_calls
     * already checks there with small counts; the plain build moves the bytes. */
    const char *san = getenv("RMAIB_SANITIZERS");
    if (san && *san) {
        tap_skip("a put and a get past 2^31 bytes", "not in a sanitized build");
        return tap_done();
    }
    /* Both buffers and a margin for the rest of the machine. */
    int enough = mem_available_kb() > 3 * (long long) (BYTES / 1024), all = 0;
    MPI_Allreduce(&enough, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        tap_skip("a put and a get past 2^31 bytes", "less than 6.6 GB of memory available");
        return tap_done();
    }

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *base = NULL, *buf = NULL;
    MPI_Win win;
    int rc = MPI_Win_allocate_c(me == 1 ? BYTES : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    EXPECT_OK(rc, "MPI_Win_allocate_c of %lld bytes", (long long) BYTES);
    if (rc != MPI_SUCCESS) {
        tap_ok("MPI_Win_allocate_c of 2^31 + 4099 bytes");
        return tap_done();
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    if (me == 0) {
        buf = malloc((size_t) BYTES);
        TAP_CHECK(buf != NULL, "malloc of the origin buffer");
        for (MPI_Count i = 0; buf && i < BYTES; i++)
            buf[i] = byte_at(i);
    }
    tap_ok("MPI_Win_allocate_c of 2^31 + 4099 bytes, and the origin buffer");

    MPI_Win_fence(0, win);
    if (me == 0 && buf)
        EXPECT_OK(MPI_Put_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win), "MPI_Put_c");
    MPI_Win_fence(0, win);
    if (me == 1) {
        MPI_Count at = first_wrong(base);
        TAP_CHECK(at < 0, "byte %lld is %#x, want %#x", (long long) at, at < 0 ? 0 : base[at],
                  at < 0 ? 0 : byte_at(at));
        base[BYTES - 1] ^= 0xff;    /* the get must read the window, not a stale copy */
    }
    tap_ok("MPI_Put_c of %lld bytes lands, every byte in place", (long long) BYTES);

    MPI_Win_fence(0, win);
    if (me == 0 && buf) {
        memset(buf, 0, (size_t) BYTES);
        EXPECT_OK(MPI_Get_c(buf, BYTES, MPI_BYTE, 1, 0, BYTES, MPI_BYTE, win), "MPI_Get_c");
    }
    MPI_Win_fence(0, win);
    if (me == 0 && buf) {
        TAP_CHECK(buf[BYTES - 1] == (unsigned char) (byte_at(BYTES - 1) ^ 0xff),
                  "the last byte read back is not the target's");
        buf[BYTES - 1] ^= 0xff;
        MPI_Count at = first_wrong(buf);
        TAP_CHECK(at < 0, "byte %lld read back is %#x, want %#x", (long long) at,
                  at < 0 ? 0 : buf[at], at < 0 ? 0 : byte_at(at));
    }
    tap_ok("MPI_Get_c of %lld bytes reads every byte back", (long long) BYTES);

    /* Past the window's end by one byte: refused at the origin, nothing written. */
    if (me == 0 && buf) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        EXPECT_CLASS(MPI_Put_c(buf, BYTES, MPI_BYTE, 1, 1, BYTES, MPI_BYTE, win),
                     MPI_ERR_RMA_RANGE, "MPI_Put_c one byte past the window");
        MPI_Win_unlock(1, win);
    }
    tap_ok("a large MPI_Put_c one byte past the window is MPI_ERR_RMA_RANGE");
    MPI_Win_free(&win);
    free(buf);
    return tap_done();
}
