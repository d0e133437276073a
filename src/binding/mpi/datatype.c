/*
 * MPI datatypes as rmaib layouts (see datatype.h).
 *
 * A derived type is decoded with MPI_Type_get_envelope/get_contents, recursively,
 * into blocks in type-map order.  Constructors whose type map is tedious to rebuild
 * by hand (darray, the f90 types, anything an MPI adds later) are probed instead:
 * pack one element of a buffer whose bytes spell out their own offsets and read the
 * offsets back.  Only standard calls are used, so any MPI can host this.
 */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"

/* MPI-4 has large-count constructors (their arguments come back in a separate
 * array) and MPI_Pack_c for probing elements past 2 GiB; an MPI-3 host has neither
 * and cannot build such types either. */
#if MPI_VERSION >= 4
#define HAVE_LARGE_COUNTS 1
typedef MPI_Count env_count_t;
#else
typedef int env_count_t;
#endif

/* The _INTEGER combiners left the standard with MPI-3; MPICH still reports them for
 * the MPI-1 Fortran constructors, Open MPI only in its MPI-1 compatibility build.
 * Where they cannot be named, such a type goes to the probe: slower, still right. */
#if defined(MPICH_VERSION) || (defined(OMPI_ENABLE_MPI1_COMPAT) && OMPI_ENABLE_MPI1_COMPAT)
#define HAVE_INTEGER_COMBINERS 1
#endif

_Static_assert(sizeof(MPI_Datatype) <= sizeof(uintptr_t), "datatype handles must fit a uintptr_t");

/* ---------------------------------------------------------------------------------
 * Layout storage.  Every layout sits behind a reference count so that an operation
 * can keep one past MPI_Type_free (datatype.h); predefined layouts never die.
 */
#define PERMANENT (-1L)

typedef struct box {
    atomic_long refs;
    rmaib_layout_t lay;
} box_t;

typedef struct heap_box {
    box_t h;
    rmaib_block_t blocks[];
} heap_box_t;

static box_t *box_of(const rmaib_layout_t *l)
{
    return (box_t *) ((char *) (uintptr_t) l - offsetof(box_t, lay));
}

void rmaib_mpi_layout_hold(const rmaib_layout_t *l)
{
    box_t *b = box_of(l);
    if (atomic_load_explicit(&b->refs, memory_order_relaxed) != PERMANENT)
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
}

void rmaib_mpi_layout_release(const rmaib_layout_t *l)
{
    box_t *b = box_of(l);
    if (atomic_load_explicit(&b->refs, memory_order_relaxed) != PERMANENT
        && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}

/* ---------------------------------------------------------------------------------
 * Flattening into a growing block list.
 */

/* What the leaves of a type are made of: the data-carrying leaves decide; a type
 * without data (count 0 everywhere) still has the basic type of the leaves it names,
 * so a zero-count accumulate is not refused for a type mismatch. */
#define TRACK_UNSET (-1)
typedef struct track {
    int basic;
    size_t size;
} track_t;

typedef struct flat {
    rmaib_block_t *b;
    size_t n, cap;
    int64_t extent;          /* of the flattened type: the step between replicas */
    track_t data;
    track_t any;
} flat_t;

static void flat_init(flat_t *f)
{
    memset(f, 0, sizeof *f);
    f->data.basic = f->any.basic = TRACK_UNSET;
}

static void flat_free(flat_t *f)
{
    free(f->b);
    f->b = NULL;
    f->n = f->cap = 0;
}

static void track_merge(track_t *t, track_t in)
{
    if (in.basic == TRACK_UNSET)
        return;
    if (t->basic == TRACK_UNSET) {
        *t = in;
    } else if (t->basic != in.basic) {
        t->basic = RMAIB_BASIC_NONE;
        t->size = 0;
    }
}

static int flat_append(flat_t *f, int64_t disp, size_t len)
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
static int flat_replicate(flat_t *dst, const flat_t *src, int64_t base, int64_t count, int64_t stride)
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
        status = flat_append(dst, at, (size_t) len);
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
            status = flat_append(dst, at, src->b[j].len);
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
static int flat_vector(flat_t *dst, const flat_t *el, int64_t count, int64_t blocklen, int64_t stride)
{
    int64_t span, total;

    if (!__builtin_mul_overflow(blocklen, el->extent, &span) && span == stride
        && !__builtin_mul_overflow(count, blocklen, &total))
        return flat_replicate(dst, el, 0, total, el->extent);
    for (int64_t k = 0; k < count; k++) {
        int64_t at;
        int status;
        if (__builtin_mul_overflow(k, stride, &at))
            return MPI_ERR_TYPE;
        status = flat_replicate(dst, el, at, blocklen, el->extent);
        if (status)
            return status;
    }
    return MPI_SUCCESS;
}

/* ---------------------------------------------------------------------------------
 * Bounds as MPI reports them.
 */
typedef struct bounds {
    MPI_Count size, lb, extent, true_lb, true_extent;
} bounds_t;

static int bounds_get(MPI_Datatype dt, bounds_t *b)
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
static int flat_probe(MPI_Datatype dt, flat_t *f)
{
    int status = MPI_SUCCESS;
    MPI_Datatype tmp = MPI_DATATYPE_NULL;
    unsigned char *src = NULL, *packed = NULL;
    uint64_t *offs = NULL;
    bounds_t b;
    size_t span, size;
    int passes = 1;

    status = bounds_get(dt, &b);
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
    while (passes < 8 && ((uint64_t) (span - 1) >> (8 * passes)))
        passes++;

    for (int p = 0; p < passes; p++) {
        /* The type's true lb lands on src[0]. */
        const void *origin = (const void *) ((uintptr_t) src - (uintptr_t) b.true_lb);
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
            goto fn_fail;
        if ((size_t) pos != size) {
            status = MPI_ERR_INTERN;
            goto fn_fail;
        }
        for (size_t j = 0; j < size; j++)
            offs[j] |= (uint64_t) packed[j] << (8 * p);
    }
    for (size_t j = 0; j < size; j++) {
        status = flat_append(f, b.true_lb + (int64_t) offs[j], 1);
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

/* ---------------------------------------------------------------------------------
 * Predefined types: a hash table keyed by handle value, filled on first use.
 */
#define NAMED_SLOTS 256           /* power of two, well over twice the named types,
                                   * so a miss (every derived type) stops at once */
#define NAMED_MAX_TYPES 96
#define NAMED_MAX_BLOCKS 4        /* pair types: value, padding, index */

typedef struct named_slot {
    uintptr_t key;
    const rmaib_layout_t *lay;   /* NULL: empty slot */
} named_slot_t;

static named_slot_t named_tab[NAMED_SLOTS];
static struct named_box {
    box_t h;
    rmaib_block_t blocks[NAMED_MAX_BLOCKS];
} named_store[NAMED_MAX_TYPES];
static atomic_int named_ready;

/* Derived types and named types not in the table go the slow way, one at a time. */
static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static int layout_keyval = MPI_KEYVAL_INVALID;

/* Named types the table does not list (an MPI's extras): built once, kept. */
typedef struct extra {
    struct extra *next;
    uintptr_t key;
    heap_box_t *box;
} extra_t;
static extra_t *extras;

/* An int handle (MPICH) or a pointer handle (Open MPI) as an integer key. */
static inline uintptr_t dt_key(MPI_Datatype dt)
{
    union {
        MPI_Datatype dt;
        uintptr_t key;
    } u;
    u.key = 0;
    u.dt = dt;
    return u.key;
}

static inline size_t named_slot_of(uintptr_t key)
{
    return (size_t) (((uint64_t) key * UINT64_C(0x9e3779b97f4a7c15)) >> 56) & (NAMED_SLOTS - 1);
}

/* An empty slot has lay NULL, which is also the answer for a miss. */
static inline const rmaib_layout_t *named_find(uintptr_t key)
{
    for (size_t i = named_slot_of(key);; i = (i + 1) & (NAMED_SLOTS - 1))
        if (named_tab[i].key == key || !named_tab[i].lay)
            return named_tab[i].lay;
}

static void named_insert(uintptr_t key, const rmaib_layout_t *lay)
{
    size_t i = named_slot_of(key);
    while (named_tab[i].lay)
        i = (i + 1) & (NAMED_SLOTS - 1);
    named_tab[i].key = key;
    named_tab[i].lay = lay;
}

/* How a named type's basic kind is found: given outright, or by its width. */
enum {
    BY_SINT = RMAIB_BASIC_COUNT, BY_UINT, BY_FLOAT, BY_COMPLEX, BY_BOOL, BY_2INT
};

typedef struct named_spec {
    MPI_Datatype dt;
    int kind;
} named_spec_t;

static const named_spec_t named_spec[] = {
    { MPI_CHAR, RMAIB_BASIC_CHAR },
    { MPI_SIGNED_CHAR, BY_SINT },
    { MPI_UNSIGNED_CHAR, BY_UINT },
    { MPI_BYTE, RMAIB_BASIC_BYTE },
    { MPI_PACKED, RMAIB_BASIC_BYTE },
    { MPI_WCHAR, BY_UINT },
    { MPI_SHORT, BY_SINT },
    { MPI_UNSIGNED_SHORT, BY_UINT },
    { MPI_INT, BY_SINT },
    { MPI_UNSIGNED, BY_UINT },
    { MPI_LONG, BY_SINT },
    { MPI_UNSIGNED_LONG, BY_UINT },
    { MPI_LONG_LONG_INT, BY_SINT },
    { MPI_LONG_LONG, BY_SINT },
    { MPI_UNSIGNED_LONG_LONG, BY_UINT },
    { MPI_FLOAT, RMAIB_BASIC_FLOAT },
    { MPI_DOUBLE, RMAIB_BASIC_DOUBLE },
    { MPI_LONG_DOUBLE, RMAIB_BASIC_LONG_DOUBLE },
    { MPI_C_BOOL, BY_BOOL },
    { MPI_INT8_T, BY_SINT },
    { MPI_INT16_T, BY_SINT },
    { MPI_INT32_T, BY_SINT },
    { MPI_INT64_T, BY_SINT },
    { MPI_UINT8_T, BY_UINT },
    { MPI_UINT16_T, BY_UINT },
    { MPI_UINT32_T, BY_UINT },
    { MPI_UINT64_T, BY_UINT },
    { MPI_C_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
    { MPI_C_FLOAT_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
    { MPI_C_DOUBLE_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX },
    { MPI_C_LONG_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX },
    { MPI_AINT, BY_SINT },
    { MPI_OFFSET, BY_SINT },
    { MPI_COUNT, BY_SINT },
    { MPI_FLOAT_INT, RMAIB_BASIC_FLOAT_INT },
    { MPI_DOUBLE_INT, RMAIB_BASIC_DOUBLE_INT },
    { MPI_LONG_INT, RMAIB_BASIC_LONG_INT },
    { MPI_2INT, RMAIB_BASIC_2INT },
    { MPI_SHORT_INT, RMAIB_BASIC_SHORT_INT },
    { MPI_LONG_DOUBLE_INT, RMAIB_BASIC_LONG_DOUBLE_INT },
    /* Fortran types as C sees them; an MPI built without Fortran makes them
     * MPI_DATATYPE_NULL.  LOGICAL is an integer of its width: the logical ops then
     * give 0/1, which is what the usual compilers' .false./.true. are. */
#ifdef MPI_CHARACTER
    { MPI_CHARACTER, RMAIB_BASIC_CHAR },
#endif
#ifdef MPI_INTEGER
    { MPI_INTEGER, BY_SINT },
#endif
#ifdef MPI_LOGICAL
    { MPI_LOGICAL, BY_SINT },
#endif
#ifdef MPI_REAL
    { MPI_REAL, BY_FLOAT },
#endif
#ifdef MPI_DOUBLE_PRECISION
    { MPI_DOUBLE_PRECISION, BY_FLOAT },
#endif
#ifdef MPI_COMPLEX
    { MPI_COMPLEX, BY_COMPLEX },
#endif
#ifdef MPI_DOUBLE_COMPLEX
    { MPI_DOUBLE_COMPLEX, BY_COMPLEX },
#endif
#ifdef MPI_2INTEGER
    { MPI_2INTEGER, BY_2INT },
#endif
#ifdef MPI_2REAL
    { MPI_2REAL, RMAIB_BASIC_NONE },
#endif
#ifdef MPI_2DOUBLE_PRECISION
    { MPI_2DOUBLE_PRECISION, RMAIB_BASIC_NONE },
#endif
#ifdef MPI_INTEGER1
    { MPI_INTEGER1, BY_SINT },
#endif
#ifdef MPI_INTEGER2
    { MPI_INTEGER2, BY_SINT },
#endif
#ifdef MPI_INTEGER4
    { MPI_INTEGER4, BY_SINT },
#endif
#ifdef MPI_INTEGER8
    { MPI_INTEGER8, BY_SINT },
#endif
#ifdef MPI_INTEGER16
    { MPI_INTEGER16, BY_SINT },
#endif
#ifdef MPI_REAL2
    { MPI_REAL2, BY_FLOAT },
#endif
#ifdef MPI_REAL4
    { MPI_REAL4, BY_FLOAT },
#endif
#ifdef MPI_REAL8
    { MPI_REAL8, BY_FLOAT },
#endif
#ifdef MPI_REAL16
    { MPI_REAL16, BY_FLOAT },
#endif
#ifdef MPI_COMPLEX8
    { MPI_COMPLEX8, BY_COMPLEX },
#endif
#ifdef MPI_COMPLEX16
    { MPI_COMPLEX16, BY_COMPLEX },
#endif
#ifdef MPI_COMPLEX32
    { MPI_COMPLEX32, BY_COMPLEX },
#endif
#ifdef MPI_CXX_BOOL
    { MPI_CXX_BOOL, BY_BOOL },
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    { MPI_CXX_FLOAT_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
    { MPI_CXX_DOUBLE_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX },
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
    { MPI_CXX_LONG_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX },
#endif
};

_Static_assert(sizeof named_spec / sizeof named_spec[0] <= NAMED_MAX_TYPES, "grow NAMED_MAX_TYPES");
_Static_assert(2 * NAMED_MAX_TYPES <= NAMED_SLOTS, "keep the table at most half full");

static rmaib_basic_t kind_basic(int kind, MPI_Count size)
{
    switch (kind) {
    case BY_SINT:
        return size == 1 ? RMAIB_BASIC_INT8 : size == 2 ? RMAIB_BASIC_INT16
            : size == 4 ? RMAIB_BASIC_INT32 : size == 8 ? RMAIB_BASIC_INT64 : RMAIB_BASIC_NONE;
    case BY_UINT:
        return size == 1 ? RMAIB_BASIC_UINT8 : size == 2 ? RMAIB_BASIC_UINT16
            : size == 4 ? RMAIB_BASIC_UINT32 : size == 8 ? RMAIB_BASIC_UINT64 : RMAIB_BASIC_NONE;
    case BY_FLOAT:
        /* 2- and 16-byte reals are not C float types: no arithmetic for them. */
        return size == (MPI_Count) sizeof(float) ? RMAIB_BASIC_FLOAT
            : size == (MPI_Count) sizeof(double) ? RMAIB_BASIC_DOUBLE : RMAIB_BASIC_NONE;
    case BY_COMPLEX:
        return size == 2 * (MPI_Count) sizeof(float) ? RMAIB_BASIC_C_FLOAT_COMPLEX
            : size == 2 * (MPI_Count) sizeof(double) ? RMAIB_BASIC_C_DOUBLE_COMPLEX : RMAIB_BASIC_NONE;
    case BY_BOOL:
        return size == (MPI_Count) sizeof(_Bool) ? RMAIB_BASIC_BOOL : RMAIB_BASIC_NONE;
    case BY_2INT:
        return size == 2 * (MPI_Count) sizeof(int) ? RMAIB_BASIC_2INT : RMAIB_BASIC_NONE;
    default:
        return (rmaib_basic_t) kind;
    }
}

static void layout_set(rmaib_layout_t *l, const bounds_t *b, const rmaib_block_t *blocks, size_t n,
                       rmaib_basic_t basic, size_t basic_size)
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

/* Fill nb for one named type; *fits is 0 if it has more blocks than a slot holds. */
static int named_fill(struct named_box *nb, MPI_Datatype dt, int kind, int *fits)
{
    int status;
    flat_t f;
    bounds_t b;
    rmaib_basic_t basic;

    flat_init(&f);
    *fits = 0;
    status = bounds_get(dt, &b);
    if (status)
        goto fn_fail;
    /* The pair types have holes; MPI alone knows where. */
    if (b.true_lb == 0 && b.true_extent == b.size) {
        status = flat_append(&f, 0, (size_t) b.size);
    } else {
        status = flat_probe(dt, &f);
    }
    if (status)
        goto fn_fail;
    if (f.n > NAMED_MAX_BLOCKS)
        goto fn_exit;
    *fits = 1;
    if (f.n)
        memcpy(nb->blocks, f.b, f.n * sizeof *f.b);
    basic = kind_basic(kind, b.size);
    atomic_init(&nb->h.refs, PERMANENT);
    layout_set(&nb->h.lay, &b, nb->blocks, f.n, basic, (size_t) b.size);

  fn_exit:
    flat_free(&f);
    return status;
  fn_fail:
    goto fn_exit;
}

static int layout_delete(MPI_Datatype dt, int keyval, void *val, void *extra)
{
    (void) dt;
    (void) keyval;
    (void) extra;
    rmaib_mpi_layout_release(val);
    return MPI_SUCCESS;
}

/* With slow_lock held. */
static int named_init(void)
{
    int status = MPI_SUCCESS, initialized = 0;
    size_t used = 0;

    if (atomic_load_explicit(&named_ready, memory_order_relaxed))
        goto fn_exit;
    PMPI_Initialized(&initialized);
    if (!initialized) {
        status = MPI_ERR_OTHER;
        goto fn_fail;
    }
    if (layout_keyval == MPI_KEYVAL_INVALID) {
        status = PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, layout_delete, &layout_keyval, NULL);
        if (status)
            goto fn_fail;
    }
    for (size_t i = 0; i < sizeof named_spec / sizeof named_spec[0]; i++) {
        MPI_Datatype dt = named_spec[i].dt;
        uintptr_t key = dt_key(dt);
        int fits;

        /* Absent types are MPI_DATATYPE_NULL; aliases (MPI_LONG_LONG) share a handle. */
        if (dt == MPI_DATATYPE_NULL || named_find(key))
            continue;
        status = named_fill(&named_store[used], dt, named_spec[i].kind, &fits);
        if (status)
            goto fn_fail;
        if (fits)
            named_insert(key, &named_store[used++].h.lay);
    }
    atomic_store_explicit(&named_ready, 1, memory_order_release);

  fn_exit:
    return status;
  fn_fail:
    memset(named_tab, 0, sizeof named_tab);
    goto fn_exit;
}

/* ---------------------------------------------------------------------------------
 * Decoding derived types.
 */
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

static int is_named(MPI_Datatype dt, int *named)
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
        if (ct->t[k] != MPI_DATATYPE_NULL && is_named(ct->t[k], &named) == MPI_SUCCESS && !named)
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

static int flatten(MPI_Datatype dt, flat_t *f);

/* A named type as a leaf. */
static int flatten_named(MPI_Datatype dt, flat_t *f)
{
    int status = MPI_SUCCESS;
    const rmaib_layout_t *l = named_find(dt_key(dt));
    MPI_Count lb, extent;

    if (l) {
        f->extent = l->extent;
        for (size_t j = 0; j < l->nblocks && !status; j++)
            status = flat_append(f, l->blocks[j].disp, l->blocks[j].len);
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
    status = flat_probe(dt, f);
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
    status = flat_replicate(&cur, el, 0, 1, 0);
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
        status = flat_replicate(&next, &cur, 0, sub, stride);
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
    status = flat_replicate(f, &cur, base, 1, 0);

  fn_exit:
    flat_free(&cur);
    flat_free(&next);
    return status;
  fn_fail:
    goto fn_exit;
}

/* Combiners with one component type, whose element is already flattened in el. */
static int flatten_one(const contents_t *ct, const flat_t *el, flat_t *f)
{
    int64_t n, bl, d;
    int status = MPI_SUCCESS;

    switch (ct->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:     /* same type map; the bounds come from MPI */
        return flat_replicate(f, el, 0, 1, 0);

    case MPI_COMBINER_CONTIGUOUS:
        if (!ct_has(ct, 1, 0, 1, 1))
            return MPI_ERR_INTERN;
        return flat_replicate(f, el, 0, ct_count(ct, 0, 0), el->extent);

    case MPI_COMBINER_VECTOR:
        if (!ct_has(ct, 3, 0, 3, 1))
            return MPI_ERR_INTERN;
        if (__builtin_mul_overflow(ct_count(ct, 2, 2), el->extent, &d))
            return MPI_ERR_TYPE;
        return flat_vector(f, el, ct_count(ct, 0, 0), ct_count(ct, 1, 1), d);

    case MPI_COMBINER_HVECTOR:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HVECTOR_INTEGER:
#endif
        if (!ct_has(ct, 2, 1, 3, 1))
            return MPI_ERR_INTERN;
        return flat_vector(f, el, ct_count(ct, 0, 0), ct_count(ct, 1, 1), ct_addr(ct, 0, 2));

    case MPI_COMBINER_INDEXED:
        if (!ct_has(ct, 1, 0, 1, 1))
            return MPI_ERR_INTERN;
        n = ct_count(ct, 0, 0);
        if (!ct_has(ct, (size_t) (2 * n + 1), 0, (size_t) (2 * n + 1), 1))
            return MPI_ERR_INTERN;
        for (int64_t k = 0; k < n && !status; k++) {
            if (__builtin_mul_overflow(ct_count(ct, (size_t) (1 + n + k), (size_t) (1 + n + k)),
                                       el->extent, &d))
                return MPI_ERR_TYPE;
            status = flat_replicate(f, el, d, ct_count(ct, (size_t) (1 + k), (size_t) (1 + k)), el->extent);
        }
        return status;

    case MPI_COMBINER_HINDEXED:
#ifdef HAVE_INTEGER_COMBINERS
    case MPI_COMBINER_HINDEXED_INTEGER:
#endif
        if (!ct_has(ct, 1, 0, 1, 1))
            return MPI_ERR_INTERN;
        n = ct_count(ct, 0, 0);
        if (!ct_has(ct, (size_t) (n + 1), (size_t) n, (size_t) (2 * n + 1), 1))
            return MPI_ERR_INTERN;
        for (int64_t k = 0; k < n && !status; k++)
            status = flat_replicate(f, el, ct_addr(ct, (size_t) k, (size_t) (1 + n + k)),
                                    ct_count(ct, (size_t) (1 + k), (size_t) (1 + k)), el->extent);
        return status;

    case MPI_COMBINER_INDEXED_BLOCK:
        if (!ct_has(ct, 2, 0, 2, 1))
            return MPI_ERR_INTERN;
        n = ct_count(ct, 0, 0);
        bl = ct_count(ct, 1, 1);
        if (!ct_has(ct, (size_t) (n + 2), 0, (size_t) (n + 2), 1))
            return MPI_ERR_INTERN;
        for (int64_t k = 0; k < n && !status; k++) {
            if (__builtin_mul_overflow(ct_count(ct, (size_t) (2 + k), (size_t) (2 + k)), el->extent, &d))
                return MPI_ERR_TYPE;
            status = flat_replicate(f, el, d, bl, el->extent);
        }
        return status;

    case MPI_COMBINER_HINDEXED_BLOCK:
        if (!ct_has(ct, 2, 0, 2, 1))
            return MPI_ERR_INTERN;
        n = ct_count(ct, 0, 0);
        bl = ct_count(ct, 1, 1);
        if (!ct_has(ct, 2, (size_t) n, (size_t) (n + 2), 1))
            return MPI_ERR_INTERN;
        for (int64_t k = 0; k < n && !status; k++)
            status = flat_replicate(f, el, ct_addr(ct, (size_t) k, (size_t) (2 + k)), bl, el->extent);
        return status;

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
        basic.basic = kind_basic(kind, size);
        basic.size = basic.basic == RMAIB_BASIC_NONE ? 0 : (size_t) size;
    }
    for (size_t k = 0; kind < 0 && k < ct->nt; k++) {
        flat_init(&el);
        status = flatten(ct->t[k], &el);
        if (status)
            goto fn_fail;
        track_merge(&basic, el.data.basic != TRACK_UNSET ? el.data : el.any);
        flat_free(&el);
    }
    if (basic.basic == TRACK_UNSET)
        basic = (track_t) { RMAIB_BASIC_NONE, 0 };

    status = flat_probe(dt, f);
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
        status = flatten(ct->t[k], &el);
        if (status)
            goto fn_fail;
        track_merge(&f->any, el.any);
        status = flat_replicate(f, &el, ct_addr(ct, (size_t) k, (size_t) (1 + n + k)),
                                ct_count(ct, (size_t) (1 + k), (size_t) (1 + k)), el.extent);
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
static int flatten(MPI_Datatype dt, flat_t *f)
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
        status = flatten(ct.t[0], &el);
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

/* ---------------------------------------------------------------------------------
 * Layouts of derived (and unlisted named) types.
 */
static int layout_build(MPI_Datatype dt, heap_box_t **out)
{
    int status;
    flat_t f;
    bounds_t b;
    heap_box_t *box = NULL;
    size_t total = 0;
    track_t basic;

    flat_init(&f);
    status = bounds_get(dt, &b);
    if (status)
        goto fn_fail;
    status = flatten(dt, &f);
    if (status)
        goto fn_fail;
    /* A decoder that disagrees with MPI about the size would corrupt memory later. */
    for (size_t j = 0; j < f.n; j++)
        total += f.b[j].len;
    if (total != (size_t) b.size) {
        status = MPI_ERR_INTERN;
        goto fn_fail;
    }
    if (f.n > (SIZE_MAX - sizeof *box) / sizeof box->blocks[0]) {
        status = MPI_ERR_NO_MEM;
        goto fn_fail;
    }
    box = malloc(sizeof *box + f.n * sizeof box->blocks[0]);
    if (!box) {
        status = MPI_ERR_NO_MEM;
        goto fn_fail;
    }
    if (f.n)
        memcpy(box->blocks, f.b, f.n * sizeof box->blocks[0]);
    atomic_init(&box->h.refs, 1);
    basic = f.data.basic != TRACK_UNSET ? f.data : f.any;
    if (basic.basic == TRACK_UNSET)
        basic = (track_t) { RMAIB_BASIC_NONE, 0 };
    layout_set(&box->h.lay, &b, box->blocks, f.n, (rmaib_basic_t) basic.basic, basic.size);
    *out = box;

  fn_exit:
    flat_free(&f);
    return status;
  fn_fail:
    goto fn_exit;
}

/* MPI has no query for "committed"; MPI_Pack of nothing refuses an uncommitted type
 * with MPI_ERR_TYPE (MPICH and Open MPI alike; MPI_Pack_size does not check on Open
 * MPI).  Errors are returned, not raised, for the duration. */
static int check_committed(MPI_Datatype dt)
{
    int status, rc, cls = MPI_SUCCESS, pos = 0;
    unsigned char dummy[1];
    MPI_Errhandler prev;

    status = PMPI_Comm_get_errhandler(MPI_COMM_SELF, &prev);
    if (status)
        return status;
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rc = PMPI_Pack(dummy, 0, dt, dummy, 0, &pos, MPI_COMM_SELF);
    PMPI_Comm_set_errhandler(MPI_COMM_SELF, prev);
    PMPI_Errhandler_free(&prev);
    if (rc != MPI_SUCCESS)
        PMPI_Error_class(rc, &cls);
    return cls == MPI_ERR_TYPE ? MPI_ERR_TYPE : MPI_SUCCESS;
}

/* With slow_lock held. */
static int extra_layout(MPI_Datatype dt, const rmaib_layout_t **lay)
{
    int status;
    uintptr_t key = dt_key(dt);
    extra_t *e;

    for (e = extras; e; e = e->next)
        if (e->key == key) {
            *lay = &e->box->h.lay;
            return MPI_SUCCESS;
        }
    e = malloc(sizeof *e);
    if (!e)
        return MPI_ERR_NO_MEM;
    status = layout_build(dt, &e->box);
    if (status) {
        free(e);
        return status;
    }
    atomic_store_explicit(&e->box->h.refs, PERMANENT, memory_order_relaxed);
    e->key = key;
    e->next = extras;
    extras = e;
    *lay = &e->box->h.lay;
    return MPI_SUCCESS;
}

static const rmaib_layout_t *layout_slow(MPI_Datatype dt, int *err)
{
    int status = MPI_SUCCESS, flag = 0, named, locked = 0;
    const rmaib_layout_t *lay = NULL;
    heap_box_t *box = NULL;
    void *val;

    if (dt == MPI_DATATYPE_NULL) {
        status = MPI_ERR_TYPE;
        goto fn_fail;
    }
    if (!atomic_load_explicit(&named_ready, memory_order_acquire)) {
        pthread_mutex_lock(&slow_lock);
        status = named_init();
        pthread_mutex_unlock(&slow_lock);
        if (status)
            goto fn_fail;
        lay = named_find(dt_key(dt));
        if (lay)
            goto fn_exit;
    }

    status = PMPI_Type_get_attr(dt, layout_keyval, &val, &flag);
    if (status)
        goto fn_fail;
    if (flag) {
        lay = val;
        goto fn_exit;
    }

    /* Two threads missing on one type must not both set the attribute: the second
     * set would free the layout the first already returned. */
    pthread_mutex_lock(&slow_lock);
    locked = 1;
    status = PMPI_Type_get_attr(dt, layout_keyval, &val, &flag);
    if (status)
        goto fn_fail;
    if (flag) {
        lay = val;
        goto fn_exit;
    }
    status = is_named(dt, &named);
    if (status)
        goto fn_fail;
    if (named) {
        status = extra_layout(dt, &lay);
        if (status)
            goto fn_fail;
        goto fn_exit;
    }
    status = check_committed(dt);
    if (status)
        goto fn_fail;
    status = layout_build(dt, &box);
    if (status)
        goto fn_fail;
    status = PMPI_Type_set_attr(dt, layout_keyval, &box->h.lay);
    if (status)
        goto fn_fail;
    lay = &box->h.lay;
    box = NULL;

  fn_exit:
    if (locked)
        pthread_mutex_unlock(&slow_lock);
    return lay;
  fn_fail:
    free(box);
    lay = NULL;
    /* Our own statuses are classes already (and MPI may not be up to ask). */
    if (status == MPI_ERR_TYPE || status == MPI_ERR_NO_MEM || status == MPI_ERR_INTERN
        || status == MPI_ERR_OTHER)
        *err = status;
    else if (PMPI_Error_class(status, err) != MPI_SUCCESS)
        *err = MPI_ERR_OTHER;
    goto fn_exit;
}

/* ---------------------------------------------------------------------------------
 * Entry points.
 */
const rmaib_layout_t *rmaib_mpi_layout(MPI_Datatype dt, int *err)
{
    /* Every predefined type is answered here, without a call into MPI. */
    if (__builtin_expect(atomic_load_explicit(&named_ready, memory_order_acquire), 1)) {
        const rmaib_layout_t *lay = named_find(dt_key(dt));
        if (lay)
            return lay;
    }
    return layout_slow(dt, err);
}

const rmaib_layout_t *rmaib_mpi_layout_named(MPI_Datatype dt)
{
    if (__builtin_expect(!atomic_load_explicit(&named_ready, memory_order_acquire), 0)) {
        pthread_mutex_lock(&slow_lock);
        int status = named_init();
        pthread_mutex_unlock(&slow_lock);
        if (status)
            return NULL;
    }
    return named_find(dt_key(dt));
}

rmaib_basic_t rmaib_mpi_basic(MPI_Datatype dt)
{
    const rmaib_layout_t *lay = rmaib_mpi_layout_named(dt);
    return lay ? lay->basic : RMAIB_BASIC_NONE;
}

void rmaib_mpi_layout_finalize(void)
{
    pthread_mutex_lock(&slow_lock);
    atomic_store_explicit(&named_ready, 0, memory_order_relaxed);
    memset(named_tab, 0, sizeof named_tab);
    while (extras) {
        extra_t *e = extras;
        extras = e->next;
        free(e->box);
        free(e);
    }
    /* Live types keep their attributes and free them when they go. */
    if (layout_keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_free_keyval(&layout_keyval);
    layout_keyval = MPI_KEYVAL_INVALID;
    pthread_mutex_unlock(&slow_lock);
}
