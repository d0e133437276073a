/*
 * MPI_Win handle -> rmaib window: an open-addressing hash table keyed by the handle's
 * bits (an int in MPICH, a pointer in Open MPI), with the last hit remembered,
 * because an RMA-heavy loop uses one window over and over.  The hit is one pointer,
 * read and written whole, so threads using different windows never pair one
 * window's key with another's record.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "handles.h"

typedef struct slot {
    uintptr_t key;          /* 0 = empty, TOMB = deleted */
    rmaib_mpi_win_t *val;
} slot_t;

#define TOMB UINTPTR_MAX

static slot_t *table;
static size_t cap, used;     /* used counts live and deleted slots */
rmaib_mpi_win_t *rmaib_mpi_win_last;

static uintptr_t key_of(MPI_Win w)
{
    uintptr_t k = 0;
    memcpy(&k, &w, sizeof w < sizeof k ? sizeof w : sizeof k);
    return k ? k : 1;        /* 0 marks an empty slot */
}

static size_t hash(uintptr_t k)
{
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (size_t) k;
}

rmaib_mpi_win_t *rmaib_mpi_win_lookup(MPI_Win w)
{
    uintptr_t k = key_of(w);
    if (!cap)
        return NULL;
    for (size_t i = hash(k) & (cap - 1);; i = (i + 1) & (cap - 1)) {
        if (table[i].key == 0)
            return NULL;
        if (table[i].key == k) {
            __atomic_store_n(&rmaib_mpi_win_last, table[i].val, __ATOMIC_RELAXED);
            return table[i].val;
        }
    }
}

static int grow(void)
{
    size_t ncap = cap ? cap * 2 : 64;
    slot_t *old = table, *nt = calloc(ncap, sizeof *nt);
    size_t ocap = cap;
    if (!nt)
        return MPI_ERR_NO_MEM;
    table = nt;
    cap = ncap;
    used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].key && old[i].key != TOMB) {
            size_t j = hash(old[i].key) & (cap - 1);
            while (table[j].key)
                j = (j + 1) & (cap - 1);
            table[j] = old[i];
            used++;
        }
    free(old);
    return MPI_SUCCESS;
}

int rmaib_mpi_win_insert(rmaib_mpi_win_t *bw)
{
    if ((used + 1) * 2 > cap && grow() != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    uintptr_t k = key_of(bw->shadow);
    size_t i = hash(k) & (cap - 1);
    while (table[i].key && table[i].key != TOMB)
        i = (i + 1) & (cap - 1);
    if (table[i].key == 0)
        used++;
    table[i].key = k;
    table[i].val = bw;
    return MPI_SUCCESS;
}

void rmaib_mpi_win_remove(MPI_Win w)
{
    uintptr_t k = key_of(w);
    rmaib_mpi_win_t *last = __atomic_load_n(&rmaib_mpi_win_last, __ATOMIC_RELAXED);
    if (last && memcmp(&last->shadow, &w, sizeof w) == 0)
        __atomic_store_n(&rmaib_mpi_win_last, NULL, __ATOMIC_RELAXED);
    if (!cap)
        return;
    for (size_t i = hash(k) & (cap - 1); table[i].key; i = (i + 1) & (cap - 1))
        if (table[i].key == k) {
            table[i].key = TOMB;
            table[i].val = NULL;
            return;
        }
}
