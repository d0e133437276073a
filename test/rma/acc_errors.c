/*
 * acc_errors: misuse of the accumulate family returns the right error class
 * (window error handler MPI_ERRORS_RETURN, class from MPI_Error_class), changes
 * nothing at the target, and leaves the window usable.
 *  - a user-defined operation (MPI_Op_create): MPI_ERR_OP (MPI-3.1 §11.3.4 allows
 *    predefined operations only) -- Accumulate, Get_accumulate, Fetch_and_op and the
 *    request forms;
 *  - MPI_NO_OP in MPI_Accumulate / MPI_Raccumulate: MPI_ERR_OP (§11.3.4: NO_OP only
 *    in Get_accumulate, Rget_accumulate and Fetch_and_op);
 *  - an operation not defined on the type (§5.9.2): MPI_ERR_OP -- BAND on
 *    MPI_DOUBLE, MAXLOC on MPI_INT, SUM on MPI_C_BOOL, MAX on MPI_C_DOUBLE_COMPLEX,
 *    MAXLOC on MPI_CHAR, LAND on MPI_FLOAT, SUM on MPI_BYTE, SUM on MPI_2INT, MIN on
 *    MPI_C_FLOAT_COMPLEX, SUM and BAND on MPI_LOGICAL, SUM and LAND on MPI_WCHAR (in
 *    no op group), MAX on MPI_2REAL, SUM on MPI_2DOUBLE_PRECISION.  (MPI_CHAR is
 *    text to MPI-3.1, but MPICH and Open MPI take it as a C integer and so does
 *    rmaib: acc_all_type_op_pairs checks SUM and the rest on it);
 *  - a derived type mixing basic types (struct of int and double), and origin and
 *    target (or result) types of different basic types: MPI_ERR_TYPE;
 *  - MPI_Compare_and_swap on a type outside C integer / logical / byte (MPI_DOUBLE,
 *    MPI_FLOAT, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX, MPI_2INT, MPI_WCHAR, MPI_2REAL)
 *    or on a derived type (contiguous(1, MPI_INT64_T), contiguous(2, MPI_INT)), and
 *    MPI_Fetch_and_op on a derived type (both take "one predefined datatype"):
 *    MPI_ERR_TYPE;
 *  - a target rank outside the group: MPI_ERR_RANK;
 *  - any of the family outside an epoch, or to a target that is not locked:
 *    MPI_ERR_RMA_SYNC;
 *  - MPI_Raccumulate / MPI_Rget_accumulate in a fence epoch (§11.3.5: request-based
 *    operations need a passive-target epoch): MPI_ERR_RMA_SYNC;
 *  - a target range past the window end, or a negative displacement: MPI_ERR_RMA_RANGE
 *    (DESIGN.md: caught at the origin, never written), for every call, on int64
 *    (rmaib's native path on allocated memory) and double complex (locked path).
 * After the errors every window (and the guard bytes around a created one) must
 * hold exactly what it held before, and a correct accumulate still works.  On a
 * created window with guards and on an allocated window.
 *
 * The checks stock MPICH 4.0.2 does not make (MPI does not require detecting these)
 * and the errors at the target they lead to decide the order of the sections:
 * it accepts the request forms in a fence epoch (and carries them out) and accesses
 * past the window end (writing into the guards; a negative displacement gives
 * MPI_ERR_DISP); it refuses the rest of the
 * origin-side checks as required.  The last section holds what it accepts and then
 * dies on at the target (assertion or internal error): accumulates to an unlocked
 * target, forbidden (type, op) pairs, mixed and mismatched types.  If anything in
 * that section is accepted, the test bails out rather than closing an epoch that
 * may never close.  The assertions are what MPI-3.1 and DESIGN.md ask of rmaib.
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

#define N 8                      /* int64 elements per window */
#define GUARD 256                /* bytes of guard on each side of a created window */
#define SENTB 0x5A

static int me, np, right, left;
static int late;   /* in late_checks: a wrongly accepted request may never complete */

static int64_t initial(int rank, int j)
{
    return 1000 * (rank + 1) + j;
}

static void user_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void) dt;
    for (int i = 0; i < *len; i++)
        ((int64_t *) inout)[i] += ((int64_t *) in)[i];
}

/* Window of N int64 (disp_unit 8) of kind `kind`; a created one sits in the middle
 * of a buffer with GUARD sentinel bytes on each side. */
typedef struct {
    kind_win_t w;
    unsigned char *buf;          /* created: the whole guarded buffer */
    int64_t *mine;
    int64_t ref[N];              /* what the window should hold */
} ewin_t;

static ewin_t open_win(int kind)
{
    ewin_t e;
    e.buf = NULL;
    if (kind == WIN_CREATE) {
        e.buf = malloc(2 * GUARD + N * 8);
        memset(e.buf, SENTB, 2 * GUARD + N * 8);
        e.w.mem = NULL;
        e.w.base = e.buf + GUARD;
        e.w.bytes = N * 8;
        MPI_Win_create(e.w.base, N * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &e.w.win);
        MPI_Win_set_errhandler(e.w.win, MPI_ERRORS_RETURN);
    } else {
        e.w = win_open(WIN_ALLOCATE, N * 8, 8, 0);
    }
    e.mine = e.w.base;
    self_begin(e.w.win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < N; j++)
        e.ref[j] = e.mine[j] = initial(me, j);
    self_end(e.w.win);
    MPI_Barrier(MPI_COMM_WORLD);
    return e;
}

/* My window holds what it held after the previous check, plus `add` per element,
 * and the guards are intact.  Then whatever is there becomes the reference, so that
 * one section's failure does not spill into the next. */
static void unchanged(ewin_t *e, const int64_t *add, const char *after)
{
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(e->w.win, MPI_LOCK_EXCLUSIVE);
    for (int j = 0; j < N; j++) {
        int64_t want = e->ref[j] + (add ? add[j] : 0);
        TAP_CHECK(e->mine[j] == want, "after %s: window element %d is %lld, expected %lld", after,
                  j, (long long) e->mine[j], (long long) want);
        e->ref[j] = e->mine[j];
    }
    if (e->buf)
        for (int i = 0; i < GUARD; i++) {
            TAP_CHECK(e->buf[i] == SENTB, "after %s: guard byte %d below the window written",
                      after, GUARD - i);
            TAP_CHECK(e->buf[GUARD + N * 8 + i] == SENTB,
                      "after %s: guard byte %d past the window end written", after, i);
            e->buf[i] = e->buf[GUARD + N * 8 + i] = SENTB;
        }
    self_end(e->w.win);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every member of the family with (type, op), count 1 at disp, to target; each must
 * fail with class `want`.  CAS is tried too when cas_too is set. */
static void all_calls(MPI_Win win, MPI_Datatype dt, MPI_Op op, int target, MPI_Aint disp,
                      int want, int cas_too, const char *what)
{
    unsigned char o[64], r[64], c[64];
    MPI_Request req = MPI_REQUEST_NULL;
    memset(o, 1, sizeof o);
    memset(c, 0, sizeof c);
    /* a negative displacement may be MPI_ERR_DISP (errcheck.h) */
    int alt = want == MPI_ERR_RMA_RANGE && disp < 0 ? MPI_ERR_DISP : want;
    int rc = MPI_Accumulate(o, 1, dt, target, disp, 1, dt, op, win);
    EXPECT_CLASS_OR(rc, want, alt, "MPI_Accumulate, %s", what);
    rc = MPI_Get_accumulate(o, 1, dt, r, 1, dt, target, disp, 1, dt, op, win);
    EXPECT_CLASS_OR(rc, want, alt, "MPI_Get_accumulate, %s", what);
    rc = MPI_Fetch_and_op(o, r, dt, target, disp, op, win);
    EXPECT_CLASS_OR(rc, want, alt, "MPI_Fetch_and_op, %s", what);
    rc = MPI_Raccumulate(o, 1, dt, target, disp, 1, dt, op, win, &req);
    EXPECT_CLASS_OR(rc, want, alt, "MPI_Raccumulate, %s", what);
    if (rc == MPI_SUCCESS && !late)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Rget_accumulate(o, 1, dt, r, 1, dt, target, disp, 1, dt, op, win, &req);
    EXPECT_CLASS_OR(rc, want, alt, "MPI_Rget_accumulate, %s", what);
    if (rc == MPI_SUCCESS && !late)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (cas_too) {
        rc = MPI_Compare_and_swap(o, c, r, dt, target, disp, win);
        EXPECT_CLASS_OR(rc, want, alt, "MPI_Compare_and_swap, %s", what);
    }
}

static MPI_Op user;
static MPI_Datatype mixed, contig1, contig2;

static void types_ops_create(void)
{
    int bl[2] = { 1, 1 };
    MPI_Aint d[2] = { 0, 8 };
    MPI_Datatype ty[2] = { MPI_INT, MPI_DOUBLE };
    MPI_Op_create(user_fn, 1, &user);
    MPI_Type_create_struct(2, bl, d, ty, &mixed);
    MPI_Type_commit(&mixed);
    MPI_Type_contiguous(1, MPI_INT64_T, &contig1);
    MPI_Type_commit(&contig1);
    MPI_Type_contiguous(2, MPI_INT, &contig2);
    MPI_Type_commit(&contig2);
}

/* Errors every MPI can see at the origin: user-defined and NO_OP-in-Accumulate
 * operations, CAS and fetch-and-op types, target ranks. */
static void origin_checks(ewin_t *e, const char *kn)
{
    MPI_Win win = e->w.win;
    int64_t o[N] = { 1, 1 }, r[N], c[N] = { 0 };
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    all_calls(win, MPI_INT64_T, user, right, 0, MPI_ERR_OP, 0, "user-defined op");
    rc = MPI_Accumulate(o, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_NO_OP, win);
    EXPECT_CLASS(rc, MPI_ERR_OP, "MPI_Accumulate with MPI_NO_OP");
    rc = MPI_Raccumulate(o, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_NO_OP, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_OP, "MPI_Raccumulate with MPI_NO_OP");
    if (rc == MPI_SUCCESS && !late)
        MPI_Wait(&req, MPI_STATUS_IGNORE);

    const MPI_Datatype cas_bad[] = { MPI_DOUBLE, MPI_FLOAT, MPI_LONG_DOUBLE, MPI_C_FLOAT_COMPLEX,
                                     MPI_2INT, MPI_WCHAR, MPI_2REAL, contig1, contig2 };
    const char *const cas_bad_name[] = { "MPI_DOUBLE", "MPI_FLOAT", "MPI_LONG_DOUBLE",
                                         "MPI_C_FLOAT_COMPLEX", "MPI_2INT", "MPI_WCHAR",
                                         "MPI_2REAL",
                                         "contiguous(1, MPI_INT64_T)", "contiguous(2, MPI_INT)" };
    for (size_t i = 0; i < sizeof cas_bad / sizeof cas_bad[0]; i++) {
        rc = MPI_Compare_and_swap(o, c, r, cas_bad[i], right, 0, win);
        EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Compare_and_swap on %s", cas_bad_name[i]);
    }
    rc = MPI_Fetch_and_op(o, r, contig1, right, 0, MPI_SUM, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Fetch_and_op on contiguous(1, MPI_INT64_T)");

    all_calls(win, MPI_INT64_T, MPI_SUM, np, 0, MPI_ERR_RANK, 1, "target rank = group size");
    all_calls(win, MPI_INT64_T, MPI_SUM, -5, 0, MPI_ERR_RANK, 1, "target rank -5");
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    unchanged(e, NULL, "refused operations, types and ranks");
    tap_ok("%s: user-defined ops and NO_OP in (R)Accumulate give MPI_ERR_OP; CAS on "
           "non-integer or derived types and fetch-and-op on a derived type give MPI_ERR_TYPE; "
           "bad ranks MPI_ERR_RANK; nothing changes", kn);
}

static void sync_checks(ewin_t *e, const char *kn)
{
    MPI_Win win = e->w.win;
    int64_t o[N] = { 1, 1 }, r[N];
    MPI_Request req = MPI_REQUEST_NULL;
    int rc;
    all_calls(win, MPI_INT64_T, MPI_SUM, right, 0, MPI_ERR_RMA_SYNC, 1, "outside any epoch");
    EXPECT_OK(MPI_Win_fence(0, win), "MPI_Win_fence");
    rc = MPI_Raccumulate(o, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T, MPI_SUM, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Raccumulate in a fence epoch");
    if (rc == MPI_SUCCESS && !late)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    rc = MPI_Rget_accumulate(o, 1, MPI_INT64_T, r, 1, MPI_INT64_T, right, 0, 1, MPI_INT64_T,
                             MPI_SUM, win, &req);
    EXPECT_CLASS(rc, MPI_ERR_RMA_SYNC, "MPI_Rget_accumulate in a fence epoch");
    if (rc == MPI_SUCCESS && !late)
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), "MPI_Win_fence");
    unchanged(e, NULL, "the synchronisation errors");
    tap_ok("%s: the accumulate family outside an epoch, and the request forms in a fence "
           "epoch, give MPI_ERR_RMA_SYNC; nothing changes", kn);
}

static void range_checks(ewin_t *e, const char *kn)
{
    MPI_Win win = e->w.win;
    int64_t o[N + 1], r[N + 1];
    int rc;
    for (int j = 0; j <= N; j++)
        o[j] = 1;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    all_calls(win, MPI_INT64_T, MPI_SUM, right, N, MPI_ERR_RMA_RANGE, 1,
              "int64 at displacement N (just past the end)");
    all_calls(win, MPI_INT64_T, MPI_SUM, right, -1, MPI_ERR_RMA_RANGE, 1,
              "int64 at displacement -1");
    rc = MPI_Accumulate(o, 3, MPI_INT64_T, right, N - 2, 3, MPI_INT64_T, MPI_SUM, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE, "MPI_Accumulate of 3 int64 at N-2 (straddling the end)");
    rc = MPI_Get_accumulate(o, N + 1, MPI_INT64_T, r, N + 1, MPI_INT64_T, right, 0, N + 1,
                            MPI_INT64_T, MPI_SUM, win);
    EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE, "MPI_Get_accumulate of N+1 int64 at 0");
    {
        /* a 16-byte element (rmaib's locked path on allocated memory too) straddling
         * the end */
        double _Complex z[2] = { 1, 1 }, zr[2];
        rc = MPI_Accumulate(z, 1, MPI_C_DOUBLE_COMPLEX, right, N - 1, 1, MPI_C_DOUBLE_COMPLEX,
                            MPI_SUM, win);
        EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE, "MPI_Accumulate of a double complex at N-1 (straddling)");
        rc = MPI_Get_accumulate(z, 1, MPI_C_DOUBLE_COMPLEX, zr, 1, MPI_C_DOUBLE_COMPLEX, right,
                                N - 1, 1, MPI_C_DOUBLE_COMPLEX, MPI_NO_OP, win);
        EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE, "MPI_Get_accumulate(NO_OP) of a double complex at N-1");
    }
    {
        MPI_Datatype vec;
        MPI_Type_vector(2, 1, N, MPI_INT64_T, &vec);   /* second element at N */
        MPI_Type_commit(&vec);
        rc = MPI_Accumulate(o, 2, MPI_INT64_T, right, 0, 1, vec, MPI_SUM, win);
        EXPECT_CLASS(rc, MPI_ERR_RMA_RANGE, "MPI_Accumulate, a vector whose second element is at N");
        MPI_Type_free(&vec);
    }
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    unchanged(e, NULL, "the range errors");
    tap_ok("%s: accesses past the end or below the start give MPI_ERR_RMA_RANGE for every "
           "call of the family, and write nothing (window and guards unchanged)", kn);
}

static void still_works(ewin_t *e, const char *kn)
{
    MPI_Win win = e->w.win;
    int64_t o[N], fetched = -1, one = 1, rref = -1, add[N];
    for (int j = 0; j < N; j++) {
        o[j] = 1;
        add[j] = 1 + (j == N - 1);
    }
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    EXPECT_OK(MPI_Accumulate(o, N, MPI_INT64_T, right, 0, N, MPI_INT64_T, MPI_SUM, win),
         "MPI_Accumulate");
    EXPECT_OK(MPI_Fetch_and_op(&one, &fetched, MPI_INT64_T, right, N - 1, MPI_SUM, win),
         "MPI_Fetch_and_op");
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    /* the right neighbour's element N-1 before this epoch */
    MPI_Sendrecv(&e->ref[N - 1], 1, MPI_INT64_T, left, 0, &rref, 1, MPI_INT64_T, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    TAP_CHECK(fetched == rref + 1, "MPI_Fetch_and_op fetched %lld, expected %lld",
              (long long) fetched, (long long) rref + 1);
    unchanged(e, add, "a correct MPI_Accumulate and MPI_Fetch_and_op");
    tap_ok("%s: after the errors, a correct accumulate and fetch-and-op work", kn);
}

/* Operations the type does not allow, mixed or mismatched types, and accumulates to
 * a target that is not locked while another one is.  Stock MPICH 4.0.2 accepts these
 * at the origin and then aborts or hangs, so they come last; if any is accepted the
 * epoch holding it cannot be closed safely, and the test bails out instead of
 * hanging. */
static void late_checks(ewin_t *e, const char *kn)
{
    MPI_Win win = e->w.win;
    int64_t o[N] = { 1, 1 }, r[N];
    int rc;
    static const struct { const char *name; int t; int o; } bad_pairs[] = {
        { "MPI_BAND on MPI_DOUBLE", 0, 0 }, { "MPI_MAXLOC on MPI_INT", 1, 1 },
        { "MPI_SUM on MPI_C_BOOL", 2, 2 }, { "MPI_MAX on MPI_C_DOUBLE_COMPLEX", 3, 3 },
        { "MPI_MAXLOC on MPI_CHAR", 4, 1 }, { "MPI_LAND on MPI_FLOAT", 5, 4 },
        { "MPI_SUM on MPI_BYTE", 6, 2 }, { "MPI_SUM on MPI_2INT", 7, 2 },
        { "MPI_MIN on MPI_C_FLOAT_COMPLEX", 8, 5 }, { "MPI_SUM on MPI_LOGICAL", 9, 2 },
        { "MPI_BAND on MPI_LOGICAL", 9, 0 }, { "MPI_SUM on MPI_WCHAR", 10, 2 },
        { "MPI_LAND on MPI_WCHAR", 10, 4 }, { "MPI_MAX on MPI_2REAL", 11, 3 },
        { "MPI_SUM on MPI_2DOUBLE_PRECISION", 12, 2 },
    };
    const MPI_Datatype bt[] = { MPI_DOUBLE, MPI_INT, MPI_C_BOOL, MPI_C_DOUBLE_COMPLEX, MPI_CHAR,
                                MPI_FLOAT, MPI_BYTE, MPI_2INT, MPI_C_FLOAT_COMPLEX, MPI_LOGICAL,
                                MPI_WCHAR, MPI_2REAL, MPI_2DOUBLE_PRECISION };
    const MPI_Op bo[] = { MPI_BAND, MPI_MAXLOC, MPI_SUM, MPI_MAX, MPI_LAND, MPI_MIN };

    if (np > 2) {
        EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win), "MPI_Win_lock");
        all_calls(win, MPI_INT64_T, MPI_SUM, left, 0, MPI_ERR_RMA_SYNC, 1,
                  "to a target not locked (another one is)");
        EXPECT_OK(MPI_Win_unlock(right, win), "MPI_Win_unlock");
    }
    late = 1;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (size_t i = 0; i < sizeof bad_pairs / sizeof bad_pairs[0]; i++)
        if (bt[bad_pairs[i].t] != MPI_DATATYPE_NULL)   /* Fortran's, in an MPI without it */
            all_calls(win, bt[bad_pairs[i].t], bo[bad_pairs[i].o], right, 0, MPI_ERR_OP, 0,
                      bad_pairs[i].name);
    all_calls(win, mixed, MPI_REPLACE, right, 0, MPI_ERR_TYPE, 0,
              "struct{MPI_INT, MPI_DOUBLE} (mixed basic types)");
    rc = MPI_Accumulate(o, 2, MPI_INT, right, 0, 1, MPI_DOUBLE, MPI_SUM, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Accumulate, origin MPI_INT, target MPI_DOUBLE");
    rc = MPI_Get_accumulate(o, 1, MPI_INT64_T, r, 1, MPI_DOUBLE, right, 0, 1, MPI_INT64_T,
                            MPI_SUM, win);
    EXPECT_CLASS(rc, MPI_ERR_TYPE, "MPI_Get_accumulate, result MPI_DOUBLE, target MPI_INT64_T");

    int bad = tap_local_fail != 0, anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anybad) {
        tap_ok("%s: accumulates to an unlocked target give MPI_ERR_RMA_SYNC, forbidden "
               "(type, op) pairs MPI_ERR_OP, mixed or mismatched basic types MPI_ERR_TYPE", kn);
        if (tap_rank == 0)
            printf("Bail out! erroneous accumulates were accepted; the epoch holding them "
                   "cannot be closed safely\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    unchanged(e, NULL, "unlocked targets, forbidden (type, op) pairs and mixed types");
    tap_ok("%s: accumulates to an unlocked target give MPI_ERR_RMA_SYNC, forbidden (type, op) "
           "pairs MPI_ERR_OP, mixed or mismatched basic types MPI_ERR_TYPE; nothing changes", kn);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    right = (me + 1) % np;
    left = (me + np - 1) % np;
    types_ops_create();
    ewin_t e[2] = { open_win(WIN_CREATE), open_win(WIN_ALLOCATE) };
    const char *kn[2] = { win_kind_name[WIN_CREATE], win_kind_name[WIN_ALLOCATE] };
    for (int k = 0; k < 2; k++) {
        sync_checks(&e[k], kn[k]);
        range_checks(&e[k], kn[k]);
        origin_checks(&e[k], kn[k]);
        still_works(&e[k], kn[k]);
    }
    for (int k = 0; k < 2; k++)
        late_checks(&e[k], kn[k]);
    for (int k = 0; k < 2; k++) {
        if (e[k].buf) {
            MPI_Win_free(&e[k].w.win);
            free(e[k].buf);
        } else {
            win_close(&e[k].w);
        }
    }
    MPI_Type_free(&mixed);
    MPI_Type_free(&contig1);
    MPI_Type_free(&contig2);
    MPI_Op_free(&user);
    return tap_done();
}
