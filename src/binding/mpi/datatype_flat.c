/*
 * Block lists: a type flattened into (displacement, length) runs in type-map order,
 * grown by appending and by replicating a list at a stride; MPI's bounds of a type;
 * and the probe, which lets MPI_Pack tell where the bytes of a type it alone
 * understands lie.
 */
#include <limits.h>

#include "datatype_impl.h"

int rmaib_mpi_flat_append(flat_t *f, int64_t disp, size_t len)
{
    if (len == 0)
        return MPI_SUCCESS;
    if (f->n) {
        rmaib_block_t *last = &f->b[f->n - 1];
        if (last->disp + (int64_t) last->len == disp) {
            last->len += len;
            return MPI_SUCCESS;
        }
    }
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        rmaib_block_t *nb;
        if (cap > SIZE_MAX / sizeof *nb)
            return MPI_ERR_NO_MEM;
        nb = realloc(f->b, cap * sizeof *nb);
        if (!nb)
            return MPI_ERR_NO_MEM;
        f->b = nb;
        f->cap = cap;
    }
    f->b[f->n].disp = disp;
    f->b[f->n].len = len;
    f->n++;
    return MPI_SUCCESS;
}

/* count copies of src's blocks, the k-th shifted by base + k * stride. */
int rmaib_mpi_flat_replicate(flat_t *dst, const flat_t *src, int64_t base, int64_t count,
                             int64_t stride)
{
    int status = MPI_SUCCESS;
    int64_t at, len;

    if (count <= 0 || src->n == 0)
        goto fn_exit;
    track_merge(&dst->data, src->data);

    /* One run replicated at its own length is one longer run: without this a
     * contiguous of 2^31 bytes would take 2^31 appends. */
    if (src->n == 1 && stride >= 0 && (uint64_t) stride == src->b[0].len) {
        if (__builtin_mul_overflow(count, stride, &len)
            || __builtin_add_overflow(base, src->b[0].disp, &at)) {
            status = MPI_ERR_TYPE;
            goto fn_fail;
        }
        status = rmaib_mpi_flat_append(dst, at, (size_t) len);
        goto fn_exit;
    }
    for (int64_t k = 0; k < count; k++) {
        int64_t shift;
        if (__builtin_mul_overflow(k, stride, &shift) || __builtin_add_overflow(base, shift, &shift)) {
            status = MPI_ERR_TYPE;
            goto fn_fail;
        }
        for (size_t j = 0; j < src->n; j++) {
            if (__builtin_add_overflow(shift, src->b[j].disp, &at)) {
                status = MPI_ERR_TYPE;
                goto fn_fail;
            }
            status = rmaib_mpi_flat_append(dst, at, src->b[j].len);
            if (status)
                goto fn_fail;
        }
    }
  fn_exit:
    return status;
  fn_fail:
    goto fn_exit;
}

/* count blocks of blocklen elements, stride bytes apart (vector, hvector). */
int rmaib_mpi_flat_vector(flat_t *dst, const flat_t *el, int64_t count, int64_t blocklen,
                          int64_t stride)
{
    int64_t span, total;

    if (!__builtin_mul_overflow(blocklen, el->extent, &span) && span == stride
        && !__builtin_mul_overflow(count, blocklen, &total))
        return rmaib_mpi_flat_replicate(dst, el, 0, total, el->extent);
    for (int64_t k = 0; k < count; k++) {
        int64_t at;
        int status;
        if (__builtin_mul_overflow(k, stride, &at))
            return MPI_ERR_TYPE;
        status = rmaib_mpi_flat_replicate(dst, el, at, blocklen, el->extent);
        if (status)
            return status;
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------
 * Bounds as MPI reports them.
 */
int rmaib_mpi_bounds_get(MPI_Datatype dt, bounds_t *b)
{
    int status;

    status = PMPI_Type_size_x(dt, &b->size);
    if (status)
        goto fn_fail;
    status = PMPI_Type_get_extent_x(dt, &b->lb, &b->extent);
    if (status)
        goto fn_fail;
    status = PMPI_Type_get_true_extent_x(dt, &b->true_lb, &b->true_extent);
    if (status)
        goto fn_fail;
    /* MPI_UNDEFINED means the value overflowed MPI_Count. */
    if (b->size == MPI_UNDEFINED || b->extent == MPI_UNDEFINED || b->true_extent == MPI_UNDEFINED
        || b->size < 0) {
        status = MPI_ERR_TYPE;
        goto fn_fail;
    }
  fn_exit:
    return status;
  fn_fail:
    goto fn_exit;
}

/* ---------------------------------------------------------------------------------
 * The probe: for constructors not decoded by hand.  Byte o of the source holds byte
 * p of o in pass p, so after ceil(log256(true extent)) packs every packed byte has
 * told its source offset; runs of consecutive offsets become blocks.
 */

/* Pack one element of tmp (a committed wrapper of the probed type) once a pass,
 * from src whose byte o holds byte p of o in pass p; offs[j] gathers the source
 * offset, relative to the true lb, of packed byte j. */
static int probe_offsets(MPI_Datatype tmp, const bounds_t *b, unsigned char *src, size_t span,
                         unsigned char *packed, size_t size, uint64_t *offs)
{
    int status, passes = 1;

    while (passes < 8 && ((uint64_t) (span - 1) >> (8 * passes)))
        passes++;
    for (int p = 0; p < passes; p++) {
        /* The type's true lb lands on src[0]. */
        const void *origin = (const void *) ((uintptr_t) src - (uintptr_t) b->true_lb);
        for (size_t o = 0; o < span; o++)
            src[o] = (unsigned char) ((uint64_t) o >> (8 * p));
#ifdef HAVE_LARGE_COUNTS
        MPI_Count pos = 0;
        status = PMPI_Pack_c(origin, 1, tmp, packed, (MPI_Count) size, &pos, MPI_COMM_SELF);
#else
        int pos = 0;
        status = PMPI_Pack(origin, 1, tmp, packed, (int) size, &pos, MPI_COMM_SELF);
#endif
        if (status)
            return status;
        if ((size_t) pos != size)
            return MPI_ERR_INTERN;
        for (size_t j = 0; j < size; j++)
            offs[j] |= (uint64_t) packed[j] << (8 * p);
    }
    return MPI_SUCCESS;
}

int rmaib_mpi_flat_probe(MPI_Datatype dt, flat_t *f)
{
    int status = MPI_SUCCESS;
    MPI_Datatype tmp = MPI_DATATYPE_NULL;
    unsigned char *src = NULL, *packed = NULL;
    uint64_t *offs = NULL;
    bounds_t b;
    size_t span, size;

    status = rmaib_mpi_bounds_get(dt, &b);
    if (status)
        goto fn_fail;
    if (b.size == 0)
        goto fn_exit;
#ifndef HAVE_LARGE_COUNTS
    if (b.size > INT_MAX) {
        status = MPI_ERR_TYPE;
        goto fn_fail;
    }
#endif
    if ((uint64_t) b.true_extent > SIZE_MAX || (uint64_t) b.size > SIZE_MAX / sizeof *offs) {
        status = MPI_ERR_NO_MEM;
        goto fn_fail;
    }
    span = (size_t) b.true_extent;
    size = (size_t) b.size;

    /* A component of a committed type need not be committed itself, and MPI_Pack
     * wants a committed type: a committed one-element wrapper is. */
    status = PMPI_Type_contiguous(1, dt, &tmp);
    if (status)
        goto fn_fail;
    status = PMPI_Type_commit(&tmp);
    if (status)
        goto fn_fail;

    src = malloc(span);
    packed = malloc(size);
    offs = calloc(size, sizeof *offs);
    if (!src || !packed || !offs) {
        status = MPI_ERR_NO_MEM;
        goto fn_fail;
    }
    status = probe_offsets(tmp, &b, src, span, packed, size, offs);
    if (status)
        goto fn_fail;
    for (size_t j = 0; j < size; j++) {
        status = rmaib_mpi_flat_append(f, b.true_lb + (int64_t) offs[j], 1);
        if (status)
            goto fn_fail;
    }

  fn_exit:
    free(offs);
    free(packed);
    free(src);
    if (tmp != MPI_DATATYPE_NULL)
        PMPI_Type_free(&tmp);
    return status;
  fn_fail:
    goto fn_exit;
}

/* A layout from MPI's bounds and a block list. */
void rmaib_mpi_layout_set(rmaib_layout_t *l, const bounds_t *b, const rmaib_block_t *blocks,
                          size_t n, rmaib_basic_t basic, size_t basic_size)
{
    l->size = (size_t) b->size;
    l->extent = b->extent;
    l->true_lb = b->true_lb;
    l->true_ub = b->true_lb + b->true_extent;
    l->nblocks = n;
    l->blocks = blocks;
    l->contig = n == 1 && blocks[0].disp == 0 && blocks[0].len == l->size
        && l->extent == (int64_t) l->size;
    l->basic = basic;
    l->basic_size = basic == RMAIB_BASIC_NONE ? 0 : basic_size;
}
