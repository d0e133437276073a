/*
 * Derived types decoded with MPI_Type_get_envelope/get_contents, recursively, into
 * blocks in type-map order.  Constructors whose type map is tedious to rebuild by
 * hand (darray, the f90 types, anything an MPI adds later) go to the probe
 * (datatype_flat.c).  Only standard calls are used, so any MPI can host this.
 */
#include "datatype_impl.h"

typedef struct contents {
    int combiner;
    int large;               /* counts and displacements in c[] (MPI-4 _c constructors) */
    size_t ni, na, nc, nt;
    int *i;
    MPI_Aint *a;
    MPI_Count *c;
    MPI_Datatype *t;
} contents_t;

/* A count (or displacement in extents): i[ki] for a classic type, c[kc] for large. */
static inline int64_t ct_count(const contents_t *ct, size_t ki, size_t kc)
{
    return ct->large ? (int64_t) ct->c[kc] : (int64_t) ct->i[ki];
}

/* A byte displacement: a[ka] for a classic type, c[kc] for large. */
static inline int64_t ct_addr(const contents_t *ct, size_t ka, size_t kc)
{
    return ct->large ? (int64_t) ct->c[kc] : (int64_t) ct->a[ka];
}

/* Whether the arrays hold what a combiner's accessors will read. */
static int ct_has(const contents_t *ct, size_t ni, size_t na, size_t nc, size_t nt)
{
    if (ct->nt < nt)
        return 0;
    return ct->large ? ct->nc >= nc : ct->ni >= ni && ct->na >= na;
}

/* Whether dt is a predefined type (MPI_COMBINER_NAMED). */
int rmaib_mpi_is_named(MPI_Datatype dt, int *named)
{
    env_count_t ni, na, nt;
    int combiner, status;
#ifdef HAVE_LARGE_COUNTS
    MPI_Count nc;
    status = PMPI_Type_get_envelope_c(dt, &ni, &na, &nc, &nt, &combiner);
#else
    status = PMPI_Type_get_envelope(dt, &ni, &na, &nt, &combiner);
#endif
    *named = combiner == MPI_COMBINER_NAMED;
    return status;
}

static void contents_free(contents_t *ct)
{
    /* get_contents hands out new references to derived components. */
    for (size_t k = 0; ct->t && k < ct->nt; k++) {
        int named = 1;
        if (ct->t[k] != MPI_DATATYPE_NULL && rmaib_mpi_is_named(ct->t[k], &named) == MPI_SUCCESS && !named)
            PMPI_Type_free(&ct->t[k]);
    }
    free(ct->i);
    free(ct->a);
    free(ct->c);
    free(ct->t);
    memset(ct, 0, sizeof *ct);
}

static int contents_get(MPI_Datatype dt, contents_t *ct)
{
    int status;
    env_count_t ni, na, nc = 0, nt;

    memset(ct, 0, sizeof *ct);
#ifdef HAVE_LARGE_COUNTS
    status = PMPI_Type_get_envelope_c(dt, &ni, &na, &nc, &nt, &ct->combiner);
#else
    status = PMPI_Type_get_envelope(dt, &ni, &na, &nt, &ct->combiner);
#endif
    if (status || ct->combiner == MPI_COMBINER_NAMED)
        goto fn_exit;
    if (ni < 0 || na < 0 || nc < 0 || nt < 0) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    /* +1: malloc(0) may give NULL, which would read as failure. */
    ct->i = malloc(((size_t) ni + 1) * sizeof *ct->i);
    ct->a = malloc(((size_t) na + 1) * sizeof *ct->a);
    ct->c = malloc(((size_t) nc + 1) * sizeof *ct->c);
    ct->t = calloc((size_t) nt + 1, sizeof *ct->t);
    if (!ct->i || !ct->a || !ct->c || !ct->t) {
        status = MPI_ERR_NO_MEM;
        goto fn_fail;
    }
#ifdef HAVE_LARGE_COUNTS
    status = PMPI_Type_get_contents_c(dt, ni, na, nc, nt, ct->i, ct->a, ct->c, ct->t);
#else
    status = PMPI_Type_get_contents(dt, ni, na, nt, ct->i, ct->a, ct->t);
#endif
    if (status) {
        free(ct->t);
        ct->t = NULL;
        goto fn_fail;
    }
    ct->ni = (size_t) ni;
    ct->na = (size_t) na;
    ct->nc = (size_t) nc;
    ct->nt = (size_t) nt;
    ct->large = nc > 0;

  fn_exit:
    return status;
  fn_fail:
    goto fn_exit;
}

/* A named type as a leaf. */
static int flatten_named(MPI_Datatype dt, flat_t *f)
{
    int status = MPI_SUCCESS;
    const rmaib_layout_t *l = rmaib_mpi_named_lookup(dt);
    MPI_Count lb, extent;

    if (l) {
        f->extent = l->extent;
        for (size_t j = 0; j < l->nblocks && !status; j++)
            status = rmaib_mpi_flat_append(f, l->blocks[j].disp, l->blocks[j].len);
        if (l->size) {
            track_merge(&f->data, (track_t) { l->basic, l->basic_size });
            track_merge(&f->any, (track_t) { l->basic, l->basic_size });
        }
        return status;
    }
    /* Not listed: the MPI_LB/MPI_UB markers of old (no data, no basic type) or an
     * extra of this MPI, whose arithmetic we do not know. */
    status = PMPI_Type_get_extent_x(dt, &lb, &extent);
    if (status)
        return status;
    f->extent = extent;
    status = rmaib_mpi_flat_probe(dt, f);
    if (status == MPI_SUCCESS && f->n) {
        track_merge(&f->data, (track_t) { RMAIB_BASIC_NONE, 0 });
        track_merge(&f->any, (track_t) { RMAIB_BASIC_NONE, 0 });
    }
    return status;
}

/* Subarray: the innermost dimension first (the last in C order, the first in
 * Fortran order), each level a replica of the one inside at that dimension's
 * stride; the starts shift the whole. */
static int flatten_subarray(const contents_t *ct, const flat_t *el, flat_t *f)
{
    int status = MPI_SUCCESS;
    int64_t nd, order, stride = el->extent, base = 0;
    flat_t cur, next;

    flat_init(&cur);
    flat_init(&next);
    if (!ct_has(ct, 1, 0, 0, 1)) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    nd = ct->i[0];
    if (nd <= 0 || !ct_has(ct, (size_t) (3 * nd + 2), 0, (size_t) (3 * nd), 1)
        || (ct->large && ct->ni < 2)) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    order = ct->large ? ct->i[1] : ct->i[3 * nd + 1];

    /* cur: the flattened level so far, starting from the element itself. */
    status = rmaib_mpi_flat_replicate(&cur, el, 0, 1, 0);
    if (status)
        goto fn_fail;
    for (int64_t k = 0; k < nd; k++) {
        int64_t d = order == MPI_ORDER_C ? nd - 1 - k : k;
        int64_t size = ct_count(ct, (size_t) (1 + d), (size_t) d);
        int64_t sub = ct_count(ct, (size_t) (1 + nd + d), (size_t) (nd + d));
        int64_t start = ct_count(ct, (size_t) (1 + 2 * nd + d), (size_t) (2 * nd + d));
        int64_t shift;

        if (__builtin_mul_overflow(start, stride, &shift) || __builtin_add_overflow(base, shift, &base)) {
            status = MPI_ERR_TYPE;
            goto fn_fail;
        }
        flat_init(&next);
        status = rmaib_mpi_flat_replicate(&next, &cur, 0, sub, stride);
        if (status)
            goto fn_fail;
        flat_free(&cur);
        cur = next;
        flat_init(&next);
        if (__builtin_mul_overflow(stride, size, &stride)) {
            status = MPI_ERR_TYPE;
            goto fn_fail;
        }
    }
    status = rmaib_mpi_flat_replicate(f, &cur, base, 1, 0);

  fn_exit:
    flat_free(&cur);
    flat_free(&next);
    return status;
  fn_fail:
    goto fn_exit;
}

/* Displacement k of the indexed family, in bytes: in extents of el at i[ki] or
 * c[kc] (indexed, indexed_block), or in bytes at a[ka] or c[kc] (the h- kinds). */
static int indexed_disp(const contents_t *ct, int bytes, const flat_t *el, size_t ki, size_t ka,
                        size_t kc, int64_t *d)
{
    if (bytes) {
        *d = ct_addr(ct, ka, kc);
        return MPI_SUCCESS;
    }
    return __builtin_mul_overflow(ct_count(ct, ki, kc), el->extent, d) ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* The indexed family: n blocks of el, the k-th of its own length (indexed,
 * hindexed) or all of one (the _block kinds), each at its displacement. */
static int flatten_indexed(const contents_t *ct, const flat_t *el, flat_t *f)
{
    int c = ct->combiner, status = MPI_SUCCESS;
    int one_length = c == MPI_COMBINER_INDEXED_BLOCK || c == MPI_COMBINER_HINDEXED_BLOCK;
    int bytes = c != MPI_COMBINER_INDEXED && c != MPI_COMBINER_INDEXED_BLOCK;
    size_t first = one_length ? 2 : 1;      /* leading counts: n, and bl for _block */
    int64_t n, len, d;

    if (!ct_has(ct, first, 0, first, 1))
        return MPI_ERR_INTERN;
    n = ct_count(ct, 0, 0);
    /* then n lengths (none for _block), then n displacements: in i[] as extents or
     * in a[] as bytes; a large-count type has all of them in c[] */
    size_t nlen = one_length ? 0 : (size_t) n, at = first + nlen;
    if (!ct_has(ct, at + (bytes ? 0 : (size_t) n), bytes ? (size_t) n : 0, at + (size_t) n, 1))
        return MPI_ERR_INTERN;
    for (int64_t k = 0; k < n && !status; k++) {
        len = one_length ? ct_count(ct, 1, 1) : ct_count(ct, (size_t) (1 + k), (size_t) (1 + k));
        status = indexed_disp(ct, bytes, el, at + (size_t) k, (size_t) k, at + (size_t) k, &d);
        if (status)
            return status;
        status = rmaib_mpi_flat_replicate(f, el, d, len, el->extent);
    }
    return status;
}

/* Combiners with one component type, whose element is already flattened in el. */
static int flatten_one(const contents_t *ct, const flat_t *el, flat_t *f)
{
    int64_t d;

    switch (ct->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:     /* same type map; the bounds come from MPI */
        return rmaib_mpi_flat_replicate(f, el, 0, 1, 0);

    case MPI_COMBINER_CONTIGUOUS:
        if (!ct_has(ct, 1, 0, 1, 1))
            return MPI_ERR_INTERN;
        return rmaib_mpi_flat_replicate(f, el, 0, ct_count(ct, 0, 0), el->extent);

    case MPI_COMBINER_VECTOR:
        if (!ct_has(ct, 3, 0, 3, 1))
            return MPI_ERR_INTERN;
        if (__builtin_mul_overflow(ct_count(ct, 2, 2), el->extent, &d))
            return MPI_ERR_TYPE;
        return rmaib_mpi_flat_vector(f, el, ct_count(ct, 0, 0), ct_count(ct, 1, 1), d);

    case MPI_COMBINER_HVECTOR:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
        if (!ct_has(ct, 2, 1, 3, 1))
            return MPI_ERR_INTERN;
        return rmaib_mpi_flat_vector(f, el, ct_count(ct, 0, 0), ct_count(ct, 1, 1),
                                     ct_addr(ct, 0, 2));

    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        return flatten_indexed(ct, el, f);

    case MPI_COMBINER_SUBARRAY:
        return flatten_subarray(ct, el, f);

    default:
        return MPI_ERR_INTERN;
    }
}

/* Constructors not decoded by hand (darray, the f90 types, an MPI's own): the probe
 * gives the blocks; the basic type is the one the components share, or for an f90
 * type the C type of its width. */
static int flatten_other(MPI_Datatype dt, const contents_t *ct, flat_t *f)
{
    int status = MPI_SUCCESS, kind = -1;
    track_t basic = { TRACK_UNSET, 0 };
    size_t before = f->n;
    flat_t el;
    MPI_Count size;

    flat_init(&el);
    switch (ct->combiner) {
    case MPI_COMBINER_F90_REAL:
        kind = BY_FLOAT;
        break;
    case MPI_COMBINER_F90_COMPLEX:
        kind = BY_COMPLEX;
        break;
    case MPI_COMBINER_F90_INTEGER:
        kind = BY_SINT;
        break;
    }
    if (kind >= 0) {
        status = PMPI_Type_size_x(dt, &size);
        if (status)
            goto fn_fail;
        basic.basic = rmaib_mpi_kind_basic(kind, size);
        basic.size = basic.basic == RMAIB_BASIC_NONE ? 0 : (size_t) size;
    }
    for (size_t k = 0; kind < 0 && k < ct->nt; k++) {
        flat_init(&el);
        status = rmaib_mpi_flatten(ct->t[k], &el);
        if (status)
            goto fn_fail;
        track_merge(&basic, el.data.basic != TRACK_UNSET ? el.data : el.any);
        flat_free(&el);
    }
    if (basic.basic == TRACK_UNSET)
        basic = (track_t) { RMAIB_BASIC_NONE, 0 };

    status = rmaib_mpi_flat_probe(dt, f);
    if (status)
        goto fn_fail;
    if (f->n > before)
        track_merge(&f->data, basic);
    track_merge(&f->any, basic);

  fn_exit:
    flat_free(&el);
    return status;
  fn_fail:
    goto fn_exit;
}

static int flatten_struct(const contents_t *ct, flat_t *f)
{
    int status = MPI_SUCCESS;
    int64_t n;
    flat_t el;

    flat_init(&el);
    if (!ct_has(ct, 1, 0, 1, 0)) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    n = ct_count(ct, 0, 0);
    if (!ct_has(ct, (size_t) (n + 1), (size_t) n, (size_t) (2 * n + 1), (size_t) n)) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    for (int64_t k = 0; k < n; k++) {
        flat_init(&el);
        status = rmaib_mpi_flatten(ct->t[k], &el);
        if (status)
            goto fn_fail;
        track_merge(&f->any, el.any);
        status = rmaib_mpi_flat_replicate(f, &el, ct_addr(ct, (size_t) k, (size_t) (1 + n + k)),
                                          ct_count(ct, (size_t) (1 + k), (size_t) (1 + k)),
                                          el.extent);
        if (status)
            goto fn_fail;
        flat_free(&el);
    }
  fn_exit:
    flat_free(&el);
    return status;
  fn_fail:
    goto fn_exit;
}

/* Append one element of dt to f (f's extent becomes dt's). */
int rmaib_mpi_flatten(MPI_Datatype dt, flat_t *f)
{
    int status;
    contents_t ct;
    flat_t el;
    MPI_Count lb, extent;

    flat_init(&el);
    status = contents_get(dt, &ct);
    if (status)
        goto fn_fail;
    if (ct.combiner == MPI_COMBINER_NAMED) {
        status = flatten_named(dt, f);
        goto fn_exit;
    }
    status = PMPI_Type_get_extent_x(dt, &lb, &extent);
    if (status)
        goto fn_fail;

    switch (ct.combiner) {
    case MPI_COMBINER_STRUCT:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_STRUCT_INTEGER:
#endif
        status = flatten_struct(&ct, f);
        break;
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HVECTOR_INTEGER:
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_SUBARRAY:
        if (ct.nt < 1) {
            status = MPI_ERR_INTERN;
            break;
        }
        status = rmaib_mpi_flatten(ct.t[0], &el);
        if (status)
            break;
        track_merge(&f->any, el.any);
        status = flatten_one(&ct, &el, f);
        break;
    default:
        status = flatten_other(dt, &ct, f);
        break;
    }
    if (status)
        goto fn_fail;
    f->extent = extent;

  fn_exit:
    flat_free(&el);
    contents_free(&ct);
    return status;
  fn_fail:
    goto fn_exit;
}
