/*
 * CPU atomics on window memory: how the ofi mailbox applies a peer's accumulate
 * at the target, element by element (within a node shm_acc.c takes stripe locks
 * instead; its native types are these).  MPI-free.
 *
 * Support is all-or-nothing per basic type: when (b, REPLACE) is supported, so is
 * every op rmaib_reduce_valid allows on b.  The caller therefore never sends one
 * element of a type down the CPU path and another access to it down the locked
 * get-reduce-put path, which would break element-wise atomicity.  What it must still
 * check per access is alignment (rmaib_cpu_atomic_aligned): the pair types and
 * float complex have C alignment 4 but are updated with 8-byte CAS.
 *
 * Results agree bit for bit with rmaib_reduce (same element operators, NaNs
 * included).  Every access is __ATOMIC_SEQ_CST.
 */
#ifndef RMAIB_ATOMIC_CPU_H_INCLUDED
#define RMAIB_ATOMIC_CPU_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "rmaib.h"
#include "base/reduce.h"

/* 1 if (b, op) is valid and done lock-free on one element of b: a native fetch-op
 * (integer SUM/BAND/BOR/BXOR), exchange (REPLACE), load (NO_OP), or a CAS loop on
 * the element's own width (everything else); 0 otherwise (long double and its
 * complex, double complex, pairs wider than 8 bytes, or no lock-free atomics). */
extern const unsigned char rmaib_cpu_atomic_type[RMAIB_BASIC_COUNT];
static inline int rmaib_cpu_atomic_supported(rmaib_basic_t b, rmaib_op_t op)
{
    return rmaib_reduce_valid(b, op) == RMAIB_OK && rmaib_cpu_atomic_type[b];
}

/* May an element of b at addr be updated by rmaib_cpu_atomic?  Its address must be
 * a multiple of its size, which is stricter than C alignment for the 8-byte pairs.
 * For a type rmaib_cpu_atomic_type lists: their sizes are powers of two, so a mask
 * does it (a division is tens of cycles on the fetch-and-op path). */
static inline int rmaib_cpu_atomic_aligned(rmaib_basic_t b, const void *addr)
{
    size_t s = rmaib_basic_size(b);
    return s != 0 && ((uintptr_t) addr & (s - 1)) == 0;
}

/* Atomically, per element: if fetch, *fetch = old; *target = old op *operand.
 * (b, op) must be supported and target aligned; operand and fetch may have any
 * alignment.  The _n form does n consecutive elements, each atomic on its own. */
void rmaib_cpu_atomic(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand,
                      void *fetch);
void rmaib_cpu_atomic_n(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand,
                        void *fetch, size_t n);

/* Compare-and-swap of one element of 1, 2, 4 or 8 bytes, compared bitwise:
 * *result = old; if old == *compare then *target = *swap.  target aligned to size;
 * compare, swap and result may have any alignment.  Other sizes do nothing. */
void rmaib_cpu_cas(size_t size, void *target, const void *compare, const void *swap,
                   void *result);

#endif
