/*
 * Accesses past the target window are caught at the origin with MPI_ERR_RMA_RANGE
 * (window error handler MPI_ERRORS_RETURN) and never written: each window is the
 * middle of a larger buffer whose guard bytes on both sides must keep the sentinel
 * along with the window itself.  Then the window still works: puts at the very first
 * and very last element succeed and land.  Cases, for MPI_Put, MPI_Rput and MPI_Get:
 *  - disp_unit 1, 64 bytes: 4 bytes at disp 62 (straddling the end), 1 byte at disp
 *    64 (just past), 65 bytes at disp 0 (count too large), 1 byte at disp -1
 *    (negative displacement), 1 byte at disp 2^40 (far past), a vector whose second
 *    element falls at 64, a type whose first element lies 4 bytes below its origin
 *    at disp 0 (below the base);
 *  - disp_unit 4, 16 ints: 2 ints at disp 15, 1 int at disp 16 (the unit is applied).
 *
 * Stock MPICH 4.0.2 checks none of this at the origin: the accesses return
 * MPI_SUCCESS and write into the guards, except disp -1, which it rejects with
 * MPI_ERR_DISP; the disp 2^40 case (kept last for that reason) kills the target with
 * a segfault inside UCX.  rmaib must return MPI_ERR_RMA_RANGE for all of them.
 */
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"

#define GUARD 256
#define S 64

static int me, np, right, left;

struct win {
    MPI_Win win;
    unsigned char *buf;      /* GUARD + S + GUARD bytes, window in the middle */
    int du;
};

static void open_win(struct win *w, int du)
{
    w->du = du;
    w->buf = malloc(2 * GUARD + S);
    memset(w->buf, SENT_BYTE, 2 * GUARD + S);
    MPI_Win_create(w->buf + GUARD, S, du, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
}

/* One bad access three ways (Put, Rput, Get); each must fail with MPI_ERR_RMA_RANGE.
 * The origin side is ocount elements of the target type's basic type. */
static void bad(struct win *w, MPI_Aint disp, MPI_Datatype otype, int ocount, int count,
                MPI_Datatype ttype, const char *what)
{
    unsigned char src[2 * S], dst[2 * S];
    MPI_Request req = MPI_REQUEST_NULL;
    memset(src, 0x11, sizeof src);
    memset(dst, SENT_BYTE, sizeof dst);

    /* a negative displacement may be MPI_ERR_DISP (errcheck.h) */
    int alt = disp < 0 ? MPI_ERR_DISP : MPI_ERR_RMA_RANGE;
    int rc = MPI_Put(src, ocount, otype, right, disp, count, ttype, w->win);
    EXPECT_CLASS_OR(rc, MPI_ERR_RMA_RANGE, alt, "MPI_Put, %s", what);
    rc = MPI_Rput(src, ocount, otype, right, disp, count, ttype, w->win, &req);
    EXPECT_CLASS_OR(rc, MPI_ERR_RMA_RANGE, alt, "MPI_Rput, %s", what);
    if (rc == MPI_SUCCESS)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Get(dst, ocount, otype, right, disp, count, ttype, w->win);
    EXPECT_CLASS_OR(rc, MPI_ERR_RMA_RANGE, alt, "MPI_Get, %s", what);
    MPI_Win_flush(right, w->win);
    TAP_CHECK(find_not_byte(dst, sizeof dst, SENT_BYTE) < 0, "MPI_Get, %s: wrote its buffer", what);
}

/* Every byte of the buffer around and under my window still holds the sentinel. */
static void untouched(struct win *w, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w->win);
    long i = find_not_byte(w->buf, 2 * GUARD + S, SENT_BYTE);
    TAP_CHECK(i < 0, "%s: byte %ld of the buffer (window at %d..%d) was written: %#x", what, i,
              GUARD, GUARD + S, i < 0 ? 0 : w->buf[i]);
    MPI_Win_unlock(me, w->win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Puts at the first and last element of the window succeed and land exactly there. */
static void edges_work(struct win *w, const char *what)
{
    int n = S / w->du, first = pat(me, right, w->du, 0), last = pat(me, right, w->du, 1);
    MPI_Datatype t = w->du == 1 ? MPI_BYTE : MPI_INT;
    unsigned char b[2] = { bpat(me, right, 0), bpat(me, right, 1) };
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w->win);
    rc |= MPI_Put(w->du == 1 ? (void *) &b[0] : (void *) &first, 1, t, right, 0, 1, t, w->win);
    rc |= MPI_Put(w->du == 1 ? (void *) &b[1] : (void *) &last, 1, t, right, n - 1, 1, t, w->win);
    rc |= MPI_Win_unlock(right, w->win);
    TAP_CHECK(rc == MPI_SUCCESS, "%s: puts at the first and last element failed", what);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w->win);
    unsigned char *win = w->buf + GUARD;
    if (w->du == 1) {
        TAP_CHECK(win[0] == bpat(left, me, 0) && win[S - 1] == bpat(left, me, 1),
                  "%s: first/last byte not written", what);
        TAP_CHECK(find_not_byte(win + 1, S - 2, SENT_BYTE) < 0, "%s: inner bytes written", what);
    } else {
        int f, l;
        memcpy(&f, win, 4);
        memcpy(&l, win + S - 4, 4);
        TAP_CHECK(f == pat(left, me, w->du, 0) && l == pat(left, me, w->du, 1),
                  "%s: first/last int not written", what);
        TAP_CHECK(find_not_byte(win + 4, S - 8, SENT_BYTE) < 0, "%s: inner bytes written", what);
    }
    TAP_CHECK(find_not_byte(w->buf, GUARD, SENT_BYTE) < 0, "%s: guard before written", what);
    TAP_CHECK(find_not_byte(win + S, GUARD, SENT_BYTE) < 0, "%s: guard after written", what);
    MPI_Win_unlock(me, w->win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    struct win a, b;
    open_win(&a, 1);
    open_win(&b, 4);

    MPI_Datatype past, below, tmp;
    MPI_Type_vector(2, 1, S, MPI_BYTE, &past);          /* bytes at 0 and S */
    MPI_Type_commit(&past);
    {
        int bl[] = { 1, 1 };
        MPI_Aint d[] = { -4, 0 };
        MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &tmp);   /* bytes at -4 and 0 */
        MPI_Type_create_resized(tmp, 0, 1, &below);
        MPI_Type_free(&tmp);
        MPI_Type_commit(&below);
    }

    MPI_Win_lock_all(0, a.win);
    bad(&a, S - 2, MPI_BYTE, 4, 4, MPI_BYTE, "4 bytes at disp 62 of 64");
    bad(&a, S, MPI_BYTE, 1, 1, MPI_BYTE, "1 byte at disp 64 of 64");
    bad(&a, 0, MPI_BYTE, S + 1, S + 1, MPI_BYTE, "65 bytes at disp 0 of 64");
    MPI_Win_unlock_all(a.win);
    untouched(&a, "disp or count too large");
    tap_ok("disp_unit 1: disp or count too large, MPI_ERR_RMA_RANGE, nothing written");

    MPI_Win_lock_all(0, a.win);
    bad(&a, -1, MPI_BYTE, 1, 1, MPI_BYTE, "1 byte at disp -1");
    MPI_Win_unlock_all(a.win);
    untouched(&a, "negative displacement");
    tap_ok("disp_unit 1: negative displacement, MPI_ERR_RMA_RANGE, nothing written");

    MPI_Win_lock_all(0, a.win);
    bad(&a, 0, MPI_BYTE, 2, 1, past, "vector with its second byte at 64");
    bad(&a, 0, MPI_BYTE, 2, 1, below, "type with a byte 4 below its origin, at disp 0");
    MPI_Win_unlock_all(a.win);
    untouched(&a, "datatype span outside the window");
    tap_ok("disp_unit 1: target datatype reaching past the end or below the base, MPI_ERR_RMA_RANGE");

    MPI_Win_lock_all(0, b.win);
    bad(&b, S / 4 - 1, MPI_INT, 2, 2, MPI_INT, "2 ints at disp 15 of 16 (disp_unit 4)");
    bad(&b, S / 4, MPI_INT, 1, 1, MPI_INT, "1 int at disp 16 of 16 (disp_unit 4)");
    MPI_Win_unlock_all(b.win);
    untouched(&b, "disp_unit 4");
    tap_ok("disp_unit 4: ranges scaled by the unit, MPI_ERR_RMA_RANGE, nothing written");

    MPI_Win_lock_all(0, a.win);
    bad(&a, (MPI_Aint) 1 << 40, MPI_BYTE, 1, 1, MPI_BYTE, "1 byte at disp 2^40");
    MPI_Win_unlock_all(a.win);
    untouched(&a, "disp 2^40");
    tap_ok("disp_unit 1: displacement 2^40, MPI_ERR_RMA_RANGE");

    edges_work(&a, "disp_unit 1");
    edges_work(&b, "disp_unit 4");
    tap_ok("after the range errors, puts at the first and last element land exactly there");

    MPI_Type_free(&past);
    MPI_Type_free(&below);
    MPI_Win_free(&a.win);
    MPI_Win_free(&b.win);
    free(a.buf);
    free(b.buf);
    return tap_done();
}
