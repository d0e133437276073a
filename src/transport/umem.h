/*
 * User memory mapped into shared memory (shm backend: MPI_Win_create windows and the
 * regions attached to dynamic ones): the whole pages of a region are moved into a
 * memfd mapped at the same address, so local peers map it and reach it with loads
 * and stores.
 */
#ifndef RMAIB_TRANSPORT_UMEM_H_INCLUDED
#define RMAIB_TRANSPORT_UMEM_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

typedef struct rmaib_umem rmaib_umem_t;
typedef struct rmaib_umem_hold rmaib_umem_hold_t;

/* A live MPI_Win_create window's region, moved or not (NULL if out of memory):
 * rmaib_umem_map refuses pages that meet one, until it is let go. */
rmaib_umem_hold_t *rmaib_umem_hold(void *base, size_t size);
void rmaib_umem_unhold(rmaib_umem_hold_t *h);

/* Move the whole pages inside [base, base + size) into a new memfd mapped in place,
 * same bytes.  Returns the region (*lo, *hi: its offsets from base; *fd: the memfd),
 * or NULL with why[] saying why the pages are not private anonymous memory this
 * process may move (why[0] == 0: there is no whole page to map). */
rmaib_umem_t *rmaib_umem_map(void *base, size_t size, uint64_t *lo, uint64_t *hi, int *fd,
                             char *why, size_t whylen);

/* The memfd's identity: a peer that opens it as /proc/PID/fd/N checks it is this. */
void rmaib_umem_id(const rmaib_umem_t *u, uint64_t *dev, uint64_t *ino);

/* Put private anonymous memory back in place, same bytes, and close the memfd. */
void rmaib_umem_unmap(rmaib_umem_t *u);

#endif
