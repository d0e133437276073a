/*
 * Misuse of dynamic windows and of flavor-specific calls (window error handler
 * MPI_ERRORS_RETURN):
 *  - attaching a region that overlaps one already attached (the same region, one
 *    inside it, one straddling either end, one enclosing it): MPI_ERR_RMA_ATTACH;
 *  - detaching a region never attached, an address inside an attached region that
 *    is not its start, and a region already detached: MPI_ERR_RMA_ATTACH;
 *  - after all that the attached region still works (every rank puts into its right
 *    neighbour's region and reads it back) and detaches cleanly;
 *  - MPI_Win_attach / MPI_Win_detach on windows made by MPI_Win_create and
 *    MPI_Win_allocate: MPI_ERR_RMA_FLAVOR;
 *  - MPI_Win_shared_query on a MPI_Win_create window: MPI_ERR_RMA_FLAVOR (MPI-3.1
 *    and 4.0; MPI-4.1 allows the query on any window).
 *
 * Stock MPICH 4.0.2 differs on the attach/detach cases: it accepts overlapping
 * attaches and detaches of regions never attached (MPI_SUCCESS).  rmaib must return
 * MPI_ERR_RMA_ATTACH.  The flavor errors MPICH reports as required.
 */
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"

#define LEN 256

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np, rc;
    unsigned char *buf = malloc(4 * LEN), *other = malloc(LEN);
    unsigned char *reg = buf + LEN;              /* the attached region: [LEN, 2*LEN) of buf */
    memset(buf, SENT_BYTE, 4 * LEN);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    rc = MPI_Win_attach(win, reg, LEN);
    TAP_CHECK(rc == MPI_SUCCESS, "attach of the region returned %d", rc);

    struct { long off, len; const char *what; } overlap[] = {
        { 0, LEN, "the same region again" },
        { 16, 32, "a region inside it" },
        { -16, 32, "a region straddling its start" },
        { LEN - 16, 32, "a region straddling its end" },
        { -16, LEN + 32, "a region enclosing it" },
    };
    for (int k = 0; k < 5; k++) {
        rc = MPI_Win_attach(win, reg + overlap[k].off, overlap[k].len);
        EXPECT_CLASS(rc, MPI_ERR_RMA_ATTACH, "%s", overlap[k].what);
        if (rc == MPI_SUCCESS)
            MPI_Win_detach(win, reg + overlap[k].off);
    }
    tap_ok("attaching a region overlapping an attached one: MPI_ERR_RMA_ATTACH");

    rc = MPI_Win_detach(win, other);
    EXPECT_CLASS(rc, MPI_ERR_RMA_ATTACH, "detach of a region never attached");
    rc = MPI_Win_detach(win, reg + 16);
    EXPECT_CLASS(rc, MPI_ERR_RMA_ATTACH, "detach of an address inside a region, not its start");
    tap_ok("detaching what was never attached: MPI_ERR_RMA_ATTACH");

    /* the region still works */
    MPI_Aint mine, *addr = malloc(np * sizeof(MPI_Aint));
    MPI_Get_address(reg, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    unsigned char src[LEN], got[LEN];
    for (int i = 0; i < LEN; i++)
        src[i] = bpat(me, right, i);
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(src, LEN, MPI_BYTE, right, addr[right], LEN, MPI_BYTE, win);
    MPI_Win_flush(right, win);
    rc |= MPI_Get(got, LEN, MPI_BYTE, right, addr[right], LEN, MPI_BYTE, win);
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "put/get to the attached region failed");
    TAP_CHECK(memcmp(got, src, LEN) == 0, "get did not read back the put");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
    for (int i = 0; i < LEN; i++)
        TAP_CHECK(reg[i] == bpat(left, me, i), "region byte %d is %#x", i, reg[i]);
    TAP_CHECK(find_not_byte(buf, LEN, SENT_BYTE) < 0, "bytes before the region written");
    TAP_CHECK(find_not_byte(buf + 2 * LEN, 2 * LEN, SENT_BYTE) < 0, "bytes after the region written");
    MPI_Win_unlock(me, win);
    MPI_Barrier(MPI_COMM_WORLD);
    rc = MPI_Win_detach(win, reg);
    TAP_CHECK(rc == MPI_SUCCESS, "detach of the region returned %d", rc);
    rc = MPI_Win_detach(win, reg);
    EXPECT_CLASS(rc, MPI_ERR_RMA_ATTACH, "detach of a region already detached");
    tap_ok("after the errors the region works and detaches; a second detach: MPI_ERR_RMA_ATTACH");
    MPI_Win_free(&win);

    MPI_Win cw, aw;
    void *abase;
    MPI_Win_create(buf, LEN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &cw);
    MPI_Win_allocate(LEN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &abase, &aw);
    MPI_Win_set_errhandler(cw, MPI_ERRORS_RETURN);
    MPI_Win_set_errhandler(aw, MPI_ERRORS_RETURN);
    rc = MPI_Win_attach(cw, other, LEN);
    EXPECT_CLASS(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach on a MPI_Win_create window");
    rc = MPI_Win_attach(aw, other, LEN);
    EXPECT_CLASS(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_attach on a MPI_Win_allocate window");
    rc = MPI_Win_detach(cw, buf);
    EXPECT_CLASS(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_detach on a MPI_Win_create window");
    tap_ok("attach/detach on non-dynamic windows: MPI_ERR_RMA_FLAVOR");

    MPI_Aint qsize;
    int qdu;
    void *qbase;
    rc = MPI_Win_shared_query(cw, me, &qsize, &qdu, &qbase);
    EXPECT_CLASS(rc, MPI_ERR_RMA_FLAVOR, "MPI_Win_shared_query on a MPI_Win_create window");
    tap_ok("shared_query on a MPI_Win_create window: MPI_ERR_RMA_FLAVOR");

    /* both windows still work */
    unsigned char b = bpat(me, right, 7);
    MPI_Win_fence(0, cw);
    rc = MPI_Put(&b, 1, MPI_BYTE, right, 3, 1, MPI_BYTE, cw);
    MPI_Win_fence(0, cw);
    TAP_CHECK(rc == MPI_SUCCESS && buf[3] == bpat(left, me, 7), "create window no longer works");
    MPI_Win_free(&cw);
    MPI_Win_free(&aw);
    tap_ok("the windows still work after the flavor errors");

    free(buf);
    free(other);
    free(addr);
    return tap_done();
}
