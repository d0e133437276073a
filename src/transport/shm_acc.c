/*
 * The accumulate family within a node: element-wise atomic updates of window memory
 * every local rank has mapped.
 *
 * Each update takes the stripe lock of the target's memory it touches (a lock word
 * per SHM_ACC_STRIPE_BYTES, SHM_ACC_STRIPES of them per rank, each on its own cache
 * line) and applies the op with the plain reduction kernels, so a run of n elements
 * costs one lock and a vectorised loop per stripe, where a CPU atomic per element
 * cost n locked instructions (4 KiB of int: 6.3 us against 0.35 with 1 KiB stripes).  One element
 * costs about what one CPU atomic did: the lock is that atomic.  Every native access
 * to an element, from any origin and with any op or CAS, takes that element's stripe
 * lock, which is what keeps them atomic with each other.
 */
#include <string.h>
#include <sys/uio.h>
#include "shm_impl.h"
#include "base/atomic_cpu.h"
#include "base/backoff.h"
#include "base/reduce.h"

/* Native only on window memory every local rank may map (allocated windows, the
 * moved pages of user memory, read for dynamic windows from the owner's table);
 * elsewhere memory is reached by process_vm_*, so every origin, the owner included,
 * takes the core's locked path there.  The types are
 * those CPU atomics support, all ops of a type alike, and an element never straddles
 * a stripe. */
int rmaib_shm_acc_native(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    uint64_t edge;
    if (sp->dyn) {      /* roff is the address: aligned as where it is mapped */
        if (!rmaib_shm_dyn_moved(w, peer, roff, &edge) || edge - roff < rmaib_basic_size(b))
            return 0;
        return rmaib_cpu_atomic_supported(b, op)
            && rmaib_cpu_atomic_aligned(b, (void *) (uintptr_t) roff);
    }
    if (!(roff >= sp->alo && roff <= sp->ahi && rmaib_basic_size(b) <= sp->ahi - roff))
        return 0;
    return rmaib_cpu_atomic_supported(b, op)
        && rmaib_cpu_atomic_aligned(b, (void *) (sp->dbase + roff));
}

/* The answer changes only where the mapped range starts or ends; an element across
 * that edge is misaligned, so it gets the same answer as its run. */
size_t rmaib_shm_acc_native_span(rmaib_win_t *w, int peer, uint64_t roff, size_t len,
                                 rmaib_basic_t b)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    uint64_t edge;
    if (sp->dyn)
        (void) rmaib_shm_dyn_moved(w, peer, roff, &edge);
    else if (sp->alo >= sp->ahi || (sp->alo == 0 && sp->ahi == UINT64_MAX))
        return len;
    else
        edge = roff < sp->alo ? sp->alo : roff < sp->ahi ? sp->ahi : UINT64_MAX;
    if (edge - roff >= len)
        return len;
    size_t es = rmaib_basic_size(b), k = (size_t) (edge - roff + es - 1) / es * es;
    return k < len ? k : len;
}

static uint64_t *stripe_of(const shm_peer_t *sp, uint64_t roff)
{
    size_t i = (size_t) (roff / SHM_ACC_STRIPE_BYTES) % SHM_ACC_STRIPES;
    return (uint64_t *) (sp->stripes + i * RMAIB_CACHELINE);
}

/* Out of line: the waiting loop's state would cost every uncontended caller. */
static __attribute__((noinline)) void stripe_lock_wait(uint64_t *lk)
{
    RMAIB_BACKOFF(bo);  /* held by a peer that may have lost its core: yield to it */
    for (;;) {
        uint64_t free_ = 0;
        if (__atomic_load_n(lk, __ATOMIC_RELAXED) == 0
            && __atomic_compare_exchange_n(lk, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return;
        rmaib_backoff(&bo);
    }
}

static inline void stripe_lock(uint64_t *lk)
{
    uint64_t free_ = 0;
    if (!__atomic_compare_exchange_n(lk, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        stripe_lock_wait(lk);
}

static void stripe_unlock(uint64_t *lk)
{
    __atomic_store_n(lk, 0, __ATOMIC_RELEASE);
}

/* k bytes at roff of a peer's pages not mapped here, under their stripe lock. */
static int pvm_atomic(const shm_peer_t *sp, uint64_t roff, rmaib_basic_t b, rmaib_op_t op,
                      const char *in, char *out, size_t k)
{
    _Alignas(64) char tmp[SHM_ACC_STRIPE_BYTES];
    struct iovec l = { tmp, k }, r = { (void *) (uintptr_t) roff, k };
    int rc = rmaib_shm_pvm(sp->pid, 0, &l, 1, &r, 1);
    if (rc == RMAIB_OK && out)
        memcpy(out, tmp, k);
    if (rc == RMAIB_OK && op != RMAIB_OP_NO_OP) {
        rmaib_reduce(b, op, tmp, in, k / rmaib_basic_size(b));
        l = (struct iovec) { tmp, k };
        r = (struct iovec) { (void *) (uintptr_t) roff, k };
        rc = rmaib_shm_pvm(sp->pid, 1, &l, 1, &r, 1);
    }
    return rc;
}

int rmaib_shm_data_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, void *fetch, size_t n)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    size_t es = rmaib_basic_size(b), left = n * es;
    /* (a dynamic window's region that this process could not map: t is NULL) */
    char *t = sp->dyn ? rmaib_shm_dyn_ptr_lock(w, peer, roff, left) : (char *) (sp->dbase + roff);
    const char *in = operand;
    char *out = fetch;
    int rc = RMAIB_OK;
    while (left && rc == RMAIB_OK) {
        /* up to the end of this stripe: whole elements, as stripes are multiples of
         * every element size and elements are aligned to their size */
        size_t k = SHM_ACC_STRIPE_BYTES - (size_t) (roff % SHM_ACC_STRIPE_BYTES);
        if (k > left)
            k = left;
        uint64_t *lk = stripe_of(sp, roff);
        stripe_lock(lk);
        if (!t) {
            rc = pvm_atomic(sp, roff, b, op, in, out, k);
        } else {
            if (out)
                memcpy(out, t, k);
            if (op != RMAIB_OP_NO_OP)
                rmaib_reduce(b, op, t, in, k / es);
            t += k;
        }
        stripe_unlock(lk);
        roff += k;
        left -= k;
        if (in)
            in += k;
        if (out)
            out += k;
    }
    if (sp->dyn)
        rmaib_shm_dyn_unlock(w, peer);
    return rc;
}

/* acc_native's and acc_native_span's answer for a whole run of allocated memory; a
 * run within one block (so one stripe) is rmaib_shm_elem_atomic's. */
int rmaib_shm_atomic_run(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                         rmaib_op_t op, const void *operand, void *fetch, size_t len, int *rc)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    char *t = (char *) (sp->dbase + roff);
    if (sp->dyn || roff < sp->alo || roff > sp->ahi || len > sp->ahi - roff
        || !rmaib_cpu_atomic_supported(b, op) || !rmaib_cpu_atomic_aligned(b, t))
        return 0;
    if (roff % RMAIB_ELEM_RUN + len > RMAIB_ELEM_RUN) {
        /* (element sizes of CPU atomic types are powers of two: a shift, not a division) */
        size_t n = len >> __builtin_ctzl(rmaib_basic_size(b));
        *rc = rmaib_shm_data_atomic(w, peer, roff, b, op, operand, fetch, n);
        return 1;
    }
    *rc = rmaib_shm_elem_atomic(w, peer, roff, b, op, operand, NULL, fetch, len);
    return 1;
}

/* t += *in on one 64-bit integer, wrapping as rmaib_reduce does. */
static inline void add64(char *t, const void *in)
{
    uint64_t a, x;
    memcpy(&a, t, 8);
    memcpy(&x, in, 8);
    a += x;
    memcpy(t, &a, 8);
}

/* t = t op operand, under the stripe lock, for the two below. */
static inline void elem_apply(char *t, rmaib_basic_t b, rmaib_op_t op, const void *operand,
                              size_t len)
{
    if (op == RMAIB_OP_REPLACE)
        shm_copy(t, operand, len);
    else if (op == RMAIB_OP_SUM && len == 8
             && (b == RMAIB_BASIC_INT64 || b == RMAIB_BASIC_UINT64))
        add64(t, operand);      /* a counter's fetch-and-add: no kernel dispatch */
    else if (op != RMAIB_OP_NO_OP)      /* (sizes are powers of two) */
        rmaib_reduce_nocheck(b, op, t, operand, len >> __builtin_ctzl(rmaib_basic_size_tab[b]));
}

/* rmaib_shm_elem_atomic's accumulate, alone: it saves fewer registers. */
int rmaib_shm_elem_acc(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b, rmaib_op_t op,
                       const void *operand, size_t len)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    char *t = (char *) (sp->dbase + roff);
    uint64_t *lk = stripe_of(sp, roff);
    stripe_lock(lk);
    elem_apply(t, b, op, operand, len);
    stripe_unlock(lk);
    return RMAIB_OK;
}

/* A run within one RMAIB_ELEM_RUN block, so within one stripe, on allocated memory
 * (elem_native): what rmaib_shm_data_atomic and rmaib_shm_data_cas do, with no
 * checks, the core having made them. */
int rmaib_shm_elem_atomic(rmaib_win_t *w, int peer, uint64_t roff, rmaib_basic_t b,
                          rmaib_op_t op, const void *operand, const void *compare, void *fetch,
                          size_t len)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    char *t = (char *) (sp->dbase + roff);
    uint64_t *lk = stripe_of(sp, roff);
    stripe_lock(lk);
    if (compare) {
        uint64_t o = 0, c = 0;
        shm_copy(&o, t, len);   /* (CAS types are 1, 2, 4 or 8 bytes: rmaib_cas_valid) */
        shm_copy(&c, compare, len);
        if (o == c)
            shm_copy(t, operand, len);
        shm_copy(fetch, &o, len);
    } else {
        if (fetch)
            shm_copy(fetch, t, len);
        elem_apply(t, b, op, operand, len);
    }
    stripe_unlock(lk);
    return RMAIB_OK;
}

/* Compare bitwise, swap on equality, under the element's stripe lock; fixed widths,
 * so the copies compile to single moves (rmaib_cas_valid allows only these). */
#define SHM_CAS(U) do {                                                         \
        U o_, c_, s_;                                                           \
        memcpy(&c_, compare, sizeof c_);                                        \
        memcpy(&s_, swap, sizeof s_);                                           \
        stripe_lock(lk);                                                        \
        memcpy(&o_, t, sizeof o_);                                              \
        if (o_ == c_)                                                           \
            memcpy(t, &s_, sizeof s_);                                          \
        stripe_unlock(lk);                                                      \
        memcpy(result, &o_, sizeof o_);                                         \
    } while (0)

/* Where the element is not mapped here (a dynamic window's region this process
 * could not map): the same under the lock, with process_vm_*. */
static int pvm_cas(const shm_peer_t *sp, uint64_t roff, size_t size, const void *compare,
                   const void *swap, void *result)
{
    uint64_t *lk = stripe_of(sp, roff);
    char old[8];
    struct iovec l = { old, size }, r = { (void *) (uintptr_t) roff, size };
    stripe_lock(lk);
    int rc = rmaib_shm_pvm(sp->pid, 0, &l, 1, &r, 1);
    if (rc == RMAIB_OK && memcmp(old, compare, size) == 0) {
        l = (struct iovec) { (void *) swap, size };
        r = (struct iovec) { (void *) (uintptr_t) roff, size };
        rc = rmaib_shm_pvm(sp->pid, 1, &l, 1, &r, 1);
    }
    stripe_unlock(lk);
    if (rc == RMAIB_OK)
        memcpy(result, old, size);
    return rc;
}

int rmaib_shm_data_cas(rmaib_win_t *w, int peer, uint64_t roff, size_t size,
                       const void *compare, const void *swap, void *result)
{
    const shm_peer_t *sp = shm_tpp(w, peer);
    char *t = sp->dyn ? rmaib_shm_dyn_ptr_lock(w, peer, roff, size) : (char *) (sp->dbase + roff);
    uint64_t *lk = stripe_of(sp, roff);
    int rc = RMAIB_OK;
    switch (t ? size : 0) {
    case 0: rc = pvm_cas(sp, roff, size, compare, swap, result); break;
    case 1: SHM_CAS(uint8_t); break;
    case 2: SHM_CAS(uint16_t); break;
    case 4: SHM_CAS(uint32_t); break;
    case 8: SHM_CAS(uint64_t); break;
    default: rc = RMAIB_ERR_INTERN; break;
    }
    if (sp->dyn)
        rmaib_shm_dyn_unlock(w, peer);
    return rc;
}
