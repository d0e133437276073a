/*
 * A table of derived datatypes made of MPI_INTs (contiguous, vector, hvector,
 * indexed, hindexed, indexed_block, hindexed_block, struct with gaps, resized with
 * a negative lower bound and with a stretched extent, subarray, darray, dup),
 * together with the byte offsets of their elements, computed here by hand from the
 * constructors' arguments, independently of MPI, so that a misplaced element is seen.
 */
#ifndef RMAIB_TEST_DTYPES_H
#define RMAIB_TEST_DTYPES_H

#include "tap.h"

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
