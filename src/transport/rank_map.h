/*
 * A map from a rank to a pointer, for state made at a peer's first access (the
 * core's peer table, the ofi backend's peer records): open addressing, read without
 * a lock.  An entry is published once and never moves; a table that is half full
 * is replaced whole by one twice the size, and the old ones are kept until the map
 * is freed (together smaller than the last).  Inserts are the caller's to serialise.
 */
#ifndef RMAIB_RANK_MAP_H_INCLUDED
#define RMAIB_RANK_MAP_H_INCLUDED

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct rmaib_rank_slot {
    void *_Atomic p;            /* published last, with release */
    int rank;
} rmaib_rank_slot_t;

typedef struct rmaib_rank_slots {
    struct rmaib_rank_slots *older;
    unsigned bits;
    rmaib_rank_slot_t s[];
} rmaib_rank_slots_t;

typedef struct rmaib_rank_map {
    rmaib_rank_slots_t *_Atomic cur;    /* NULL until the first insert */
    size_t count;
} rmaib_rank_map_t;

static inline size_t rmaib_rank_slot_of(int r, unsigned bits)
{
    return (size_t) (((uint64_t) (uint32_t) r * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - bits));
}

/* r's pointer, or NULL. */
static inline void *rmaib_rank_map_find(const rmaib_rank_map_t *m, int r)
{
    rmaib_rank_slots_t *t = atomic_load_explicit(&((rmaib_rank_map_t *) m)->cur,
                                                 memory_order_acquire);
    if (!t)
        return NULL;
    size_t mask = ((size_t) 1 << t->bits) - 1;
    for (size_t i = rmaib_rank_slot_of(r, t->bits);; i = (i + 1) & mask) {
        void *p = atomic_load_explicit(&t->s[i].p, memory_order_acquire);
        if (!p || t->s[i].rank == r)
            return p;
    }
}

/* Add r (not in the map) with p (not NULL): RMAIB_OK, or RMAIB_ERR_NO_MEM with the
 * map as it was. */
int rmaib_rank_map_insert(rmaib_rank_map_t *m, int r, void *p);
/* fn on every pointer; then free: the tables (the pointers are the caller's). */
void rmaib_rank_map_foreach(const rmaib_rank_map_t *m, void (*fn)(void *p, void *arg), void *arg);
void rmaib_rank_map_free(rmaib_rank_map_t *m);

#endif
