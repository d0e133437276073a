/*
 * The rank map's inserts and its end (rank_map.h).
 */
#include <stdlib.h>
#include "rmaib.h"
#include "rank_map.h"

enum { MAP_MIN_BITS = 4 };

static void slots_put(rmaib_rank_slots_t *t, int r, void *p)
{
    size_t mask = ((size_t) 1 << t->bits) - 1, i = rmaib_rank_slot_of(r, t->bits);
    while (atomic_load_explicit(&t->s[i].p, memory_order_relaxed))
        i = (i + 1) & mask;
    t->s[i].rank = r;
    atomic_store_explicit(&t->s[i].p, p, memory_order_release);
}

/* Room for one more at a load of at most a half; a table that cannot grow takes
 * entries up to three quarters full. */
static int room(rmaib_rank_map_t *m)
{
    rmaib_rank_slots_t *t = atomic_load_explicit(&m->cur, memory_order_relaxed);
    size_t cap = t ? (size_t) 1 << t->bits : 0;
    if (2 * (m->count + 1) <= cap)
        return RMAIB_OK;
    unsigned bits = t ? t->bits + 1 : MAP_MIN_BITS;
    rmaib_rank_slots_t *n = calloc(1, sizeof *n + sizeof n->s[0] * ((size_t) 1 << bits));
    if (!n)
        return 4 * (m->count + 1) <= 3 * cap ? RMAIB_OK : RMAIB_ERR_NO_MEM;
    n->bits = bits;
    for (size_t i = 0; i < cap; i++) {
        void *p = atomic_load_explicit(&t->s[i].p, memory_order_relaxed);
        if (p)
            slots_put(n, t->s[i].rank, p);
    }
    n->older = t;
    atomic_store_explicit(&m->cur, n, memory_order_release);
    return RMAIB_OK;
}

int rmaib_rank_map_insert(rmaib_rank_map_t *m, int r, void *p)
{
    int rc = room(m);
    if (rc != RMAIB_OK)
        return rc;
    slots_put(atomic_load_explicit(&m->cur, memory_order_relaxed), r, p);
    m->count++;
    return RMAIB_OK;
}

void rmaib_rank_map_foreach(const rmaib_rank_map_t *m, void (*fn)(void *p, void *arg), void *arg)
{
    rmaib_rank_slots_t *t = atomic_load_explicit(&((rmaib_rank_map_t *) m)->cur,
                                                 memory_order_acquire);
    for (size_t i = 0; t && i < (size_t) 1 << t->bits; i++) {
        void *p = atomic_load_explicit(&t->s[i].p, memory_order_acquire);
        if (p)
            fn(p, arg);
    }
}

void rmaib_rank_map_free(rmaib_rank_map_t *m)
{
    for (rmaib_rank_slots_t *t = atomic_load(&m->cur), *o; t; t = o) {
        o = t->older;
        free(t);
    }
    atomic_store(&m->cur, NULL);
    m->count = 0;
}
