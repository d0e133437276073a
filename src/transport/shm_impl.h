/*
 * The shared-memory backend's state, shared by shm.c (segments, put and get) and
 * shm_acc.c (the accumulate family).
 */
#ifndef RMAIB_SHM_IMPL_H_INCLUDED
#define RMAIB_SHM_IMPL_H_INCLUDED

#include <stdint.h>
#include <string.h>
#include <pthread.h>
#include <sys/types.h>
#include "rmaib_win.h"
#include "umem.h"

/* Accumulate stripes: after each local rank's control block, one lock word per
 * cache line.  The element at offset roff belongs to stripe
 * (roff / SHM_ACC_STRIPE_BYTES) % SHM_ACC_STRIPES. */
enum { SHM_ACC_STRIPES = 32, SHM_ACC_STRIPE_BYTES = 4096 };
_Static_assert(SHM_ACC_STRIPE_BYTES % RMAIB_ELEM_RUN == 0, "elem_atomic: a run in one stripe");
#define SHM_ACC_STRIPES_SIZE ((size_t) SHM_ACC_STRIPES * RMAIB_CACHELINE)

/* Dynamic windows: each local rank's regions whose whole pages umem.c moved into a
 * memfd, in the segment after its stripes.  Written by the owner only, under a
 * generation count that is odd while the table changes (as the attach table). */
typedef struct shm_dyn_entry {
    uint64_t lo, hi;            /* the moved pages, addresses in the owner */
    uint64_t dev, ino;          /* the memfd, checked by whoever opens it */
    int32_t fd, pad;            /* open in the owner as long as the region is attached */
} shm_dyn_entry_t;

typedef struct shm_dyn_table {
    _Alignas(RMAIB_CACHELINE) _Atomic uint64_t gen;
    uint64_t n;
    shm_dyn_entry_t e[RMAIB_MAX_ATTACH];
} shm_dyn_table_t;

typedef struct shm_dyn_map shm_dyn_map_t;     /* a peer's region mapped here */
typedef struct shm_dyn_own shm_dyn_own_t;     /* a region we attached */

typedef struct shm_peer {
    char *ctrl;         /* peer's control block, mapped */
    char *stripes;      /* its accumulate stripes, mapped */
    uintptr_t dbase;    /* data at offsets [dlo, dhi) reachable at dbase + offset */
    uint64_t dlo, dhi;
    pid_t pid;          /* elsewhere process_vm_* into pid at va + offset */
    uint64_t va;
    /* Offsets where accumulates are CPU atomics: the same on every local rank. */
    uint64_t alo, ahi;
    void *umap;         /* the peer's user memory mapped here (umap_len bytes) */
    size_t umap_len;
    shm_dyn_table_t *dyn;       /* dynamic windows: the peer's table of moved regions */
    shm_dyn_map_t *dmaps;       /* those of them mapped here (or that failed to) */
    uint64_t dgen;              /* dyn->gen when dmaps was last checked against it */
} shm_peer_t;

typedef struct shm_win {
    void *seg;
    size_t seg_size;
    rmaib_umem_t *umem; /* our own user memory, moved into a memfd */
    rmaib_umem_hold_t *hold;    /* MPI_Win_create: our region, moved or not */
    shm_dyn_own_t *own;         /* dynamic windows: the regions we attached */
    pthread_rwlock_t dyn_lock;  /* (mt) dmaps change under it, copies read under it */
    shm_peer_t peers[];         /* the node-local ranks, in the order of w->local_ranks */
} shm_win_t;

/* A window's segment (shm_seg.c): where each local rank's data goes in it, and
 * which rank makes it; rmaib_shm_segment returns what every rank agreed, the
 * segment mapped and the peers filled in (rmaib_shm_ready: shm.c's layout and
 * fill, then the network's early set-up) where it is RMAIB_OK, else nothing left. */
#define SHM_NAME_LEN 48  /* "/proc/PID/fd/N", or a named segment's shm_open name */

typedef struct shm_seg_args {
    size_t *data_off;
    int has_data;
    int leader;
} shm_seg_args_t;

int rmaib_shm_segment(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int status);
int rmaib_shm_ready(rmaib_win_t *w, shm_win_t *s, const shm_seg_args_t *a, int st);

/* Is [roff, roff + len) of the peer's data reachable with loads and stores? */
static inline int shm_direct(const shm_peer_t *sp, uint64_t roff, size_t len)
{
    return roff >= sp->dlo && roff <= sp->dhi && len <= sp->dhi - roff;
}

/* memcpy, with one element's sizes as single moves instead of a call: the 8-byte
 * put, get and fetch-and-op of the latency loops. */
static inline void shm_copy(void *dst, const void *src, size_t len)
{
    switch (len) {
    case 1: memcpy(dst, src, 1); return;
    case 2: memcpy(dst, src, 2); return;
    case 4: memcpy(dst, src, 4); return;
    case 8: memcpy(dst, src, 8); return;
    default: memcpy(dst, src, len); return;
    }
}

/* The state of a node-local rank (shm.c); and, on the paths the backend is reached
 * through the peer's transport or as the window's atomics transport, the same from
 * the peer's entry. */
shm_peer_t *rmaib_shm_peer(const rmaib_win_t *w, int rank);

static inline shm_peer_t *shm_tpp(const rmaib_win_t *w, int rank)
{
    return rmaib_peer(w, rank)->tpp;
}

/* Dynamic windows (shm_dyn.c): the table's size in the segment (0 for the other
 * flavors); the owner's attach and detach hooks; copy [addr, addr + len) of a
 * peer's moved pages (1), or say they are not mapped here (0: process_vm_* then);
 * let go of everything at the window's free. */
size_t rmaib_shm_dyn_table_size(const rmaib_win_t *w);
int rmaib_shm_dyn_attach(rmaib_win_t *w, void *base, size_t size);
void rmaib_shm_dyn_detach(rmaib_win_t *w, const void *base);
int rmaib_shm_dyn_copy(rmaib_win_t *w, int peer, uint64_t addr, void *buf, size_t len, int write);
void rmaib_shm_dyn_fini(rmaib_win_t *w);
/* Where [addr, addr + len) of the peer's moved pages is mapped here (NULL: not
 * mapped, or not moved); the mappings stay until rmaib_shm_dyn_unlock. */
char *rmaib_shm_dyn_ptr_lock(rmaib_win_t *w, int peer, uint64_t addr, size_t len);
void rmaib_shm_dyn_unlock(rmaib_win_t *w, int peer);
/* Is addr in pages the peer moved (from its table: every origin's answer)?  *edge:
 * where the answer next changes (UINT64_MAX: never). */
int rmaib_shm_dyn_moved(rmaib_win_t *w, int peer, uint64_t addr, uint64_t *edge);

int rmaib_shm_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op);
size_t rmaib_shm_acc_native_span(rmaib_win_t *w, int peer, uint64_t roff, size_t len,
                                 rmaib_basic_t b);
int rmaib_shm_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n);
int rmaib_shm_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result);
int rmaib_shm_atomic_run(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op, const void *operand, void *fetch, size_t len, int *rc);
int rmaib_shm_elem_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, const void *compare, void *fetch,
                          size_t len);
int rmaib_shm_elem_acc(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b, rmaib_op_t op,
                       const void *operand, size_t len);

#endif
