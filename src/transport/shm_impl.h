/*
 * The shared-memory backend's state, shared by shm.c (segments, put and get) and
 * shm_acc.c (the accumulate family).
 */
#ifndef RMAIB_SHM_IMPL_H_INCLUDED
#define RMAIB_SHM_IMPL_H_INCLUDED

#include <stdint.h>
#include <sys/types.h>
#include "rmaib_win.h"
#include "umem.h"

/* Accumulate stripes: after each local rank's control block, one lock word per
 * cache line.  The element at offset roff belongs to stripe
 * (roff / SHM_ACC_STRIPE_BYTES) % SHM_ACC_STRIPES. */
enum { SHM_ACC_STRIPES = 32, SHM_ACC_STRIPE_BYTES = 1024 };
#define SHM_ACC_STRIPES_SIZE ((size_t) SHM_ACC_STRIPES * RMAIB_CACHELINE)

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
} shm_peer_t;

typedef struct shm_win {
    void *seg;
    size_t seg_size;
    rmaib_umem_t *umem; /* our own user memory, moved into a memfd */
    rmaib_umem_hold_t *hold;    /* MPI_Win_create: our region, moved or not */
    shm_peer_t peers[];
} shm_win_t;

/* Is [roff, roff + len) of the peer's data reachable with loads and stores? */
static inline int shm_direct(const shm_peer_t *sp, uint64_t roff, size_t len)
{
    return roff >= sp->dlo && roff <= sp->dhi && len <= sp->dhi - roff;
}


int rmaib_shm_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op);
size_t rmaib_shm_acc_native_span(rmaib_win_t *w, int peer, uint64_t roff, size_t len,
                                 rmaib_basic_t b);
int rmaib_shm_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n);
int rmaib_shm_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result);

#endif
