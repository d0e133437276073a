/*
 * Dynamic windows within a node: the whole pages of each region the owner attaches
 * move into a memfd (umem.c), as those of MPI_Win_create regions do, and the owner
 * lists them in its table in the segment.  A peer maps a region the first time it
 * reaches into it (/proc/OWNER/fd/N, checked against the memfd's identity) and keeps
 * the mapping while the owner's table generation stays the same; when that changes,
 * the mappings of regions no longer listed go.
 *
 * Accumulates on the moved pages take the stripe locks, as on allocated windows
 * (shm_acc.c): which elements are native is read from the owner's table, so every
 * origin, the owner too, gives the same answer for an element, and one that could
 * not map the region reaches it with process_vm_* under the same stripe lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rmaib_host.h"
#include "base/backoff.h"
#include "base/config.h"
#include "shm_impl.h"

struct shm_dyn_map {
    uint64_t lo, hi, dev, ino;
    char *addr;                 /* NULL: it could not be mapped; process_vm_* there */
    shm_dyn_map_t *next;
};

struct shm_dyn_own {
    uint64_t base;
    rmaib_umem_t *umem;         /* NULL: its pages stayed where they were */
    rmaib_umem_hold_t *hold;
    shm_dyn_own_t *next;
};

size_t rmaib_shm_dyn_table_size(const rmaib_win_t *w)
{
    size_t a = RMAIB_CACHELINE;
    return w->flavor == RMAIB_FLAVOR_DYNAMIC ? (sizeof(shm_dyn_table_t) + a - 1) / a * a : 0;
}

static void table_bump(shm_dyn_table_t *t)
{
    atomic_store_explicit(&t->gen, atomic_load_explicit(&t->gen, memory_order_relaxed) + 1,
                          memory_order_release);
}

/* Does another local rank reach us through this backend? */
static int has_local_peers(const rmaib_win_t *w)
{
    for (int i = 0; i < w->nlocal; i++)
        if (w->local_ranks[i] != w->rank
            && rmaib_peer(w, w->local_ranks[i])->tp == &rmaib_shm_ops)
            return 1;
    return 0;
}

int rmaib_shm_dyn_attach(rmaib_win_t *w, void *base, size_t size)
{
    shm_win_t *s = w->shm;
    shm_dyn_table_t *t = s ? rmaib_shm_peer(w, w->rank)->dyn : NULL;
    if (!t)
        return RMAIB_OK;
    shm_dyn_own_t *o = calloc(1, sizeof *o);
    if (!o)
        return RMAIB_ERR_NO_MEM;
    o->base = (uintptr_t) base;
    uint64_t lo = 0, hi = 0;
    int fd = -1;
    char why[200] = "";
    if (w->mt)
        pthread_rwlock_wrlock(&s->dyn_lock);
    if (w->map_user && has_local_peers(w) && t->n < RMAIB_MAX_ATTACH)
        o->umem = rmaib_umem_map(base, size, &lo, &hi, &fd, why, sizeof why);
    if (!o->umem && why[0] && rmaib_config.verbose)
        rmaib_host_say("rmaib: memory attached at %p (%zu bytes) stays on process_vm: %s",
                       base, size, why);
    o->hold = rmaib_umem_hold(base, size);      /* after: our own region is no obstacle */
    if (!o->hold) {     /* out of memory: the attach fails, and leaves nothing */
        rmaib_umem_unmap(o->umem);
        free(o);
        if (w->mt)
            pthread_rwlock_unlock(&s->dyn_lock);
        return RMAIB_ERR_NO_MEM;
    }
    if (o->umem) {
        shm_dyn_entry_t e = { o->base + lo, o->base + hi, 0, 0, fd, 0 };
        rmaib_umem_id(o->umem, &e.dev, &e.ino);
        table_bump(t);
        t->e[t->n++] = e;
        table_bump(t);
    }
    o->next = s->own;
    s->own = o;
    if (w->mt)
        pthread_rwlock_unlock(&s->dyn_lock);
    return RMAIB_OK;
}

/* Out of the table first, so that no peer maps it anew; then private again. */
static void own_release(shm_dyn_table_t *t, shm_dyn_own_t *o)
{
    if (o->umem) {
        uint64_t dev, ino;
        rmaib_umem_id(o->umem, &dev, &ino);
        for (uint64_t i = 0; i < t->n; i++)
            if (t->e[i].ino == ino && t->e[i].dev == dev) {
                table_bump(t);
                t->e[i] = t->e[t->n - 1];
                t->n--;
                table_bump(t);
                break;
            }
        rmaib_umem_unmap(o->umem);
    }
    if (o->hold)
        rmaib_umem_unhold(o->hold);
    free(o);
}

void rmaib_shm_dyn_detach(rmaib_win_t *w, const void *base)
{
    shm_win_t *s = w->shm;
    shm_dyn_table_t *t = s ? rmaib_shm_peer(w, w->rank)->dyn : NULL;
    if (!t)
        return;
    if (w->mt)
        pthread_rwlock_wrlock(&s->dyn_lock);
    for (shm_dyn_own_t **pp = &s->own; *pp; pp = &(*pp)->next)
        if ((*pp)->base == (uintptr_t) base) {
            shm_dyn_own_t *o = *pp;
            *pp = o->next;
            own_release(t, o);
            break;
        }
    if (w->mt)
        pthread_rwlock_unlock(&s->dyn_lock);
}

static shm_dyn_map_t *find(const shm_peer_t *sp, uint64_t addr, size_t len)
{
    for (shm_dyn_map_t *m = sp->dmaps; m; m = m->next)
        if (addr >= m->lo && addr < m->hi && len <= m->hi - addr)
            return m;
    return NULL;
}

static void map_free(shm_dyn_map_t *m)
{
    if (m->addr)
        munmap(m->addr, (size_t) (m->hi - m->lo));
    free(m);
}

/* A seqlock reader's closing check: did the table change while it was read?
 * TSan does not model fences, so there a release RMW orders the reads instead. */
static inline int table_moved(const shm_dyn_table_t *t, uint64_t g)
{
#if defined(__SANITIZE_THREAD__)
    return atomic_fetch_add_explicit((_Atomic uint64_t *) &t->gen, 0, memory_order_acq_rel) != g;
#else
    atomic_thread_fence(memory_order_acquire);
    return atomic_load_explicit(&t->gen, memory_order_relaxed) != g;
#endif
}

/* The peer's table changed: keep the mappings of the regions it still lists. */
static void recheck(shm_peer_t *sp)
{
    shm_dyn_table_t *t = sp->dyn;
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t g = atomic_load_explicit(&t->gen, memory_order_acquire);
        if (g & 1) {
            rmaib_backoff(&bo);
            continue;
        }
        uint64_t n = t->n < RMAIB_MAX_ATTACH ? t->n : RMAIB_MAX_ATTACH;
        shm_dyn_map_t *keep = NULL, *drop = NULL;
        while (sp->dmaps) {
            shm_dyn_map_t *m = sp->dmaps;
            sp->dmaps = m->next;
            uint64_t i = 0;
            while (i < n && !(t->e[i].lo == m->lo && t->e[i].hi == m->hi
                              && t->e[i].ino == m->ino && t->e[i].dev == m->dev))
                i++;
            shm_dyn_map_t **to = i < n ? &keep : &drop;
            m->next = *to;
            *to = m;
        }
        if (table_moved(t, g)) {
            sp->dmaps = keep;           /* torn: sort again, nothing lost */
            for (shm_dyn_map_t *m; (m = drop);) {
                drop = m->next;
                m->next = sp->dmaps;
                sp->dmaps = m;
            }
            rmaib_backoff(&bo);
            continue;
        }
        sp->dmaps = keep;
        for (shm_dyn_map_t *m; (m = drop);) {
            drop = m->next;
            map_free(m);
        }
        sp->dgen = g;
        return;
    }
}

/* Read the owner's table, retrying a torn copy: the entry holding addr into *e (1),
 * or 0; *edge: where the answer for addresses from addr on next changes. */
static int table_lookup(const shm_dyn_table_t *t, uint64_t addr, shm_dyn_entry_t *e,
                        uint64_t *edge)
{
    int in;
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t g = atomic_load_explicit(&t->gen, memory_order_acquire);
        uint64_t n = t->n < RMAIB_MAX_ATTACH ? t->n : RMAIB_MAX_ATTACH;
        in = 0;
        *edge = UINT64_MAX;
        for (uint64_t i = 0; !(g & 1) && i < n && !in; i++) {
            if (addr >= t->e[i].lo && addr < t->e[i].hi) {
                in = 1;
                *e = t->e[i];
                *edge = t->e[i].hi;
            } else if (t->e[i].lo > addr && t->e[i].lo < *edge) {
                *edge = t->e[i].lo;
            }
        }
        if (!(g & 1) && !table_moved(t, g))
            return in;
        rmaib_backoff(&bo);
    }
}

/* Map the peer's region holding [addr, addr + len), if it lists one; NULL if not.
 * A region that cannot be mapped is remembered as such. */
static shm_dyn_map_t *map_region(shm_peer_t *sp, uint64_t addr, size_t len)
{
    shm_dyn_entry_t e = { 0 };
    uint64_t edge;
    int found = table_lookup(sp->dyn, addr, &e, &edge) && len <= e.hi - addr;
    shm_dyn_map_t *m = found ? calloc(1, sizeof *m) : NULL;
    if (!m)
        return NULL;
    *m = (shm_dyn_map_t) { e.lo, e.hi, e.dev, e.ino, NULL, sp->dmaps };
    char name[64];
    snprintf(name, sizeof name, "/proc/%d/fd/%d", (int) sp->pid, (int) e.fd);
    int fd = open(name, O_RDWR | O_CLOEXEC);
    struct stat st;
    /* The owner may have detached it meanwhile, and the descriptor number be another
     * file's now: only the memfd itself is mapped. */
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t) st.st_ino == e.ino
        && (uint64_t) st.st_dev == e.dev) {
        void *a = mmap(NULL, (size_t) (e.hi - e.lo), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        m->addr = a == MAP_FAILED ? NULL : a;
    }
    if (!m->addr && rmaib_config.verbose)
        rmaib_host_say("rmaib: cannot map memory attached by pid %d (%s): %s; it stays on "
                       "process_vm", (int) sp->pid, name, fd < 0 ? strerror(errno)
                       : "not the memfd it was");
    if (fd >= 0)
        close(fd);
    sp->dmaps = m;
    return m;
}

char *rmaib_shm_dyn_ptr_lock(rmaib_win_t *w, int peer, uint64_t addr, size_t len)
{
    shm_win_t *s = w->shm;
    shm_peer_t *sp = shm_tpp(w, peer);
    if (peer == w->rank)
        return (char *) (uintptr_t) addr;       /* our own memory */
    if (w->mt)
        pthread_rwlock_rdlock(&s->dyn_lock);
    uint64_t g = atomic_load_explicit(&sp->dyn->gen, memory_order_acquire);
    shm_dyn_map_t *m = g == sp->dgen ? find(sp, addr, len) : NULL;
    if (!m) {           /* the slow path holds the write lock until the unlock */
        if (w->mt) {
            pthread_rwlock_unlock(&s->dyn_lock);
            pthread_rwlock_wrlock(&s->dyn_lock);
        }
        if (atomic_load_explicit(&sp->dyn->gen, memory_order_acquire) != sp->dgen)
            recheck(sp);
        m = find(sp, addr, len);
        if (!m)
            m = map_region(sp, addr, len);
    }
    return m && m->addr ? m->addr + (addr - m->lo) : NULL;
}

void rmaib_shm_dyn_unlock(rmaib_win_t *w, int peer)
{
    if (w->mt && peer != w->rank)
        pthread_rwlock_unlock(&((shm_win_t *) w->shm)->dyn_lock);
}

int rmaib_shm_dyn_copy(rmaib_win_t *w, int peer, uint64_t addr, void *buf, size_t len, int write)
{
    if (!shm_tpp(w, peer)->dyn)
        return 0;
    char *p = rmaib_shm_dyn_ptr_lock(w, peer, addr, len);
    if (p && write)
        memcpy(p, buf, len);
    else if (p)
        memcpy(buf, p, len);
    rmaib_shm_dyn_unlock(w, peer);
    return p != NULL;
}

int rmaib_shm_dyn_moved(rmaib_win_t *w, int peer, uint64_t addr, uint64_t *edge)
{
    shm_dyn_entry_t e;
    return table_lookup(shm_tpp(w, peer)->dyn, addr, &e, edge);
}

void rmaib_shm_dyn_fini(rmaib_win_t *w)
{
    shm_win_t *s = w->shm;
    for (int i = 0; i < w->nlocal; i++)
        for (shm_dyn_map_t *m; (m = s->peers[i].dmaps);) {
            s->peers[i].dmaps = m->next;
            map_free(m);
        }
    for (shm_dyn_own_t *o; (o = s->own);) {
        s->own = o->next;
        own_release(rmaib_shm_peer(w, w->rank)->dyn, o);
    }
}
