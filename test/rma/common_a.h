/*
 * Helpers shared by the block A tests (windows, data movement, attributes, errors):
 * data patterns that name their origin, target and index, a sentinel for bytes
 * nobody may touch, local access to one's own window memory, error-class checks,
 * and a table of derived datatypes together with the byte offsets of their
 * elements, computed here independently of MPI so that a misplaced element is seen.
 */
#ifndef RMAIB_TEST_COMMON_A_H
#define RMAIB_TEST_COMMON_A_H

#include <sched.h>
#include <stdint.h>
#include "tap.h"

/* Value no test ever writes: every byte outside a transfer must still hold it. */
#define SENT_INT ((int) 0xDEADBEEF)
#define SENT_BYTE 0xA5

/* A positive int unique for (origin, target, slot, index) with up to 64 ranks,
 * 1024 slots and 64 elements per slot; never equal to SENT_INT. */
static inline int pat(int o, int t, int slot, int j)
{
    return 1 + (((o * 64 + t) * 1024 + slot % 1024) * 64 + j % 64);
}

/* A byte for (origin, target, index); never SENT_BYTE. */
static inline unsigned char bpat(int o, int t, long i)
{
    unsigned v = (unsigned) (o * 131 + t * 29 + i * 7 + (i >> 8) * 13 + (i >> 16) * 3) % 254u;
    return (unsigned char) (v >= SENT_BYTE ? v + 1 : v);
}

static inline void fill_int(int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

/* Index of the first int in p[0..n) that is not v, or -1. */
static inline long find_not_int(const int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return (long) i;
    return -1;
}

static inline long find_not_byte(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return (long) i;
    return -1;
}

/* Local load/store access to one's own window memory, bracketed by a lock on
 * oneself so that the public and private copies agree (MPI-3 §11.5.5). */
static inline void self_begin(MPI_Win win, int lock_type)
{
    int me;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Group_rank(g, &me);
    MPI_Group_free(&g);
    MPI_Win_lock(lock_type, me, 0, win);
    MPI_Win_sync(win);
}

static inline void self_end(MPI_Win win)
{
    int me;
    MPI_Group g;
    MPI_Win_get_group(win, &g);
    MPI_Group_rank(g, &me);
    MPI_Group_free(&g);
    MPI_Win_sync(win);
    MPI_Win_unlock(me, win);
}

/* A short pause for polling loops: the tests run 8 ranks on 2 cores. */
static inline void poll_pause(void)
{
    sched_yield();
    usleep(50);
}

/* MPI_Waitall with a real status array: gcc 12 warns (stringop-overflow) on
 * MPI_STATUSES_IGNORE against MPICH's prototype. */
static inline int waitall(int n, MPI_Request *req)
{
    MPI_Status *st = malloc((size_t) (n > 0 ? n : 1) * sizeof(MPI_Status));
    int rc = MPI_Waitall(n, req, st);
    free(st);
    return rc;
}

static inline const char *errclass_name(int c)
{
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_DISP: return "MPI_ERR_DISP";
    case MPI_ERR_WIN: return "MPI_ERR_WIN";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE";
    default: return "(other class)";
    }
}

static inline int errclass_of(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

/* Record a failure unless rc has the error class want. */
#define EXPECT_CLASS(rc, want, what) do {                                                \
        int got_ = errclass_of(rc);                                                      \
        TAP_CHECK(got_ == (want), "%s: got %s (%d), want %s", (what),                    \
                  errclass_name(got_), got_, errclass_name(want));                       \
    } while (0)

/* ---- derived datatypes with known layouts ----------------------------------- */

/* A datatype made of MPI_INTs, and where its ints lie: off[i] is the byte offset of
 * the i-th int of its type map (in type-map order, may be negative), computed by
 * hand from the constructor's arguments.  count copies lie extent bytes apart. */
typedef struct {
    const char *name;
    MPI_Datatype type;
    int n;
    long off[16];
    MPI_Aint extent;
} layout_t;

#define LAYOUT_INTS 12       /* every transfer moves 12 ints: n divides 12 */
#define LAYOUT_SLOT 256      /* bytes of buffer per transfer */
#define LAYOUT_SHIFT 16      /* buffer pointer / target_disp offset inside a slot */
#define LAYOUT_MAX 16

static inline void layout_set(layout_t *l, const char *name, MPI_Datatype t, int n,
                              const long *off)
{
    MPI_Aint lb;
    l->name = name;
    l->type = t;
    l->n = n;
    for (int i = 0; i < n; i++)
        l->off[i] = off[i];
    if (t != MPI_INT)
        MPI_Type_commit(&l->type);
    MPI_Type_get_extent(l->type, &lb, &l->extent);
}

/* Byte offset (relative to the buffer pointer) of the k-th int moved by
 * LAYOUT_INTS/n copies of the layout. */
static inline long layout_pos(const layout_t *l, int k)
{
    return l->off[k % l->n] + (long) (k / l->n) * (long) l->extent;
}

static inline int layout_count(const layout_t *l)
{
    return LAYOUT_INTS / l->n;
}

/* Builds the table; returns the number of layouts. */
static inline int layouts_build(layout_t *L)
{
    int n = 0;
    MPI_Datatype t, u;

    { long o[] = { 0 }; layout_set(&L[n++], "int", MPI_INT, 1, o); }

    MPI_Type_contiguous(3, MPI_INT, &t);
    { long o[] = { 0, 4, 8 }; layout_set(&L[n++], "contiguous(3)", t, 3, o); }

    MPI_Type_vector(3, 2, 5, MPI_INT, &t);
    { long o[] = { 0, 4, 20, 24, 40, 44 }; layout_set(&L[n++], "vector(3,2,5)", t, 6, o); }

    MPI_Type_create_hvector(3, 2, 28, MPI_INT, &t);
    { long o[] = { 0, 4, 28, 32, 56, 60 }; layout_set(&L[n++], "hvector(3,2,28B)", t, 6, o); }

    {
        int bl[] = { 2, 1, 3 }, d[] = { 7, 0, 3 };
        MPI_Type_indexed(3, bl, d, MPI_INT, &t);
        long o[] = { 28, 32, 0, 12, 16, 20 };
        layout_set(&L[n++], "indexed{2,1,3}@{7,0,3}", t, 6, o);
    }
    {
        int bl[] = { 2, 1, 3 };
        MPI_Aint d[] = { 40, 4, 20 };
        MPI_Type_create_hindexed(3, bl, d, MPI_INT, &t);
        long o[] = { 40, 44, 4, 20, 24, 28 };
        layout_set(&L[n++], "hindexed{2,1,3}@{40,4,20}B", t, 6, o);
    }
    {
        int d[] = { 1, 6, 12 };
        MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t);
        long o[] = { 4, 8, 24, 28, 48, 52 };
        layout_set(&L[n++], "indexed_block(2)@{1,6,12}", t, 6, o);
    }
    {
        MPI_Aint d[] = { 0, 20, 48 };
        MPI_Type_create_hindexed_block(3, 2, d, MPI_INT, &t);
        long o[] = { 0, 4, 20, 24, 48, 52 };
        layout_set(&L[n++], "hindexed_block(2)@{0,20,48}B", t, 6, o);
    }
    {
        int bl[] = { 1, 2, 3 };
        MPI_Aint d[] = { 0, 12, 32 };
        MPI_Datatype ty[] = { MPI_INT, MPI_INT, MPI_INT };
        MPI_Type_create_struct(3, bl, d, ty, &t);
        long o[] = { 0, 12, 16, 32, 36, 40 };
        layout_set(&L[n++], "struct{1,2,3 int}@{0,12,32}B", t, 6, o);
    }
    {
        /* elements at negative offsets and a lower bound of -8 */
        int bl[] = { 1, 2 };
        MPI_Aint d[] = { -8, 4 };
        MPI_Type_create_hindexed(2, bl, d, MPI_INT, &u);
        MPI_Type_create_resized(u, -8, 24, &t);
        MPI_Type_free(&u);
        long o[] = { -8, 4, 8 };
        layout_set(&L[n++], "resized(hindexed@{-8,4}B, lb -8, extent 24)", t, 3, o);
    }
    {
        MPI_Type_vector(3, 1, 2, MPI_INT, &u);
        MPI_Type_create_resized(u, 0, 28, &t);
        MPI_Type_free(&u);
        long o[] = { 0, 8, 16 };
        layout_set(&L[n++], "resized(vector(3,1,2), lb 0, extent 28)", t, 3, o);
    }
    {
        int sizes[] = { 4, 6 }, sub[] = { 2, 3 }, start[] = { 1, 2 };
        MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &t);
        long o[] = { 32, 36, 40, 56, 60, 64 };
        layout_set(&L[n++], "subarray{4,6}/{2,3}@{1,2} C", t, 6, o);
    }
    {
        /* process (1,1) of a 2x2 grid holds rows 2..3, columns 3..5 of a 4x6 array */
        int gs[] = { 4, 6 }, ds[] = { MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK };
        int da[] = { MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG }, ps[] = { 2, 2 };
        MPI_Type_create_darray(4, 3, 2, gs, ds, da, ps, MPI_ORDER_C, MPI_INT, &t);
        long o[] = { 60, 64, 68, 84, 88, 92 };
        layout_set(&L[n++], "darray block 2x2 rank 3 of {4,6} C", t, 6, o);
    }
    {
        MPI_Type_vector(3, 2, 5, MPI_INT, &u);
        MPI_Type_dup(u, &t);
        MPI_Type_free(&u);
        long o[] = { 0, 4, 20, 24, 40, 44 };
        layout_set(&L[n++], "dup(vector(3,2,5))", t, 6, o);
    }
    return n;
}

static inline void layouts_free(layout_t *L, int n)
{
    for (int i = 0; i < n; i++)
        if (L[i].type != MPI_INT)
            MPI_Type_free(&L[i].type);
}

/* Sanity of the table itself: every element of every transfer falls inside a slot. */
static inline void layouts_check_fit(const layout_t *L, int n)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < LAYOUT_INTS; k++) {
            long p = LAYOUT_SHIFT + layout_pos(&L[i], k);
            TAP_CHECK(p >= 0 && p + 4 <= LAYOUT_SLOT, "layout %s element %d at %ld outside slot",
                      L[i].name, k, p);
        }
}

#endif
