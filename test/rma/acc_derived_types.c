/*
 * acc_derived_types: the accumulate family with derived datatypes.  Origin, target
 * and result types may differ as long as they have the same type signature (n
 * elements of one basic type); elements are combined in type-map order.
 *
 * Types, each built twice, from MPI_INT and from MPI_DOUBLE, with the positions of
 * their elements worked out here by hand (in elements from the buffer start):
 * contiguous, vector, hvector, indexed, indexed_block, hindexed, resized (a vector
 * stretched, and a type with a negative lower bound), subarray.  Every transfer moves
 * 12 elements (count = 12 / elements per type).  For every (origin type, target type)
 * pair, in one lock_all epoch to the right neighbour:
 *  - MPI_Accumulate(MPI_SUM): target positions of the target type hold initial +
 *    operand, in order; every other element keeps its initial value;
 *  - MPI_Get_accumulate(MPI_SUM) with a third derived type for the result: the
 *    result positions hold the old target values in order, nothing else is written.
 * Then, in a shared-lock epoch, the same with MPI_Raccumulate and
 * MPI_Rget_accumulate, completed with MPI_Wait for some and MPI_Waitall for the
 * rest, the results checked after each completes.  On an allocated window (rmaib:
 * CPU atomics) and a created one (rmaib: accumulate lock).
 */
#include "tap.h"
#include "windows.h"
#include "errcheck.h"

#define MOVED 12                /* elements per transfer */
#define SLOT 64                 /* elements of window (and buffer) per transfer */
#define SHIFT 8                 /* target_disp / buffer offset in a slot, in elements */

typedef struct {
    const char *name;
    MPI_Datatype t[2];          /* built from MPI_INT, from MPI_DOUBLE */
    int n;                      /* elements per type */
    int pos[12];                /* their positions, in elements, type-map order */
    MPI_Aint extent;            /* in elements */
} dtype_t;

#define NT 10
static dtype_t T[NT];
static int nt;

static void def(const char *name, int n, const int *pos, MPI_Datatype ti, MPI_Datatype td)
{
    dtype_t *d = &T[nt++];
    MPI_Aint lb, ext;
    d->name = name;
    d->t[0] = ti;
    d->t[1] = td;
    d->n = n;
    memcpy(d->pos, pos, sizeof(int) * (size_t) n);
    for (int b = 0; b < 2; b++)
        MPI_Type_commit(&d->t[b]);
    MPI_Type_get_extent(ti, &lb, &ext);
    d->extent = ext / (MPI_Aint) sizeof(int);
}

static void types_build(void)
{
    MPI_Datatype base[2] = { MPI_INT, MPI_DOUBLE }, t[2], u;
    const MPI_Aint es[2] = { sizeof(int), sizeof(double) };
    int b;

    for (b = 0; b < 2; b++) MPI_Type_contiguous(4, base[b], &t[b]);
    { int p[] = { 0, 1, 2, 3 }; def("contiguous(4)", 4, p, t[0], t[1]); }

    for (b = 0; b < 2; b++) MPI_Type_vector(3, 2, 5, base[b], &t[b]);
    { int p[] = { 0, 1, 5, 6, 10, 11 }; def("vector(3,2,5)", 6, p, t[0], t[1]); }

    for (b = 0; b < 2; b++) MPI_Type_create_hvector(2, 3, 7 * es[b], base[b], &t[b]);
    { int p[] = { 0, 1, 2, 7, 8, 9 }; def("hvector(2,3,7 elements)", 6, p, t[0], t[1]); }

    {
        int bl[] = { 2, 1, 3 }, d[] = { 7, 0, 3 };
        for (b = 0; b < 2; b++) MPI_Type_indexed(3, bl, d, base[b], &t[b]);
        int p[] = { 7, 8, 0, 3, 4, 5 };
        def("indexed{2,1,3}@{7,0,3}", 6, p, t[0], t[1]);
    }
    {
        int d[] = { 1, 6, 12 };
        for (b = 0; b < 2; b++) MPI_Type_create_indexed_block(3, 2, d, base[b], &t[b]);
        int p[] = { 1, 2, 6, 7, 12, 13 };
        def("indexed_block(2)@{1,6,12}", 6, p, t[0], t[1]);
    }
    {
        int bl[] = { 1, 2 };
        for (b = 0; b < 2; b++) {
            MPI_Aint d[] = { 9 * es[b], 2 * es[b] };
            MPI_Type_create_hindexed(2, bl, d, base[b], &t[b]);
        }
        int p[] = { 9, 2, 3 };
        def("hindexed{1,2}@{9,2 elements}", 3, p, t[0], t[1]);
    }
    for (b = 0; b < 2; b++) {
        MPI_Type_vector(3, 1, 2, base[b], &u);
        MPI_Type_create_resized(u, 0, 7 * es[b], &t[b]);
        MPI_Type_free(&u);
    }
    { int p[] = { 0, 2, 4 }; def("resized(vector(3,1,2), extent 7)", 3, p, t[0], t[1]); }
    for (b = 0; b < 2; b++) {
        int bl[] = { 1, 1 };
        MPI_Aint d[] = { -2 * es[b], 1 * es[b] };
        MPI_Type_create_hindexed(2, bl, d, base[b], &u);
        MPI_Type_create_resized(u, -2 * es[b], 5 * es[b], &t[b]);
        MPI_Type_free(&u);
    }
    { int p[] = { -2, 1 }; def("resized(hindexed@{-2,1}, lb -2, extent 5)", 2, p, t[0], t[1]); }
    {
        int sizes[] = { 4, 5 }, sub[] = { 2, 3 }, start[] = { 1, 1 };
        for (b = 0; b < 2; b++)
            MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, base[b], &t[b]);
        int p[] = { 6, 7, 8, 11, 12, 13 };
        def("subarray{4,5}/{2,3}@{1,1}", 6, p, t[0], t[1]);
    }
    for (b = 0; b < 2; b++) MPI_Type_contiguous(1, base[b], &t[b]);
    { int p[] = { 0 }; def("contiguous(1)", 1, p, t[0], t[1]); }
}

/* Position (in elements, from the buffer pointer) of the k-th element moved. */
static int where(const dtype_t *d, int k)
{
    return d->pos[k % d->n] + (int) (k / d->n) * (int) d->extent;
}

static int count_of(const dtype_t *d)
{
    return MOVED / d->n;
}

/* Values: target element j of slot s at rank t; operand element k from origin o. */
static long initial(int t, int s, int j)
{
    return 100000L * (t + 1) + 100L * (s % 997) + j;
}

static long operand(int o, int s, int k)
{
    return 1000L * (o + 1) + 7L * (s % 101) + k;
}

static void put_elem(int b, void *base, long i, long v)
{
    if (b == 0)
        ((int *) base)[i] = (int) v;
    else
        ((double *) base)[i] = (double) v;
}

static long get_elem(int b, const void *base, long i)
{
    return b == 0 ? ((const int *) base)[i] : (long) ((const double *) base)[i];
}

#define SENT -777777L           /* unwritten result buffer elements */

/* The cases: (origin type, target type, result type, basic type b); slot s. */
static int ncases;
static void case_of(int s, int *o, int *t, int *r, int *b)
{
    *b = s / (nt * nt);
    *o = (s / nt) % nt;
    *t = s % nt;
    *r = (*o + *t + 1) % nt;
}

static MPI_Aint esize(int b)
{
    return b == 0 ? (MPI_Aint) sizeof(int) : (MPI_Aint) sizeof(double);
}

/* Window: [acc slots | getacc slots], each slot SLOT elements of 8 bytes (ints use
 * the first half). Byte offset of slot s of part p: */
static MPI_Aint slot_off(int part, int s)
{
    return ((MPI_Aint) part * ncases + s) * SLOT * 8;
}

static void init_window(kind_win_t *w, int nparts)
{
    self_begin(w->win, MPI_LOCK_EXCLUSIVE);
    for (int p = 0; p < nparts; p++)
        for (int s = 0; s < ncases; s++) {
            int o, t, r, b;
            case_of(s, &o, &t, &r, &b);
            for (int j = 0; j < SLOT; j++)
                put_elem(b, (char *) w->base + slot_off(p, s), j, initial(tap_rank, s + p * 7, j));
        }
    self_end(w->win);
}

/* The target side: slot s of part p, accumulated (SUM) by origin `left`. */
static void check_target(const kind_win_t *w, int p, int s, const char *call)
{
    int o, t, r, b;
    case_of(s, &o, &t, &r, &b);
    const dtype_t *dt = &T[t];
    long want[SLOT];
    for (int j = 0; j < SLOT; j++)
        want[j] = initial(tap_rank, s + p * 7, j);
    int left = (tap_rank + tap_size - 1) % tap_size;
    for (int k = 0; k < MOVED; k++)
        want[SHIFT + where(dt, k)] += operand(left, s, k);
    const void *mem = (const char *) w->base + slot_off(p, s);
    for (int j = 0; j < SLOT; j++) {
        long got = get_elem(b, mem, j);
        TAP_CHECK(got == want[j], "%s %s, origin %s, target %s: target element %d is %ld, "
                  "expected %ld", call, b ? "double" : "int", T[o].name, dt->name, j - SHIFT, got,
                  want[j]);
    }
}

/* The origin side: result buffer of slot s holds the right neighbour's old values. */
static void check_result(const void *res, int p, int s, const char *call)
{
    int o, t, r, b;
    case_of(s, &o, &t, &r, &b);
    long want[SLOT];
    int right = (tap_rank + 1) % tap_size;
    for (int j = 0; j < SLOT; j++)
        want[j] = SENT;
    for (int k = 0; k < MOVED; k++)
        want[SHIFT + where(&T[r], k)] = initial(right, s + p * 7, SHIFT + where(&T[t], k));
    for (int j = 0; j < SLOT; j++) {
        long got = get_elem(b, res, j);
        TAP_CHECK(got == want[j], "%s %s, target %s, result %s: result element %d is %ld, "
                  "expected %ld", call, b ? "double" : "int", T[t].name, T[r].name, j - SHIFT, got,
                  want[j]);
    }
}

/* Origin buffers for slot s: operand (in origin type positions) and sentinel results. */
static void fill_origin(void *opnd, void *res, int s)
{
    int o, t, r, b;
    case_of(s, &o, &t, &r, &b);
    for (int j = 0; j < SLOT; j++) {
        put_elem(b, opnd, j, -1);         /* must not be read */
        put_elem(b, res, j, SENT);
    }
    for (int k = 0; k < MOVED; k++)
        put_elem(b, opnd, SHIFT + where(&T[o], k), operand(tap_rank, s, k));
}

static void run(int kind)
{
    int right = (tap_rank + 1) % tap_size;
    size_t slotb = SLOT * 8;
    kind_win_t w = win_open(kind, 4 * (MPI_Aint) ncases * SLOT * 8, 8, 0);
    char *opnd = malloc(slotb * 4 * (size_t) ncases), *res = malloc(slotb * 4 * (size_t) ncases);
    MPI_Request *req = malloc(sizeof(MPI_Request) * 2 * (size_t) ncases);
    init_window(&w, 4);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Parts 0 and 1: MPI_Accumulate and MPI_Get_accumulate in a lock_all epoch. */
    EXPECT_OK(MPI_Win_lock_all(0, w.win), "MPI_Win_lock_all");
    for (int s = 0; s < ncases; s++) {
        int o, t, r, b;
        case_of(s, &o, &t, &r, &b);
        for (int p = 0; p < 2; p++) {
            char *ob = opnd + slotb * ((size_t) p * ncases + s);
            char *rb = res + slotb * ((size_t) p * ncases + s);
            fill_origin(ob, rb, s);
            MPI_Aint disp = (slot_off(p, s) + SHIFT * esize(b)) / 8;
            if (p == 0)
                EXPECT_OK(MPI_Accumulate(ob + SHIFT * esize(b), count_of(&T[o]), T[o].t[b], right, disp,
                                    count_of(&T[t]), T[t].t[b], MPI_SUM, w.win),
                     "MPI_Accumulate %s -> %s", T[o].name, T[t].name);
            else
                EXPECT_OK(MPI_Get_accumulate(ob + SHIFT * esize(b), count_of(&T[o]), T[o].t[b],
                                        rb + SHIFT * esize(b), count_of(&T[r]), T[r].t[b], right,
                                        disp, count_of(&T[t]), T[t].t[b], MPI_SUM, w.win),
                     "MPI_Get_accumulate %s -> %s (result %s)", T[o].name, T[t].name, T[r].name);
        }
    }
    EXPECT_OK(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all");
    for (int s = 0; s < ncases; s++)
        check_result(res + slotb * ((size_t) ncases + s), 1, s, "MPI_Get_accumulate");

    /* Parts 2 and 3: the request forms in a shared-lock epoch. */
    EXPECT_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, w.win), "MPI_Win_lock");
    for (int s = 0; s < ncases; s++) {
        int o, t, r, b;
        case_of(s, &o, &t, &r, &b);
        for (int p = 2; p < 4; p++) {
            char *ob = opnd + slotb * ((size_t) p * ncases + s);
            char *rb = res + slotb * ((size_t) p * ncases + s);
            MPI_Request *rq = &req[(size_t) (p - 2) * ncases + s];
            fill_origin(ob, rb, s);
            MPI_Aint disp = (slot_off(p, s) + SHIFT * esize(b)) / 8;
            if (p == 2)
                EXPECT_OK(MPI_Raccumulate(ob + SHIFT * esize(b), count_of(&T[o]), T[o].t[b], right,
                                     disp, count_of(&T[t]), T[t].t[b], MPI_SUM, w.win, rq),
                     "MPI_Raccumulate %s -> %s", T[o].name, T[t].name);
            else
                EXPECT_OK(MPI_Rget_accumulate(ob + SHIFT * esize(b), count_of(&T[o]), T[o].t[b],
                                         rb + SHIFT * esize(b), count_of(&T[r]), T[r].t[b], right,
                                         disp, count_of(&T[t]), T[t].t[b], MPI_SUM, w.win, rq),
                     "MPI_Rget_accumulate %s -> %s (result %s)", T[o].name, T[t].name, T[r].name);
        }
        /* every third case completes at once with MPI_Wait, the rest with one Waitall */
        if (s % 3 == 0) {
            EXPECT_OK(MPI_Wait(&req[s], MPI_STATUS_IGNORE), "MPI_Wait");
            EXPECT_OK(MPI_Wait(&req[(size_t) ncases + s], MPI_STATUS_IGNORE), "MPI_Wait");
            check_result(res + slotb * ((size_t) 3 * ncases + s), 3, s, "MPI_Rget_accumulate");
        }
    }
    MPI_Status *st = malloc(sizeof(MPI_Status) * 2 * (size_t) ncases);
    EXPECT_OK(MPI_Waitall(2 * ncases, req, st), "MPI_Waitall");
    free(st);
    for (int s = 0; s < ncases; s++) {
        TAP_CHECK(req[s] == MPI_REQUEST_NULL && req[ncases + s] == MPI_REQUEST_NULL,
                  "a completed request was not set to MPI_REQUEST_NULL");
        if (s % 3)
            check_result(res + slotb * ((size_t) 3 * ncases + s), 3, s, "MPI_Rget_accumulate");
    }
    EXPECT_OK(MPI_Win_unlock(right, w.win), "MPI_Win_unlock");
    MPI_Barrier(MPI_COMM_WORLD);

    self_begin(w.win, MPI_LOCK_EXCLUSIVE);
    for (int s = 0; s < ncases; s++) {
        check_target(&w, 0, s, "MPI_Accumulate");
        check_target(&w, 1, s, "MPI_Get_accumulate");
        check_target(&w, 2, s, "MPI_Raccumulate");
        check_target(&w, 3, s, "MPI_Rget_accumulate");
    }
    self_end(w.win);

    free(req);
    free(opnd);
    free(res);
    win_close(&w);
    tap_ok("%s: MPI_SUM with %d x %d (origin, target) derived types of int and of double, "
           "Accumulate, Get_accumulate with a derived result type, Raccumulate, "
           "Rget_accumulate", win_kind_name[kind], nt, nt);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    types_build();
    ncases = 2 * nt * nt;
    /* the hand-made positions against the extents MPI computed */
    for (int i = 0; i < nt; i++) {
        MPI_Aint lb, ext, lbd, extd;
        MPI_Type_get_extent(T[i].t[0], &lb, &ext);
        MPI_Type_get_extent(T[i].t[1], &lbd, &extd);
        TAP_CHECK(ext * 2 == extd && lb * 2 == lbd, "%s: extents of the int and double versions "
                  "disagree", T[i].name);
        for (int k = 0; k < MOVED; k++)
            TAP_CHECK(SHIFT + where(&T[i], k) >= 0 && SHIFT + where(&T[i], k) < SLOT,
                      "%s: element %d falls outside its slot", T[i].name, k);
    }
    tap_ok("%d derived types, int and double versions, fit their slots", nt);
    run(WIN_ALLOCATE);
    run(WIN_CREATE);
    for (int i = 0; i < nt; i++)
        for (int b = 0; b < 2; b++)
            MPI_Type_free(&T[i].t[b]);
    return tap_done();
}
