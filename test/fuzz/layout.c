/*
 * fuzz layout: the datatype flattener and its cache (src/binding/mpi/datatype*.c)
 * over derived datatypes built from the input.  The input is a little program:
 * each step's first byte picks a constructor (a predefined type, contiguous,
 * vector, hvector, indexed, hindexed, indexed_block, hindexed_block, struct,
 * resized, subarray, dup) and the next bytes its arguments, within bounds that
 * keep a type's data small; the types are kept on a stack of eight and a
 * constructor takes its inner types from the top.  The type on top at the end is
 * committed (or, as the last byte says, left uncommitted) and checked as
 * test/unit/layout_flatten does, under a singleton MPI_Init:
 *   - an uncommitted type is refused with MPI_ERR_TYPE;
 *   - size, extent, true bounds as MPI says; blocks non-empty, inside the true
 *     bounds, adjacent ones merged, as many bytes as the size; contig and the
 *     basic type consistent;
 *   - one and three elements gathered through the blocks are MPI_Pack's bytes,
 *     and scattered back are MPI_Unpack's;
 *   - a second lookup gives the cached layout, and a dup an equal one;
 *   - a layout held (rmaib_mpi_layout_hold) stays whole after its type is freed,
 *     until released.
 * A failed check prints the difference and aborts.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../src/binding/mpi/datatype.h"
#include "input.h"

#define STACK 8
#define MAX_SIZE (1 << 14)      /* bytes of data in one element */
#define MAX_SPAN (1 << 18)      /* bytes three elements span */

#define CHECK(c, ...) do { if (!(c)) fail(__VA_ARGS__); } while (0)

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "layout fuzz: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

/* A number in [lo, hi]. */
static int pick(input_t *in, int lo, int hi)
{
    return lo + (int) (take(in, 1) % (unsigned) (hi - lo + 1));
}

/* No long double: x86's has 6 bytes of padding, which MPICH's typed copies leave
 * unpacked, so MPI_Pack's bytes are not the memory's there. */
static MPI_Datatype predefined(unsigned i)
{
    static const MPI_Datatype all[] = {
        MPI_CHAR, MPI_BYTE, MPI_SHORT, MPI_INT, MPI_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_INT8_T,
        MPI_UINT64_T, MPI_C_DOUBLE_COMPLEX, MPI_2INT, MPI_DOUBLE_INT, MPI_SHORT_INT,
        MPI_FLOAT_INT, MPI_AINT, MPI_C_BOOL, MPI_PACKED, MPI_UNSIGNED_SHORT,
    };
    return all[i % (sizeof all / sizeof all[0])];
}

/* committed: predefined, or a dup (MPICH's MPI_Type_dup gives a committed type
 * even of an uncommitted one: MPI_Pack takes it, and so does rmaib). */
typedef struct {
    MPI_Datatype t[STACK];
    int committed[STACK];
    int n;
} type_stack_t;

static int is_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb != MPI_COMBINER_NAMED;
}

static void drop(MPI_Datatype *t)
{
    if (is_derived(*t))
        MPI_Type_free(t);
}

/* Is t small enough to check (count elements of it in a buffer of bounded size)? */
static int small(MPI_Datatype t)
{
    MPI_Count size, lb, extent, tlb, text;
    if (MPI_Type_size_x(t, &size) != MPI_SUCCESS || MPI_Type_get_extent_x(t, &lb, &extent) != MPI_SUCCESS
        || MPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS)
        return 0;
    MPI_Count ext = extent < 0 ? -extent : extent;
    return size >= 0 && size <= MAX_SIZE && text <= MAX_SPAN / 2 && ext <= MAX_SPAN / 4
        && tlb > -MAX_SPAN && tlb < MAX_SPAN;
}

static const rmaib_layout_t *check(MPI_Datatype dt, int commit);
static void release(const rmaib_layout_t *l);

/* One constructor over the stack; the new type replaces the ones it took. */
static void step(input_t *in, type_stack_t *s)
{
    unsigned op = take(in, 1) % 12;
    MPI_Datatype nt = MPI_DATATYPE_NULL;
    int rc = MPI_ERR_OTHER;

    if (op == 0 || s->n == 0) {
        if (s->n == STACK)
            return;
        s->committed[s->n] = 1;
        s->t[s->n++] = predefined(take(in, 1));
        return;
    }
    MPI_Datatype *top = &s->t[s->n - 1];
    int count = pick(in, 0, 5), bl = pick(in, 0, 4), ints[4], bls[4];
    MPI_Aint disps[4];
    for (int i = 0; i < 4; i++) {
        ints[i] = pick(in, -6, 12);
        bls[i] = pick(in, 0, 3);
        disps[i] = pick(in, -64, 191);
    }
    int n = pick(in, 0, 4);
    switch (op) {
    case 1: rc = MPI_Type_contiguous(count, *top, &nt); break;
    case 2: rc = MPI_Type_vector(count, bl, ints[0], *top, &nt); break;
    case 3: rc = MPI_Type_create_hvector(count, bl, disps[0], *top, &nt); break;
    case 4: rc = MPI_Type_indexed(n, bls, ints, *top, &nt); break;
    case 5: rc = MPI_Type_create_hindexed(n, bls, disps, *top, &nt); break;
    case 6: rc = MPI_Type_create_indexed_block(n, bl, ints, *top, &nt); break;
    case 7: rc = MPI_Type_create_hindexed_block(n, bl, disps, *top, &nt); break;
    case 8: {
        /* Up to three inner types from the top of the stack. */
        int k = n < 1 ? 1 : n > 3 ? 3 : n;
        k = k > s->n ? s->n : k;
        rc = MPI_Type_create_struct(k, bls, disps, &s->t[s->n - k], &nt);
        if (rc == MPI_SUCCESS) {
            for (int i = 1; i < k; i++)
                drop(&s->t[--s->n]);
            top = &s->t[s->n - 1];
        }
        break;
    }
    case 9:
        /* Extents > 0: with a negative one inside, MPICH 4.0's MPI_Pack steps
         * through the elements by another extent than MPI_Type_get_extent gives,
         * and with a zero one it divides by zero. */
        rc = MPI_Type_create_resized(*top, disps[0], disps[1] + 65, &nt);
        break;
    case 10: {
        int nd = pick(in, 1, 3), sizes[3], subs[3], starts[3];
        for (int i = 0; i < nd; i++) {
            sizes[i] = pick(in, 1, 5);
            subs[i] = pick(in, 1, sizes[i]);
            starts[i] = pick(in, 0, sizes[i] - subs[i]);
        }
        rc = MPI_Type_create_subarray(nd, sizes, subs, starts,
                                      take(in, 1) & 1 ? MPI_ORDER_FORTRAN : MPI_ORDER_C, *top, &nt);
        break;
    }
    case 11: rc = MPI_Type_dup(*top, &nt); break;
    }
    if (rc != MPI_SUCCESS)
        return;
    if (!small(nt)) {
        MPI_Type_free(&nt);
        return;
    }
    /* An empty type (or one of extent 0) is checked and not built on: MPICH
     * 4.0's MPI_Pack divides by zero on a type that holds one. */
    MPI_Count nsize, lb, extent;
    MPI_Type_size_x(nt, &nsize);
    MPI_Type_get_extent_x(nt, &lb, &extent);
    if (nsize == 0 || extent == 0) {
        const rmaib_layout_t *l = check(nt, 1);
        MPI_Type_free(&nt);
        release(l);
        return;
    }
    drop(top);
    *top = nt;
    s->committed[s->n - 1] = op == 11;
}

static unsigned char pattern(size_t i)
{
    return (unsigned char) (i * 131u + (i >> 8) * 7u + 13u);
}

static void check_fields(MPI_Datatype dt, const rmaib_layout_t *l)
{
    MPI_Count size, lb, extent, tlb, text;
    size_t total = 0;
    MPI_Type_size_x(dt, &size);
    MPI_Type_get_extent_x(dt, &lb, &extent);
    MPI_Type_get_true_extent_x(dt, &tlb, &text);
    CHECK(l->size == (size_t) size, "size %zu, MPI says %lld", l->size, (long long) size);
    CHECK(l->extent == extent, "extent %lld, MPI says %lld", (long long) l->extent, (long long) extent);
    if (size > 0)
        CHECK(l->true_lb == tlb && l->true_ub == tlb + text,
              "true bounds [%lld,%lld), MPI says [%lld,%lld)", (long long) l->true_lb,
              (long long) l->true_ub, (long long) tlb, (long long) (tlb + text));
    for (size_t j = 0; j < l->nblocks; j++) {
        const rmaib_block_t *b = &l->blocks[j];
        total += b->len;
        CHECK(b->len > 0, "block %zu is empty", j);
        CHECK(b->disp >= l->true_lb && b->disp + (int64_t) b->len <= l->true_ub,
              "block %zu [%lld,+%zu) outside the true bounds", j, (long long) b->disp, b->len);
        if (j > 0)
            CHECK(l->blocks[j - 1].disp + (int64_t) l->blocks[j - 1].len != b->disp,
                  "blocks %zu and %zu are adjacent but not merged", j - 1, j);
    }
    CHECK(total == (size_t) size, "blocks hold %zu bytes, size is %lld", total, (long long) size);
    int contig = l->nblocks == 1 && l->blocks[0].disp == 0 && l->blocks[0].len == (size_t) size
        && extent == size;
    CHECK(l->contig == contig, "contig %d, expected %d", l->contig, contig);
    if (l->basic == RMAIB_BASIC_NONE)
        CHECK(l->basic_size == 0, "basic NONE with basic_size %zu", l->basic_size);
    else
        CHECK(l->basic_size > 0 && (size == 0 || size % (MPI_Count) l->basic_size == 0),
              "basic_size %zu does not divide size %lld", l->basic_size, (long long) size);
}

/* count elements: gathered through the blocks = MPI_Pack's bytes; those bytes
 * scattered through the blocks = MPI_Unpack's memory. */
static void check_pack(MPI_Datatype dt, const rmaib_layout_t *l, int count)
{
    int64_t lo, hi;
    int psize = 0, pos = 0;
    size_t got = 0;
    if (l->size == 0)
        return;
    rmaib_layout_span(l, (size_t) count, &lo, &hi);
    size_t span = hi > lo ? (size_t) (hi - lo) : 0;
    unsigned char *buf = malloc(span + 1), *mine = malloc(span + 1), *mpis = malloc(span + 1);
    for (size_t i = 0; i < span; i++)
        buf[i] = pattern(i);
    const unsigned char *origin = buf - lo;

    MPI_Pack_size(count, dt, MPI_COMM_SELF, &psize);
    unsigned char *packed = malloc((size_t) psize + 1), *gathered = malloc((size_t) psize + 1);
    MPI_Pack(origin, count, dt, packed, psize, &pos, MPI_COMM_SELF);
    CHECK((size_t) pos == (size_t) count * l->size, "x%d: packed %d bytes, layout says %zu", count,
          pos, (size_t) count * l->size);
    memset(mine, 0, span);
    memset(mpis, 0, span);
    for (int e = 0; e < count; e++)
        for (size_t j = 0; j < l->nblocks; j++) {
            const rmaib_block_t *b = &l->blocks[j];
            int64_t at = (int64_t) e * l->extent + b->disp;
            CHECK(at >= lo && at + (int64_t) b->len <= hi && got + b->len <= (size_t) pos,
                  "x%d: block %zu of element %d falls outside the span", count, j, e);
            memcpy(gathered + got, origin + at, b->len);
            memcpy(mine + (at - lo), packed + got, b->len);
            got += b->len;
        }
    CHECK(got == (size_t) pos, "x%d: gathered %zu bytes, packed %d", count, got, pos);
    for (size_t i = 0; i < got; i++)
        CHECK(gathered[i] == packed[i], "x%d: byte %zu gathered %#x, packed %#x", count, i,
              gathered[i], packed[i]);
    pos = 0;
    MPI_Unpack(packed, psize, &pos, mpis - lo, count, dt, MPI_COMM_SELF);
    for (size_t i = 0; i < span; i++)
        CHECK(mine[i] == mpis[i], "x%d: byte %zu of the span scattered %#x, unpacked %#x", count,
              i, mine[i], mpis[i]);
    free(gathered);
    free(packed);
    free(mpis);
    free(mine);
    free(buf);
}

/* The checks of dt; its layout, held (NULL for an uncommitted type). */
static const rmaib_layout_t *check(MPI_Datatype dt, int commit)
{
    int err = MPI_SUCCESS;
    if (!commit) {
        CHECK(!rmaib_mpi_layout(dt, &err) && err == MPI_ERR_TYPE,
              "uncommitted type: layout given (error class %d)", err);
        return NULL;
    }
    MPI_Type_commit(&dt);
    const rmaib_layout_t *l = rmaib_mpi_layout(dt, &err);
    CHECK(l != NULL, "no layout (error class %d)", err);
    check_fields(dt, l);
    check_pack(dt, l, 1);
    check_pack(dt, l, 3);
    CHECK(rmaib_mpi_layout(dt, &err) == l, "second lookup gave another layout");

    MPI_Datatype d;
    MPI_Type_dup(dt, &d);
    const rmaib_layout_t *ld = rmaib_mpi_layout(d, &err);
    CHECK(ld && ld->size == l->size && ld->extent == l->extent && ld->nblocks == l->nblocks
          && !memcmp(ld->blocks, l->blocks, l->nblocks * sizeof l->blocks[0]),
          "the dup's layout differs");
    MPI_Type_free(&d);
    rmaib_mpi_layout_hold(l);
    return l;
}

/* A layout held past its type's free is whole until released (AddressSanitizer
 * sees a read of a freed one). */
static void release(const rmaib_layout_t *l)
{
    size_t total = 0;
    if (!l)
        return;
    for (size_t j = 0; j < l->nblocks; j++)
        total += l->blocks[j].len;
    CHECK(total == l->size, "held layout: blocks hold %zu bytes, size is %zu", total, l->size);
    rmaib_mpi_layout_release(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    input_t in = { data, size - 1 };
    type_stack_t s = { .n = 0 };
    for (int steps = 0; in.n && steps < 16; steps++)
        step(&in, &s);
    const rmaib_layout_t *held = NULL;
    if (s.n > 0) {
        MPI_Datatype dt = s.t[s.n - 1];
        if (is_derived(dt))
            held = check(dt, s.committed[s.n - 1] || data[size - 1] != 0xff);
    }
    while (s.n > 0)
        drop(&s.t[--s.n]);
    release(held);
    return 0;
}
