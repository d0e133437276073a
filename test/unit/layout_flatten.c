/*
 * layout_flatten: a datatype's rmaib layout gathers exactly the bytes MPI_Pack packs,
 * in the same order, for one element and for three, and reports the size, bounds and
 * basic type MPI would.  Covers every constructor, nesting, pair types, zero-count
 * types, dup, a recycled handle, large counts, and the refusal of uncommitted types.
 * One rank.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "../rma/tap.h"
#include "../../src/binding/mpi/datatype.h"

#define ANY_BASIC (-1)           /* don't check the basic kind */

static rmaib_basic_t sint_of(size_t n)
{
    return n == 1 ? RMAIB_BASIC_INT8 : n == 2 ? RMAIB_BASIC_INT16 : n == 4 ? RMAIB_BASIC_INT32
        : n == 8 ? RMAIB_BASIC_INT64 : RMAIB_BASIC_NONE;
}

static rmaib_basic_t uint_of(size_t n)
{
    return n == 1 ? RMAIB_BASIC_UINT8 : n == 2 ? RMAIB_BASIC_UINT16 : n == 4 ? RMAIB_BASIC_UINT32
        : n == 8 ? RMAIB_BASIC_UINT64 : RMAIB_BASIC_NONE;
}

static unsigned char pattern(size_t i)
{
    return (unsigned char) (i * 131u + (i >> 8) * 7u + 13u);
}

/* The fields against MPI's own answers, and the block list's invariants. */
static void check_fields(const char *name, MPI_Datatype dt, const rmaib_layout_t *l, int basic)
{
    MPI_Count size, lb, extent, tlb, text;
    size_t total = 0;

    MPI_Type_size_x(dt, &size);
    MPI_Type_get_extent_x(dt, &lb, &extent);
    MPI_Type_get_true_extent_x(dt, &tlb, &text);
    TAP_CHECK(l->size == (size_t) size, "%s: size %zu, MPI says %lld", name, l->size, (long long) size);
    TAP_CHECK(l->extent == extent, "%s: extent %lld, MPI says %lld", name, (long long) l->extent,
              (long long) extent);
    TAP_CHECK(l->true_lb == tlb && l->true_ub == tlb + text, "%s: true bounds [%lld,%lld), MPI says [%lld,%lld)",
              name, (long long) l->true_lb, (long long) l->true_ub, (long long) tlb, (long long) (tlb + text));
    for (size_t j = 0; j < l->nblocks; j++) {
        const rmaib_block_t *b = &l->blocks[j];
        total += b->len;
        TAP_CHECK(b->len > 0, "%s: block %zu is empty", name, j);
        TAP_CHECK(b->disp >= l->true_lb && b->disp + (int64_t) b->len <= l->true_ub,
                  "%s: block %zu [%lld,+%zu) outside the true bounds", name, j, (long long) b->disp, b->len);
        if (j > 0)
            TAP_CHECK(l->blocks[j - 1].disp + (int64_t) l->blocks[j - 1].len != b->disp,
                      "%s: blocks %zu and %zu are adjacent but not merged", name, j - 1, j);
    }
    TAP_CHECK(total == (size_t) size, "%s: blocks hold %zu bytes, size is %lld", name, total, (long long) size);
    int contig = l->nblocks == 1 && l->blocks[0].disp == 0 && l->blocks[0].len == (size_t) size
        && extent == size;
    TAP_CHECK(l->contig == contig, "%s: contig %d, expected %d", name, l->contig, contig);
    if (basic != ANY_BASIC)
        TAP_CHECK((int) l->basic == basic, "%s: basic %d, expected %d", name, (int) l->basic, basic);
    if (l->basic == RMAIB_BASIC_NONE)
        TAP_CHECK(l->basic_size == 0, "%s: basic NONE with basic_size %zu", name, l->basic_size);
    else
        TAP_CHECK(l->basic_size > 0 && (size == 0 || size % (MPI_Count) l->basic_size == 0),
                  "%s: basic_size %zu does not divide size %lld", name, l->basic_size, (long long) size);
}

/* MPI_Pack count elements and gather the same elements through the layout. */
static void check_pack(const char *name, MPI_Datatype dt, const rmaib_layout_t *l, int count)
{
    int64_t lo, hi;
    int psize = 0, pos = 0;
    size_t span, got = 0;

    rmaib_layout_span(l, (size_t) count, &lo, &hi);
    span = hi > lo ? (size_t) (hi - lo) : 0;
    unsigned char *buf = malloc(span + 1);
    for (size_t i = 0; i < span; i++)
        buf[i] = pattern(i);
    const unsigned char *origin = (const unsigned char *) ((uintptr_t) buf - (uintptr_t) lo);

    MPI_Pack_size(count, dt, MPI_COMM_SELF, &psize);
    unsigned char *packed = malloc((size_t) psize + 1), *gathered = malloc((size_t) psize + 1);
    MPI_Pack(origin, count, dt, packed, psize, &pos, MPI_COMM_SELF);
    TAP_CHECK((size_t) pos == (size_t) count * l->size, "%s x%d: packed %d bytes, layout says %zu",
              name, count, pos, (size_t) count * l->size);

    for (int e = 0; e < count; e++)
        for (size_t j = 0; j < l->nblocks; j++) {
            const rmaib_block_t *b = &l->blocks[j];
            int64_t at = (int64_t) e * l->extent + b->disp;
            if (at < lo || at + (int64_t) b->len > hi || got + b->len > (size_t) pos) {
                tap_fail("%s x%d: block %zu of element %d falls outside the span", name, count, j, e);
                goto out;
            }
            memcpy(gathered + got, origin + at, b->len);
            got += b->len;
        }
    TAP_CHECK(got == (size_t) pos, "%s x%d: gathered %zu bytes, packed %d", name, count, got, pos);
    for (size_t i = 0; i < got; i++)
        if (gathered[i] != packed[i]) {
            tap_fail("%s x%d: byte %zu gathered %#x, packed %#x", name, count, i, gathered[i], packed[i]);
            break;
        }
  out:
    free(gathered);
    free(packed);
    free(buf);
}

/* The whole check for one committed type, as one TAP line. */
static const rmaib_layout_t *check_type(const char *name, MPI_Datatype dt, int basic)
{
    int err = MPI_SUCCESS;
    const rmaib_layout_t *l = rmaib_mpi_layout(dt, &err);

    TAP_CHECK(l != NULL, "%s: no layout (error class %d)", name, err);
    if (l) {
        check_fields(name, dt, l, basic);
        check_pack(name, dt, l, 1);
        check_pack(name, dt, l, 3);
        TAP_CHECK(rmaib_mpi_layout(dt, &err) == l, "%s: second lookup gave another layout", name);
    }
    tap_ok("%s", name);
    return l;
}

static MPI_Datatype committed(MPI_Datatype t)
{
    MPI_Type_commit(&t);
    return t;
}

/* Check, then free. */
static void check_free(const char *name, MPI_Datatype t, int basic)
{
    check_type(name, t, basic);
    MPI_Type_free(&t);
}

struct predefined {
    MPI_Datatype dt;
    const char *name;
    int basic;
};

static void test_predefined(void)
{
#define P(t, b) { t, #t, b }
    const struct predefined types[] = {
        P(MPI_CHAR, RMAIB_BASIC_CHAR),
        P(MPI_SIGNED_CHAR, RMAIB_BASIC_INT8),
        P(MPI_UNSIGNED_CHAR, RMAIB_BASIC_UINT8),
        P(MPI_BYTE, RMAIB_BASIC_BYTE),
        P(MPI_PACKED, RMAIB_BASIC_BYTE),
        P(MPI_WCHAR, sizeof(wchar_t) == 4 ? RMAIB_BASIC_OPAQUE4 : RMAIB_BASIC_NONE),
        P(MPI_SHORT, sint_of(sizeof(short))),
        P(MPI_UNSIGNED_SHORT, uint_of(sizeof(short))),
        P(MPI_INT, sint_of(sizeof(int))),
        P(MPI_UNSIGNED, uint_of(sizeof(int))),
        P(MPI_LONG, sint_of(sizeof(long))),
        P(MPI_UNSIGNED_LONG, uint_of(sizeof(long))),
        P(MPI_LONG_LONG_INT, sint_of(sizeof(long long))),
        P(MPI_LONG_LONG, sint_of(sizeof(long long))),
        P(MPI_UNSIGNED_LONG_LONG, uint_of(sizeof(long long))),
        P(MPI_FLOAT, RMAIB_BASIC_FLOAT),
        P(MPI_DOUBLE, RMAIB_BASIC_DOUBLE),
        P(MPI_LONG_DOUBLE, RMAIB_BASIC_LONG_DOUBLE),
        P(MPI_C_BOOL, RMAIB_BASIC_BOOL),
        P(MPI_INT8_T, RMAIB_BASIC_INT8),
        P(MPI_INT16_T, RMAIB_BASIC_INT16),
        P(MPI_INT32_T, RMAIB_BASIC_INT32),
        P(MPI_INT64_T, RMAIB_BASIC_INT64),
        P(MPI_UINT8_T, RMAIB_BASIC_UINT8),
        P(MPI_UINT16_T, RMAIB_BASIC_UINT16),
        P(MPI_UINT32_T, RMAIB_BASIC_UINT32),
        P(MPI_UINT64_T, RMAIB_BASIC_UINT64),
        P(MPI_C_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX),
        P(MPI_C_FLOAT_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX),
        P(MPI_C_DOUBLE_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX),
        P(MPI_C_LONG_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX),
        P(MPI_AINT, sint_of(sizeof(MPI_Aint))),
        P(MPI_OFFSET, sint_of(sizeof(MPI_Offset))),
        P(MPI_COUNT, sint_of(sizeof(MPI_Count))),
        P(MPI_FLOAT_INT, RMAIB_BASIC_FLOAT_INT),
        P(MPI_DOUBLE_INT, RMAIB_BASIC_DOUBLE_INT),
        P(MPI_LONG_INT, RMAIB_BASIC_LONG_INT),
        P(MPI_2INT, RMAIB_BASIC_2INT),
        P(MPI_SHORT_INT, RMAIB_BASIC_SHORT_INT),
        P(MPI_LONG_DOUBLE_INT, RMAIB_BASIC_LONG_DOUBLE_INT),
        P(MPI_CHARACTER, RMAIB_BASIC_CHAR),
        P(MPI_INTEGER, ANY_BASIC),
        P(MPI_LOGICAL, ANY_BASIC),
        P(MPI_REAL, ANY_BASIC),
        P(MPI_DOUBLE_PRECISION, ANY_BASIC),
        P(MPI_COMPLEX, ANY_BASIC),
        P(MPI_DOUBLE_COMPLEX, ANY_BASIC),
        P(MPI_2INTEGER, ANY_BASIC),
        P(MPI_2REAL, ANY_BASIC),
        P(MPI_2DOUBLE_PRECISION, ANY_BASIC),
    };
#undef P
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (types[i].dt == MPI_DATATYPE_NULL) {
            tap_skip(types[i].name, "MPI_DATATYPE_NULL in this MPI");
            continue;
        }
        check_type(types[i].name, types[i].dt, types[i].basic);
    }

    /* The Fortran numeric types are C types of their width. */
    if (MPI_INTEGER != MPI_DATATYPE_NULL && MPI_REAL != MPI_DATATYPE_NULL
        && MPI_DOUBLE_PRECISION != MPI_DATATYPE_NULL && MPI_DOUBLE_COMPLEX != MPI_DATATYPE_NULL) {
        int si, sr, sd, sz;
        MPI_Type_size(MPI_INTEGER, &si);
        MPI_Type_size(MPI_REAL, &sr);
        MPI_Type_size(MPI_DOUBLE_PRECISION, &sd);
        MPI_Type_size(MPI_DOUBLE_COMPLEX, &sz);
        TAP_CHECK(rmaib_mpi_basic(MPI_INTEGER) == sint_of((size_t) si), "MPI_INTEGER basic");
        TAP_CHECK(sr != 4 || rmaib_mpi_basic(MPI_REAL) == RMAIB_BASIC_FLOAT, "MPI_REAL basic");
        TAP_CHECK(sd != 8 || rmaib_mpi_basic(MPI_DOUBLE_PRECISION) == RMAIB_BASIC_DOUBLE,
                  "MPI_DOUBLE_PRECISION basic");
        TAP_CHECK(sz != 16 || rmaib_mpi_basic(MPI_DOUBLE_COMPLEX) == RMAIB_BASIC_C_DOUBLE_COMPLEX,
                  "MPI_DOUBLE_COMPLEX basic");
        TAP_CHECK(sr != 4 || rmaib_mpi_basic(MPI_2REAL) == RMAIB_BASIC_2FLOAT, "MPI_2REAL basic");
        TAP_CHECK(sd != 8 || rmaib_mpi_basic(MPI_2DOUBLE_PRECISION) == RMAIB_BASIC_2DOUBLE,
                  "MPI_2DOUBLE_PRECISION basic");
        int sl;
        MPI_Type_size(MPI_LOGICAL, &sl);
        TAP_CHECK(rmaib_mpi_basic(MPI_LOGICAL)
                  == (sl == 4 ? RMAIB_BASIC_LOGICAL4 : RMAIB_BASIC_NONE), "MPI_LOGICAL basic");
        tap_ok("Fortran numeric types map to the C type of their width");
    } else {
        tap_skip("Fortran numeric types map to the C type of their width", "no Fortran types");
    }

    /* Contiguous basics are one block at 0; the pair types keep their holes. */
    const rmaib_layout_t *l;
    int err;
    l = rmaib_mpi_layout(MPI_INT, &err);
    TAP_CHECK(l && l->contig && l->nblocks == 1 && l->basic_size == sizeof(int), "MPI_INT is one int");
    l = rmaib_mpi_layout(MPI_SHORT_INT, &err);
    TAP_CHECK(l && !l->contig && l->nblocks == 2, "MPI_SHORT_INT: value, hole, index");
    l = rmaib_mpi_layout(MPI_DOUBLE_INT, &err);
    TAP_CHECK(l && !l->contig && l->extent > (int64_t) l->size, "MPI_DOUBLE_INT is padded");
    TAP_CHECK(rmaib_mpi_basic(MPI_DOUBLE_INT) == RMAIB_BASIC_DOUBLE_INT, "rmaib_mpi_basic(MPI_DOUBLE_INT)");
    TAP_CHECK(rmaib_mpi_basic(MPI_DATATYPE_NULL) == RMAIB_BASIC_NONE, "rmaib_mpi_basic(MPI_DATATYPE_NULL)");
    tap_ok("predefined layouts: contiguous basics, padded pairs");
}

static void test_simple_combiners(void)
{
    MPI_Datatype t;

    MPI_Type_contiguous(5, MPI_INT, &t);
    check_free("contiguous 5 x int", committed(t), RMAIB_BASIC_INT32);

    MPI_Type_vector(3, 2, 4, MPI_DOUBLE, &t);
    check_free("vector 3 x 2 doubles, stride 4", committed(t), RMAIB_BASIC_DOUBLE);

    MPI_Type_vector(4, 2, 2, MPI_INT, &t);
    t = committed(t);
    {
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->nblocks == 1 && l->contig, "vector with stride == blocklength is one run");
    }
    check_free("vector with stride == blocklength merges", t, RMAIB_BASIC_INT32);

    MPI_Type_vector(3, 1, 0, MPI_INT, &t);
    t = committed(t);
    {
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->nblocks == 3, "stride-0 vector keeps its 3 repeats");
    }
    check_free("vector with stride 0 reads one int thrice", t, RMAIB_BASIC_INT32);

    MPI_Type_vector(3, 2, -3, MPI_INT, &t);
    check_free("vector with negative stride", committed(t), RMAIB_BASIC_INT32);

    MPI_Type_create_hvector(4, 3, 20, MPI_SHORT, &t);
    check_free("hvector 4 x 3 shorts, 20 bytes apart", committed(t), RMAIB_BASIC_INT16);

    MPI_Type_create_hvector(3, 1, -16, MPI_DOUBLE, &t);
    check_free("hvector with negative stride", committed(t), RMAIB_BASIC_DOUBLE);

    {
        int bl[] = { 2, 1, 3 }, disp[] = { 5, 0, 1 };
        MPI_Type_indexed(3, bl, disp, MPI_INT, &t);
        t = committed(t);
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        /* type-map order: [20,28) then [0,4) and [4,16), which merge */
        TAP_CHECK(l && l->nblocks == 2 && l->blocks[0].disp == 20 && l->blocks[1].disp == 0
                  && l->blocks[1].len == 16, "indexed blocks stay in type-map order");
        check_free("indexed, displacements out of order", t, RMAIB_BASIC_INT32);
    }
    {
        int bl[] = { 1, 2, 1 }, disp[] = { 0, 1, 3 };
        MPI_Type_indexed(3, bl, disp, MPI_FLOAT, &t);
        t = committed(t);
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->nblocks == 1 && l->contig, "adjacent indexed blocks merge to one");
        check_free("indexed, adjacent blocks", t, RMAIB_BASIC_FLOAT);
    }
    {
        int bl[] = { 2, 1 };
        MPI_Aint disp[] = { -12, 8 };
        MPI_Type_create_hindexed(2, bl, disp, MPI_FLOAT, &t);
        t = committed(t);
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->true_lb == -12, "hindexed true_lb is -12");
        check_free("hindexed with a negative displacement", t, RMAIB_BASIC_FLOAT);
    }
    {
        int disp[] = { 4, 0, 8 };
        MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t);
        check_free("indexed_block", committed(t), RMAIB_BASIC_INT32);
    }
    {
        MPI_Aint disp[] = { 16, 0, 40 };
        MPI_Type_create_hindexed_block(3, 1, disp, MPI_DOUBLE, &t);
        check_free("hindexed_block", committed(t), RMAIB_BASIC_DOUBLE);
    }
}

struct gappy {
    char c;
    double d;
    int i;
};

static MPI_Datatype gappy_type(void)
{
    int bl[] = { 1, 1, 1 };
    MPI_Aint disp[] = { offsetof(struct gappy, c), offsetof(struct gappy, d), offsetof(struct gappy, i) };
    MPI_Datatype types[] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, s, r;

    MPI_Type_create_struct(3, bl, disp, types, &s);
    MPI_Type_create_resized(s, 0, sizeof(struct gappy), &r);
    MPI_Type_free(&s);
    return r;
}

static void test_struct_resized(void)
{
    MPI_Datatype t, u;

    check_free("struct {char, double, int} with gaps", committed(gappy_type()), RMAIB_BASIC_NONE);

    {
        int bl[] = { 1, 2 };
        MPI_Aint disp[] = { 0, 12 };
        MPI_Datatype types[] = { MPI_INT, MPI_INT };
        MPI_Type_create_struct(2, bl, disp, types, &t);
        check_free("struct of ints with a gap is int", committed(t), RMAIB_BASIC_INT32);
    }
    {
        int bl[] = { 1, 1 };
        MPI_Aint disp[] = { 0, 4 };
        MPI_Datatype types[] = { MPI_INT, MPI_INT32_T };
        MPI_Type_create_struct(2, bl, disp, types, &t);
        check_free("struct {int, int32_t}: one basic kind", committed(t), RMAIB_BASIC_INT32);
    }

    MPI_Type_vector(2, 1, 2, MPI_INT, &u);
    MPI_Type_create_resized(u, -8, 32, &t);
    MPI_Type_free(&u);
    t = committed(t);
    {
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->extent == 32 && l->true_lb == 0, "resized: extent 32, data from 0");
    }
    check_free("resized to a negative lb", t, RMAIB_BASIC_INT32);

    MPI_Type_contiguous(4, MPI_INT, &u);
    MPI_Type_create_resized(u, 0, 8, &t);
    MPI_Type_free(&u);
    check_free("resized smaller than its data (elements overlap)", committed(t), RMAIB_BASIC_INT32);

    {
        MPI_Datatype v;
        MPI_Type_vector(2, 1, 2, MPI_INT, &v);
        MPI_Type_create_resized(v, 0, 8, &t);
        MPI_Type_free(&v);
        check_free("resized vector whose elements interleave", committed(t), RMAIB_BASIC_INT32);
    }
}

static void test_nested(void)
{
    MPI_Datatype g = gappy_type(), t, a, b;

    MPI_Type_vector(3, 2, 3, g, &t);
    check_free("vector of a gappy struct", committed(t), RMAIB_BASIC_NONE);

    {
        int bl[] = { 1, 2 };
        MPI_Aint hdisp[] = { 8, -40 };
        MPI_Type_vector(2, 1, 3, MPI_INT, &a);
        MPI_Type_create_hindexed(2, bl, hdisp, MPI_INT, &b);
        int sbl[] = { 2, 1 };
        MPI_Aint sdisp[] = { 0, 64 };
        MPI_Datatype types[] = { a, b };
        MPI_Type_create_struct(2, sbl, sdisp, types, &t);
        check_free("struct of a vector and an hindexed, all int", committed(t), RMAIB_BASIC_INT32);
        MPI_Type_free(&a);
        MPI_Type_free(&b);
    }

    /* Deep: resized/vector/contiguous/hvector/indexed, twelve levels. */
    MPI_Type_contiguous(1, MPI_SHORT, &t);
    for (int level = 0; level < 12; level++) {
        MPI_Datatype n;
        switch (level % 4) {
        case 0:
            MPI_Type_vector(2, 1, 2, t, &n);
            break;
        case 1: {
            MPI_Aint lb, extent;
            MPI_Type_get_extent(t, &lb, &extent);
            MPI_Type_create_resized(t, lb - 2, extent + 6, &n);
            break;
        }
        case 2:
            MPI_Type_create_hvector(2, 1, -100 * (level + 1), t, &n);
            break;
        default: {
            int bl[] = { 1, 1 }, disp[] = { 3, 0 };
            MPI_Type_indexed(2, bl, disp, t, &n);
            break;
        }
        }
        MPI_Type_free(&t);
        t = n;
    }
    check_free("twelve levels of nesting", committed(t), RMAIB_BASIC_INT16);

    MPI_Type_free(&g);
}

static void test_pairs(void)
{
    MPI_Datatype t;

    MPI_Type_vector(2, 1, 3, MPI_2INT, &t);
    check_free("vector of MPI_2INT", committed(t), RMAIB_BASIC_2INT);

    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
    check_free("contiguous of MPI_DOUBLE_INT", committed(t), RMAIB_BASIC_DOUBLE_INT);

    MPI_Type_create_hvector(3, 2, 40, MPI_SHORT_INT, &t);
    check_free("hvector of MPI_SHORT_INT", committed(t), RMAIB_BASIC_SHORT_INT);

    MPI_Type_vector(2, 2, 3, MPI_LONG_DOUBLE_INT, &t);
    check_free("vector of MPI_LONG_DOUBLE_INT", committed(t), RMAIB_BASIC_LONG_DOUBLE_INT);

    {
        int bl[] = { 1, 1 };
        MPI_Aint disp[] = { 0, 16 };
        MPI_Datatype types[] = { MPI_FLOAT_INT, MPI_INT };
        MPI_Type_create_struct(2, bl, disp, types, &t);
        check_free("struct {MPI_FLOAT_INT, int} mixes kinds", committed(t), RMAIB_BASIC_NONE);
    }
}

static void test_subarray_darray(void)
{
    MPI_Datatype t, g = gappy_type();
    int sizes[] = { 4, 5, 6 }, subs[] = { 2, 3, 4 }, starts[] = { 1, 1, 2 };

    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
    check_free("subarray 3-d, C order", committed(t), RMAIB_BASIC_INT32);

    MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    check_free("subarray 3-d, Fortran order", committed(t), RMAIB_BASIC_INT32);

    {
        int s2[] = { 5, 4 }, sub2[] = { 3, 4 }, st2[] = { 2, 0 };
        MPI_Type_create_subarray(2, s2, sub2, st2, MPI_ORDER_C, MPI_DOUBLE, &t);
        t = committed(t);
        int err;
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->nblocks == 1, "full rows of a C subarray are one run");
        check_free("subarray of whole rows merges", t, RMAIB_BASIC_DOUBLE);
    }
    {
        int s2[] = { 4, 3 }, sub2[] = { 2, 2 }, st2[] = { 1, 1 };
        MPI_Type_create_subarray(2, s2, sub2, st2, MPI_ORDER_FORTRAN, g, &t);
        check_free("subarray of a gappy struct", committed(t), RMAIB_BASIC_NONE);
    }
    {
        int s1[] = { 10 }, sub1[] = { 1 }, st1[] = { 9 };
        MPI_Type_create_subarray(1, s1, sub1, st1, MPI_ORDER_C, MPI_INT, &t);
        check_free("1-d subarray: the last element", committed(t), RMAIB_BASIC_INT32);
    }

    {
        int gs[] = { 8, 10 }, dist[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK },
            darg[] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[] = { 2, 2 };
        MPI_Type_create_darray(4, 1, 2, gs, dist, darg, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
        check_free("darray block x block, rank 1 of 2x2, C order", committed(t), RMAIB_BASIC_DOUBLE);
    }
    {
        int gs[] = { 9, 7 }, dist[] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK },
            darg[] = { 2, MPI_DISTRIBUTE_DFLT_DARG }, ps[] = { 3, 2 };
        MPI_Type_create_darray(6, 4, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
        check_free("darray cyclic(2) x block, rank 4 of 3x2, Fortran order", committed(t), RMAIB_BASIC_INT32);
    }
    {
        int gs[] = { 6, 5, 4 }, dist[] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC },
            darg[] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 3 }, ps[] = { 2, 1, 2 };
        MPI_Type_create_darray(4, 3, 3, gs, dist, darg, ps, MPI_ORDER_C, g, &t);
        check_free("darray cyclic x none x cyclic(3) of a gappy struct", committed(t), RMAIB_BASIC_NONE);
    }
    MPI_Type_free(&g);
}

static void test_zero_and_dup(void)
{
    MPI_Datatype t, v;
    int err;

    MPI_Type_contiguous(0, MPI_INT, &t);
    t = committed(t);
    {
        const rmaib_layout_t *l = rmaib_mpi_layout(t, &err);
        TAP_CHECK(l && l->nblocks == 0 && l->size == 0, "contiguous 0: no blocks");
    }
    check_free("contiguous of 0 ints", t, RMAIB_BASIC_INT32);

    MPI_Type_vector(0, 3, 5, MPI_DOUBLE, &t);
    check_free("vector of count 0", committed(t), RMAIB_BASIC_DOUBLE);

    {
        int bl[] = { 0, 0 }, disp[] = { 4, 1 };
        MPI_Type_indexed(2, bl, disp, MPI_SHORT, &t);
        check_free("indexed with zero-length blocks", committed(t), RMAIB_BASIC_INT16);
    }
    {
        int bl[] = { 0, 2, 0 };
        MPI_Aint disp[] = { 0, 8, 24 };
        MPI_Datatype types[] = { MPI_DOUBLE, MPI_INT, MPI_CHAR };
        MPI_Type_create_struct(3, bl, disp, types, &t);
        check_free("struct whose only data is int", committed(t), RMAIB_BASIC_INT32);
    }

    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    v = committed(v);
    MPI_Type_dup(v, &t);
    {
        const rmaib_layout_t *lv = rmaib_mpi_layout(v, &err), *lt = rmaib_mpi_layout(t, &err);
        TAP_CHECK(lv && lt && lv != lt, "a dup has its own layout");
        TAP_CHECK(lv && lt && lv->nblocks == lt->nblocks
                  && !memcmp(lv->blocks, lt->blocks, lv->nblocks * sizeof *lv->blocks),
                  "a dup has the same blocks");
    }
    MPI_Type_free(&v);
    check_free("dup of a vector, after the vector is freed", t, RMAIB_BASIC_INT32);

    MPI_Type_dup(MPI_DOUBLE, &t);
    check_free("dup of MPI_DOUBLE", t, RMAIB_BASIC_DOUBLE);
}

static void test_lifecycle(void)
{
    MPI_Datatype t, old;
    int err = MPI_SUCCESS;
    const rmaib_layout_t *l;

    /* A freed handle reused by MPI must not bring back the old layout. */
    MPI_Type_vector(3, 1, 2, MPI_INT, &t);
    t = committed(t);
    l = rmaib_mpi_layout(t, &err);
    TAP_CHECK(l && l->nblocks == 3, "vector before free has 3 blocks");
    old = t;
    MPI_Type_free(&t);
    MPI_Type_contiguous(7, MPI_CHAR, &t);
    t = committed(t);
    if (t == old)
        printf("# the freed handle was reused\n");
    l = rmaib_mpi_layout(t, &err);
    TAP_CHECK(l && l->nblocks == 1 && l->size == 7 && l->basic == RMAIB_BASIC_CHAR,
              "the new type gets its own layout");
    tap_ok("a freed handle reused for a new type");
    check_free("the new type behind a reused handle", t, RMAIB_BASIC_CHAR);

    /* An operation may hold a layout past MPI_Type_free. */
    MPI_Type_vector(2, 2, 3, MPI_DOUBLE, &t);
    t = committed(t);
    l = rmaib_mpi_layout(t, &err);
    if (l) {
        rmaib_mpi_layout_hold(l);
        MPI_Type_free(&t);
        TAP_CHECK(l->nblocks == 2 && l->size == 4 * sizeof(double) && l->blocks[1].disp == 24,
                  "held layout readable after MPI_Type_free");
        rmaib_mpi_layout_release(l);
    } else {
        TAP_CHECK(0, "no layout to hold");
    }
    l = rmaib_mpi_layout(MPI_INT, &err);
    rmaib_mpi_layout_hold(l);
    rmaib_mpi_layout_release(l);
    rmaib_mpi_layout_release(l);     /* predefined: never freed */
    TAP_CHECK(rmaib_mpi_layout(MPI_INT, &err)->size == sizeof(int), "predefined layouts ignore release");
    tap_ok("hold keeps a layout past MPI_Type_free");
}

static void test_errors(void)
{
    MPI_Datatype t, c, s;
    MPI_Errhandler before, after;
    int err = MPI_SUCCESS;

    MPI_Comm_get_errhandler(MPI_COMM_SELF, &before);
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    TAP_CHECK(rmaib_mpi_layout(t, &err) == NULL, "an uncommitted type has no layout");
    TAP_CHECK(err == MPI_ERR_TYPE, "uncommitted type: error class %d, want MPI_ERR_TYPE", err);
    MPI_Comm_get_errhandler(MPI_COMM_SELF, &after);
    TAP_CHECK(before == after, "MPI_COMM_SELF's error handler is restored");
    MPI_Errhandler_free(&after);
    MPI_Errhandler_free(&before);
    tap_ok("an uncommitted type is refused with MPI_ERR_TYPE");

    MPI_Type_commit(&t);
    err = MPI_SUCCESS;
    TAP_CHECK(rmaib_mpi_layout(t, &err) != NULL, "after commit it has one (error class %d)", err);
    MPI_Type_free(&t);
    err = MPI_SUCCESS;
    TAP_CHECK(rmaib_mpi_layout(MPI_DATATYPE_NULL, &err) == NULL && err == MPI_ERR_TYPE,
              "MPI_DATATYPE_NULL is refused with MPI_ERR_TYPE");
    tap_ok("commit makes it usable; MPI_DATATYPE_NULL is refused");

    /* Components need not be committed, only the type handed over. */
    {
        int sizes[] = { 6, 6 }, subs[] = { 2, 3 }, starts[] = { 3, 1 };
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &s);
        MPI_Type_contiguous(2, s, &c);
        check_free("committed contiguous of an uncommitted subarray", committed(c), RMAIB_BASIC_INT32);
        MPI_Type_free(&s);
    }
    {
        int gs[] = { 10 }, dist[] = { MPI_DISTRIBUTE_CYCLIC }, darg[] = { 3 }, ps[] = { 2 };
        MPI_Type_create_darray(2, 1, 1, gs, dist, darg, ps, MPI_ORDER_C, MPI_FLOAT, &s);
        MPI_Type_vector(2, 1, 2, s, &c);
        check_free("committed vector of an uncommitted darray", committed(c), RMAIB_BASIC_FLOAT);
        MPI_Type_free(&s);
    }
}

static void test_huge(void)
{
    MPI_Datatype big, t;
    int err = MPI_SUCCESS;
    const rmaib_layout_t *l;

    /* 8 GiB in one element: one block, no 2^31-step loop, no int overflow. */
    MPI_Type_contiguous(INT_MAX, MPI_BYTE, &big);
    MPI_Type_contiguous(4, big, &t);
    t = committed(t);
    l = rmaib_mpi_layout(t, &err);
    TAP_CHECK(l != NULL, "no layout for 8 GiB contiguous (class %d)", err);
    if (l) {
        check_fields("8 GiB contiguous", t, l, RMAIB_BASIC_BYTE);
        TAP_CHECK(l->nblocks == 1 && l->size == 4 * (size_t) INT_MAX && l->contig, "one 8 GiB run");
    }
    MPI_Type_free(&t);
    MPI_Type_free(&big);
    tap_ok("8 GiB contiguous is one block");

    MPI_Type_create_hvector(2, 1, (MPI_Aint) 1 << 33, MPI_INT, &t);
    t = committed(t);
    l = rmaib_mpi_layout(t, &err);
    TAP_CHECK(l && l->nblocks == 2 && l->blocks[1].disp == (int64_t) 1 << 33
              && l->true_ub == ((int64_t) 1 << 33) + 4, "hvector 8 GiB apart");
    if (l)
        check_fields("hvector 8 GiB apart", t, l, RMAIB_BASIC_INT32);
    MPI_Type_free(&t);
    tap_ok("hvector with an 8 GiB stride");

#if MPI_VERSION >= 4
    MPI_Type_contiguous_c((MPI_Count) 3 << 31, MPI_INT, &t);
    t = committed(t);
    l = rmaib_mpi_layout(t, &err);
    TAP_CHECK(l && l->nblocks == 1 && l->size == ((size_t) 3 << 31) * sizeof(int), "contiguous_c 3 * 2^31 ints");
    if (l)
        check_fields("contiguous_c 3 * 2^31 ints", t, l, RMAIB_BASIC_INT32);
    MPI_Type_free(&t);
    tap_ok("large-count contiguous_c");

    MPI_Type_vector_c(3, 2, 5, MPI_INT, &t);
    check_free("vector_c", committed(t), RMAIB_BASIC_INT32);
    MPI_Type_create_hvector_c(3, 2, -24, MPI_SHORT, &t);
    check_free("hvector_c", committed(t), RMAIB_BASIC_INT16);
    {
        MPI_Count bl[] = { 2, 1, 3 }, disp[] = { 5, 0, 1 };
        MPI_Type_indexed_c(3, bl, disp, MPI_INT, &t);
        check_free("indexed_c", committed(t), RMAIB_BASIC_INT32);
        MPI_Type_create_hindexed_c(3, bl, disp, MPI_DOUBLE, &t);
        check_free("hindexed_c (overlapping)", committed(t), RMAIB_BASIC_DOUBLE);
        MPI_Count d2[] = { 4, 0, 8 };
        MPI_Type_create_indexed_block_c(3, 2, d2, MPI_INT, &t);
        check_free("indexed_block_c", committed(t), RMAIB_BASIC_INT32);
        MPI_Count d3[] = { 16, 0, 40 };
        MPI_Type_create_hindexed_block_c(3, 1, d3, MPI_DOUBLE, &t);
        check_free("hindexed_block_c", committed(t), RMAIB_BASIC_DOUBLE);
    }
    {
        MPI_Count bl[] = { 1, 1, 1 };
        MPI_Count disp[] = { offsetof(struct gappy, c), offsetof(struct gappy, d), offsetof(struct gappy, i) };
        MPI_Datatype types[] = { MPI_CHAR, MPI_DOUBLE, MPI_INT }, s;
        MPI_Type_create_struct_c(3, bl, disp, types, &s);
        MPI_Type_create_resized_c(s, -4, 40, &t);
        MPI_Type_free(&s);
        check_free("struct_c resized_c", committed(t), RMAIB_BASIC_NONE);
    }
    {
        MPI_Count sizes[] = { 4, 5, 6 }, subs[] = { 2, 3, 4 }, starts[] = { 1, 1, 2 };
        MPI_Type_create_subarray_c(3, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
        check_free("subarray_c, C order", committed(t), RMAIB_BASIC_INT32);
        MPI_Type_create_subarray_c(3, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
        check_free("subarray_c, Fortran order", committed(t), RMAIB_BASIC_INT32);
    }
    {
        MPI_Count gs[] = { 9, 7 };
        int dist[] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK }, darg[] = { 2, MPI_DISTRIBUTE_DFLT_DARG },
            ps[] = { 3, 2 };
        MPI_Type_create_darray_c(6, 4, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &t);
        check_free("darray_c", committed(t), RMAIB_BASIC_INT32);
    }
#else
    tap_skip("large-count constructors", "MPI-3 host");
#endif
}

static void test_f90(void)
{
    MPI_Datatype t;
    int size;

    /* These are committed, and never freed by the user. */
    if (MPI_REAL == MPI_DATATYPE_NULL) {
        tap_skip("f90 types", "no Fortran in this MPI");
        return;
    }
    MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t);
    MPI_Type_size(t, &size);
    check_type("create_f90_real(6)", t, size == 4 ? RMAIB_BASIC_FLOAT : ANY_BASIC);
    MPI_Type_create_f90_integer(9, &t);
    MPI_Type_size(t, &size);
    check_type("create_f90_integer(9)", t, sint_of((size_t) size));
    MPI_Type_create_f90_complex(15, MPI_UNDEFINED, &t);
    MPI_Type_size(t, &size);
    check_type("create_f90_complex(15)", t, size == 16 ? RMAIB_BASIC_C_DOUBLE_COMPLEX : ANY_BASIC);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    test_predefined();
    test_simple_combiners();
    test_struct_resized();
    test_nested();
    test_pairs();
    test_subarray_darray();
    test_zero_and_dup();
    test_lifecycle();
    test_errors();
    test_huge();
    test_f90();
    rmaib_mpi_layout_finalize();
    return tap_done();
}
