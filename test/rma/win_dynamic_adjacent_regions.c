/*
 * A dynamic window whose regions are attached back to back (MPICH's
 * win_dynamic_rma_flush_get): every rank attaches two halves of one buffer as two
 * regions, with unattached guards before and after.  A put and a get that span
 * both regions reach every rank and move the right data; one that runs one int past
 * the second region fails with MPI_ERR_RMA_RANGE and writes nothing; once the second
 * region is detached, the spanning put fails too and the guards and the detached
 * half keep their sentinels.
 */
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"

#define M 1024              /* ints per region */
#define G 16                /* ints of guard on each side */
#define SPAN (M / 2 + M)    /* a put from the middle of region 1 to the end of region 2 */

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int np = tap_size, me = tap_rank;
    static int buf[G + 2 * M + G], src[2 * M + 1], got[2 * M + 1];
    fill_int(buf, sizeof buf / sizeof buf[0], SENT_INT);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int rc = MPI_Win_attach(win, buf + G, M * sizeof(int));
    TAP_CHECK(rc == MPI_SUCCESS, "attach of region 1 returned %d", rc);
    rc = MPI_Win_attach(win, buf + G + M, M * sizeof(int));
    TAP_CHECK(rc == MPI_SUCCESS, "attach of region 2 returned %d", rc);
    MPI_Aint mine, *addr = malloc(np * sizeof *addr);
    MPI_Get_address(buf + G, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    tap_ok("two regions attached back to back");

    /* Rank o writes its span into rank (o + 1) % np. */
    int t = (me + 1) % np, from = (me + np - 1) % np;
    for (int i = 0; i < SPAN; i++)
        src[i] = pat(me, t, i / 64, i);
    MPI_Aint disp = addr[t] + (MPI_Aint) (M / 2 * sizeof(int));
    MPI_Win_lock_all(0, win);
    rc = MPI_Put(src, SPAN, MPI_INT, t, disp, SPAN, MPI_INT, win);
    TAP_CHECK(rc == MPI_SUCCESS, "put across the two regions returned %d", rc);
    MPI_Win_flush(t, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < G + M / 2; i++)
        TAP_CHECK(buf[i] == SENT_INT, "int %d before the span changed: %#x", i, (unsigned) buf[i]);
    for (int i = 0; i < SPAN; i++)
        TAP_CHECK(buf[G + M / 2 + i] == pat(from, me, i / 64, i), "int %d of the span: %d, want %d",
                  i, buf[G + M / 2 + i], pat(from, me, i / 64, i));
    for (int i = G + 2 * M; i < G + 2 * M + G; i++)
        TAP_CHECK(buf[i] == SENT_INT, "guard int %d after region 2 changed", i);
    tap_ok("a put across two adjacent regions lands in both, nothing around it changes");

    fill_int(got, SPAN, SENT_INT);
    MPI_Win_lock_all(0, win);
    rc = MPI_Get(got, SPAN, MPI_INT, t, disp, SPAN, MPI_INT, win);
    TAP_CHECK(rc == MPI_SUCCESS, "get across the two regions returned %d", rc);
    MPI_Win_flush(t, win);
    for (int i = 0; i < SPAN; i++)
        TAP_CHECK(got[i] == pat(me, t, i / 64, i), "get: int %d is %d, want %d", i, got[i],
                  pat(me, t, i / 64, i));
    tap_ok("a get across two adjacent regions reads both");

    /* One int more runs into the guard, which is not attached. */
    EXPECT_CLASS(MPI_Put(src, SPAN + 1, MPI_INT, t, disp, SPAN + 1, MPI_INT, win),
                 MPI_ERR_RMA_RANGE, "put one int past region 2");
    MPI_Win_flush(t, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = G + 2 * M; i < G + 2 * M + G; i++)
        TAP_CHECK(buf[i] == SENT_INT, "guard int %d after region 2 changed", i);
    tap_ok("a put past the last adjacent region fails with MPI_ERR_RMA_RANGE, writes nothing");

    /* Region 2 detached: the span is no longer covered. */
    rc = MPI_Win_detach(win, buf + G + M);
    TAP_CHECK(rc == MPI_SUCCESS, "detach of region 2 returned %d", rc);
    fill_int(buf + G + M, M, SENT_INT);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    EXPECT_CLASS(MPI_Put(src, SPAN, MPI_INT, t, disp, SPAN, MPI_INT, win), MPI_ERR_RMA_RANGE,
                 "put across region 1 and a detached region 2");
    MPI_Win_flush(t, win);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    long k = find_not_int(buf + G + M, M + G, SENT_INT);
    TAP_CHECK(k < 0, "int %ld of the detached region (or the guard) changed", k);
    tap_ok("with region 2 detached the same put fails with MPI_ERR_RMA_RANGE, writes nothing");

    MPI_Win_detach(win, buf + G);
    MPI_Win_free(&win);
    free(addr);
    return tap_done();
}
