/*
 * MPI datatypes as rmaib layouts (see datatype.h): the cache.  Predefined types are
 * answered from a hash table filled on first use; derived types are flattened
 * (datatype_decode.c) once and their layout kept as an attribute of the type.
 * The other parts are listed in datatype_impl.h.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datatype_impl.h"

/* ---------------------------------------------------------------------------------
 * Reference counts (datatype.h: an operation may keep a layout past MPI_Type_free).
 */
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
 * Predefined types: a hash table keyed by handle value, filled on first use.
 */
#define NAMED_SLOTS 256           /* power of two, well over twice the named types,
                                   * so a miss (every derived type) stops at once */

typedef rmaib_mpi_named_slot_t named_slot_t;

static named_slot_t named_tab[NAMED_SLOTS];
const named_slot_t *rmaib_mpi_named_last;
static struct named_box named_store[NAMED_MAX_TYPES];
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

static inline size_t named_slot_of(uintptr_t key)
{
    return (size_t) (((uint64_t) key * UINT64_C(0x9e3779b97f4a7c15)) >> 56) & (NAMED_SLOTS - 1);
}

/* The slot of key, or the empty slot where a miss stops: its lay, NULL, is also
 * the answer for a miss. */
static inline const named_slot_t *named_slot(uintptr_t key)
{
    for (size_t i = named_slot_of(key);; i = (i + 1) & (NAMED_SLOTS - 1))
        if (named_tab[i].key == key || !named_tab[i].lay)
            return &named_tab[i];
}

static inline const rmaib_layout_t *named_find(uintptr_t key)
{
    return named_slot(key)->lay;
}

/* named_find for the entry points, remembering a hit (rmaib_mpi_named_hit). */
static inline const rmaib_layout_t *named_find_last(uintptr_t key)
{
    const named_slot_t *s = named_slot(key);
    if (s->lay)
        __atomic_store_n(&rmaib_mpi_named_last, s, __ATOMIC_RELEASE);
    return s->lay;
}

static void named_insert(uintptr_t key, const rmaib_layout_t *lay)
{
    size_t i = named_slot_of(key);
    while (named_tab[i].lay)
        i = (i + 1) & (NAMED_SLOTS - 1);
    named_tab[i].key = key;
    named_tab[i].lay = lay;
}

const rmaib_layout_t *rmaib_mpi_named_lookup(MPI_Datatype dt)
{
    return named_find(rmaib_mpi_dt_key(dt));
}

_Static_assert(2 * NAMED_MAX_TYPES <= NAMED_SLOTS, "keep the table at most half full");

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
    for (size_t i = 0; i < rmaib_mpi_named_count; i++) {
        MPI_Datatype dt = rmaib_mpi_named_spec[i].dt;
        uintptr_t key = rmaib_mpi_dt_key(dt);
        int fits;

        /* Absent types are MPI_DATATYPE_NULL; aliases (MPI_LONG_LONG) share a handle. */
        if (dt == MPI_DATATYPE_NULL || named_find(key))
            continue;
        status = rmaib_mpi_named_fill(&named_store[used], dt, rmaib_mpi_named_spec[i].kind, &fits);
        if (status)
            goto fn_fail;
        if (fits)
            named_insert(key, &named_store[used++].h.lay);
    }
    atomic_store_explicit(&named_ready, 1, memory_order_release);

  fn_exit:
    return status;
  fn_fail:
    __atomic_store_n(&rmaib_mpi_named_last, NULL, __ATOMIC_RELAXED);
    memset(named_tab, 0, sizeof named_tab);
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
    status = rmaib_mpi_bounds_get(dt, &b);
    if (status)
        goto fn_fail;
    status = rmaib_mpi_flatten(dt, &f);
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
    rmaib_mpi_layout_set(&box->h.lay, &b, box->blocks, f.n, (rmaib_basic_t) basic.basic,
                         basic.size);
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
    uintptr_t key = rmaib_mpi_dt_key(dt);
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

/* The error class of a failed status. */
static int status_class(int status)
{
    int cls;
    /* Our own statuses are classes already (and MPI may not be up to ask). */
    if (status == MPI_ERR_TYPE || status == MPI_ERR_NO_MEM || status == MPI_ERR_INTERN
        || status == MPI_ERR_OTHER)
        return status;
    if (PMPI_Error_class(status, &cls) != MPI_SUCCESS)
        return MPI_ERR_OTHER;
    return cls;
}

/* Out of line: inlined, its frame would cost every predefined type's lookup. */
static __attribute__((noinline)) const rmaib_layout_t *layout_slow(MPI_Datatype dt, int *err)
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
        lay = named_find(rmaib_mpi_dt_key(dt));
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
    status = rmaib_mpi_is_named(dt, &named);
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
    *err = status_class(status);
    goto fn_exit;
}

/* ---------------------------------------------------------------------------------
 * Entry points.
 */
const rmaib_layout_t *rmaib_mpi_layout_find(MPI_Datatype dt, int *err)
{
    /* Every predefined type is answered here, without a call into MPI. */
    if (__builtin_expect(atomic_load_explicit(&named_ready, memory_order_acquire), 1)) {
        const rmaib_layout_t *lay = named_find_last(rmaib_mpi_dt_key(dt));
        if (lay)
            return lay;
    }
    return layout_slow(dt, err);
}

const rmaib_layout_t *rmaib_mpi_layout_named_find(MPI_Datatype dt)
{
    if (__builtin_expect(!atomic_load_explicit(&named_ready, memory_order_acquire), 0)) {
        pthread_mutex_lock(&slow_lock);
        int status = named_init();
        pthread_mutex_unlock(&slow_lock);
        if (status)
            return NULL;
    }
    return named_find_last(rmaib_mpi_dt_key(dt));
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
    __atomic_store_n(&rmaib_mpi_named_last, NULL, __ATOMIC_RELAXED);
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
