/*
 * CPU atomics on shared memory (see atomic_cpu.h).
 *
 * Integer SUM/BAND/BOR/BXOR are native fetch-ops, REPLACE an exchange (a store
 * without fetch), NO_OP a load; every other op is a CAS loop on the element's own
 * width that recomputes the new value with reduce.h's element operators.  A loop
 * whose result equals the old bits returns without writing: that is the same atomic
 * step as a successful CAS of the old value onto itself.
 */
#include <string.h>
#include "atomic_cpu.h"

#define SC __ATOMIC_SEQ_CST

_Static_assert(sizeof(float) == 4 && sizeof(double) == 8, "float/double widths");
_Static_assert(sizeof(float _Complex) == 8, "float complex is one 64-bit word");
_Static_assert(sizeof(rmaib_float_int_t) == 8 && sizeof(rmaib_2int_t) == 8
               && sizeof(rmaib_short_int_t) == 8 && sizeof(rmaib_2float_t) == 8,
               "8-byte pair types");

#define LF(T) (__atomic_always_lock_free(sizeof(T), 0) ? 1 : 0)
const unsigned char rmaib_cpu_atomic_type[RMAIB_BASIC_COUNT] = {
    [RMAIB_BASIC_INT8] = LF(int8_t), [RMAIB_BASIC_INT16] = LF(int16_t),
    [RMAIB_BASIC_INT32] = LF(int32_t), [RMAIB_BASIC_INT64] = LF(int64_t),
    [RMAIB_BASIC_UINT8] = LF(uint8_t), [RMAIB_BASIC_UINT16] = LF(uint16_t),
    [RMAIB_BASIC_UINT32] = LF(uint32_t), [RMAIB_BASIC_UINT64] = LF(uint64_t),
    [RMAIB_BASIC_FLOAT] = LF(float), [RMAIB_BASIC_DOUBLE] = LF(double),
    [RMAIB_BASIC_C_FLOAT_COMPLEX] = LF(uint64_t),
    [RMAIB_BASIC_BOOL] = LF(uint8_t), [RMAIB_BASIC_BYTE] = LF(uint8_t),
    [RMAIB_BASIC_CHAR] = LF(uint8_t),
    [RMAIB_BASIC_LOGICAL4] = LF(uint32_t), [RMAIB_BASIC_OPAQUE4] = LF(uint32_t),
    [RMAIB_BASIC_FLOAT_INT] = LF(uint64_t), [RMAIB_BASIC_2INT] = LF(uint64_t),
    [RMAIB_BASIC_SHORT_INT] = LF(uint64_t), [RMAIB_BASIC_2FLOAT] = LF(uint64_t),
};

/* Run BODY for element j_ of n: p_ the target word (U), o_ the operand's bytes;
 * BODY sets old_, which goes to fetch if there is one. */
#define EACH(U, BODY) do {                                                      \
        unsigned char *t_ = target, *f_ = fetch;                                \
        const unsigned char *o_ = operand;                                      \
        for (size_t j_ = 0; j_ < n; j_++) {                                     \
            U *p_ = (U *) (void *) (t_ + j_ * sizeof(U));                       \
            U old_;                                                             \
            o_ = (const unsigned char *) operand + j_ * sizeof(U);              \
            BODY;                                                               \
            if (f_)                                                             \
                memcpy(f_ + j_ * sizeof old_, &old_, sizeof old_);              \
        }                                                                       \
    } while (0)

#define NATIVE(U, FN) EACH(U, {                                                 \
        U y_;                                                                   \
        memcpy(&y_, o_, sizeof y_);                                             \
        old_ = FN(p_, y_, SC);                                                  \
    })

/* x = old value as T, y = operand as T, new value (T) (EXPR). */
#define CAS_LOOP(U, T, EXPR) EACH(U, {                                          \
        T y;                                                                    \
        U new_;                                                                 \
        memcpy(&y, o_, sizeof y);                                               \
        old_ = __atomic_load_n(p_, SC);                                         \
        do {                                                                    \
            T x;                                                                \
            memcpy(&x, &old_, sizeof x);                                        \
            x = (T) (EXPR);                                                     \
            memcpy(&new_, &x, sizeof new_);                                     \
        } while (new_ != old_                                                   \
                 && !__atomic_compare_exchange_n(p_, &old_, new_, 1, SC, SC));  \
    })

/* MAXLOC/MINLOC on an 8-byte pair P: fields are picked out of the word and put
 * back, so its padding (short_int) rides along unchanged. */
#define CAS_PAIR(P, VT, IT, MAC) EACH(uint64_t, {                               \
        VT v_;                                                                  \
        IT k_;                                                                  \
        uint64_t new_;                                                          \
        memcpy(&v_, o_ + offsetof(P, v), sizeof v_);                            \
        memcpy(&k_, o_ + offsetof(P, i), sizeof k_);                            \
        old_ = __atomic_load_n(p_, SC);                                         \
        do {                                                                    \
            unsigned char w_[sizeof(uint64_t)];                                 \
            VT u_;                                                              \
            IT i_;                                                              \
            memcpy(w_, &old_, sizeof w_);                                       \
            memcpy(&u_, w_ + offsetof(P, v), sizeof u_);                        \
            memcpy(&i_, w_ + offsetof(P, i), sizeof i_);                        \
            MAC(u_, i_, v_, k_);                                                \
            memcpy(w_ + offsetof(P, v), &u_, sizeof u_);                        \
            memcpy(w_ + offsetof(P, i), &i_, sizeof i_);                        \
            memcpy(&new_, w_, sizeof new_);                                     \
        } while (new_ != old_                                                   \
                 && !__atomic_compare_exchange_n(p_, &old_, new_, 1, SC, SC));  \
    })

/* An integer type: S as declared, U unsigned of its width, W U's arithmetic type. */
#define TYPE_INTEGER(B, S, U, W)                                                \
    case B:                                                                     \
        switch (op) {                                                           \
        case RMAIB_OP_SUM:  NATIVE(U, __atomic_fetch_add); return;              \
        case RMAIB_OP_PROD: CAS_LOOP(U, U, (W) x * (W) y); return;              \
        case RMAIB_OP_MAX:  CAS_LOOP(U, S, RMAIB_RED_MAX(x, y)); return;        \
        case RMAIB_OP_MIN:  CAS_LOOP(U, S, RMAIB_RED_MIN(x, y)); return;        \
        case RMAIB_OP_LAND: CAS_LOOP(U, U, RMAIB_RED_LAND(x, y)); return;       \
        case RMAIB_OP_LOR:  CAS_LOOP(U, U, RMAIB_RED_LOR(x, y)); return;        \
        case RMAIB_OP_LXOR: CAS_LOOP(U, U, RMAIB_RED_LXOR(x, y)); return;       \
        case RMAIB_OP_BAND: NATIVE(U, __atomic_fetch_and); return;              \
        case RMAIB_OP_BOR:  NATIVE(U, __atomic_fetch_or); return;               \
        case RMAIB_OP_BXOR: NATIVE(U, __atomic_fetch_xor); return;              \
        default: return;                                                        \
        }

#define TYPE_FLOAT(B, T, U)                                                     \
    case B:                                                                     \
        switch (op) {                                                           \
        case RMAIB_OP_SUM:  CAS_LOOP(U, T, RMAIB_RED_FSUM(x, y)); return;       \
        case RMAIB_OP_PROD: CAS_LOOP(U, T, RMAIB_RED_FPROD(x, y)); return;      \
        case RMAIB_OP_MAX:  CAS_LOOP(U, T, RMAIB_RED_MAX(x, y)); return;        \
        case RMAIB_OP_MIN:  CAS_LOOP(U, T, RMAIB_RED_MIN(x, y)); return;        \
        default: return;                                                        \
        }

#define TYPE_PAIR(B, P, VT, IT)                                                 \
    case B:                                                                     \
        switch (op) {                                                           \
        case RMAIB_OP_MAXLOC: CAS_PAIR(P, VT, IT, RMAIB_RED_MAXLOC); return;    \
        case RMAIB_OP_MINLOC: CAS_PAIR(P, VT, IT, RMAIB_RED_MINLOC); return;    \
        default: return;                                                        \
        }

#define BY_SIZE(size, MAC) do {                                                 \
        switch (size) {                                                         \
        case 1: MAC(uint8_t); break;                                            \
        case 2: MAC(uint16_t); break;                                           \
        case 4: MAC(uint32_t); break;                                           \
        case 8: MAC(uint64_t); break;                                           \
        default: break;                                                         \
        }                                                                       \
    } while (0)

#define LOAD_ALL(U) do {                                                        \
        for (size_t j_ = 0; j_ < n; j_++) {                                     \
            U v_ = __atomic_load_n((U *) target + j_, SC);                      \
            memcpy((unsigned char *) fetch + j_ * sizeof v_, &v_, sizeof v_);   \
        }                                                                       \
    } while (0)
#define STORE_ALL(U) EACH(U, {                                                  \
        U y_;                                                                   \
        memcpy(&y_, o_, sizeof y_);                                             \
        if (f_)                                                                 \
            old_ = __atomic_exchange_n(p_, y_, SC);                             \
        else                                                                    \
            __atomic_store_n(p_, y_, SC);                                       \
    })

static void elems(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand, void *fetch,
                  size_t n);

#if defined(__x86_64__)
/*
 * Elements of 1, 2 or 4 bytes, a whole aligned 8-byte word of them at a time: one
 * locked instruction (or one CAS loop around rmaib_reduce) for 8/size elements
 * instead of one each, which is what makes a vector accumulate of chars or ints
 * cheap.  Every element lies wholly inside the word, so each is still updated
 * atomically, also against another origin's single-element atomic on it: x86 makes
 * locked operations atomic with respect to each other whatever their widths, as long
 * as they are aligned (SDM vol. 3, 8.1.2).  Bitwise ops are lane-wise, so they stay
 * one fetch-and-op on the word.  The rest are computed with rmaib_reduce, the same
 * code the locked path runs: once over a batch of words read up front, then each
 * word is swapped in by CAS, and only a word someone changed meanwhile is computed
 * again on its own.
 */
/* Integer SUM lane by lane within a word (SWAR): add without the top bit of each
 * lane, so no carry crosses into the next, then put the top bits' sum back with XOR.
 * hi has the top bit of every lane set; wraps like the kernels do. */
static inline uint64_t swar_sum(uint64_t x, uint64_t y, uint64_t hi)
{
    return ((x & ~hi) + (y & ~hi)) ^ ((x ^ y) & hi);
}

static uint64_t swar_mask(rmaib_basic_t b, rmaib_op_t op)
{
    if (op != RMAIB_OP_SUM)
        return 0;
    switch (b) {
    case RMAIB_BASIC_INT8: case RMAIB_BASIC_UINT8: case RMAIB_BASIC_CHAR:
        return UINT64_C(0x8080808080808080);
    case RMAIB_BASIC_INT16: case RMAIB_BASIC_UINT16:
        return UINT64_C(0x8000800080008000);
    case RMAIB_BASIC_INT32: case RMAIB_BASIC_UINT32:
        return UINT64_C(0x8000000080000000);
    default:
        return 0;
    }
}

static void words(rmaib_basic_t b, rmaib_op_t op, uint64_t *target, const unsigned char *operand,
                  unsigned char *fetch, size_t nwords)
{
    uint64_t hi = swar_mask(b, op);
    if (hi) {
        for (size_t k = 0; k < nwords; k++) {
            uint64_t y, old = __atomic_load_n(target + k, __ATOMIC_RELAXED);
            memcpy(&y, operand + 8 * k, 8);
            while (!__atomic_compare_exchange_n(target + k, &old, swar_sum(old, y, hi), 0, SC,
                                                SC))
                ;
            if (fetch)
                memcpy(fetch + 8 * k, &old, 8);
        }
        return;
    }

    enum { BATCH = 64 };
    size_t per = 8 / rmaib_basic_size(b);
    int simple = op == RMAIB_OP_NO_OP || op == RMAIB_OP_REPLACE || op == RMAIB_OP_BAND
        || op == RMAIB_OP_BOR || op == RMAIB_OP_BXOR;
    for (size_t k0 = 0; k0 < nwords; k0 += BATCH) {
        size_t m = nwords - k0 < BATCH ? nwords - k0 : BATCH;
        uint64_t old[BATCH], upd[BATCH], *t = target + k0;
        const unsigned char *o = operand ? operand + 8 * k0 : NULL;
        if (simple) {
            for (size_t k = 0; k < m; k++) {
                uint64_t y = 0;
                if (o)
                    memcpy(&y, o + 8 * k, 8);
                switch (op) {
                case RMAIB_OP_NO_OP: old[k] = __atomic_load_n(t + k, SC); break;
                case RMAIB_OP_REPLACE: old[k] = __atomic_exchange_n(t + k, y, SC); break;
                case RMAIB_OP_BAND: old[k] = __atomic_fetch_and(t + k, y, SC); break;
                case RMAIB_OP_BOR: old[k] = __atomic_fetch_or(t + k, y, SC); break;
                default: old[k] = __atomic_fetch_xor(t + k, y, SC); break;
                }
            }
        } else {
            for (size_t k = 0; k < m; k++)
                old[k] = __atomic_load_n(t + k, __ATOMIC_RELAXED);
            memcpy(upd, old, 8 * m);
            rmaib_reduce(b, op, upd, o, m * per);
            for (size_t k = 0; k < m; k++)
                while (upd[k] != old[k]
                       && !__atomic_compare_exchange_n(t + k, &old[k], upd[k], 0, SC, SC)) {
                    upd[k] = old[k];
                    rmaib_reduce(b, op, &upd[k], o + 8 * k, per);
                }
        }
        if (fetch)
            memcpy(fetch + 8 * k0, old, 8 * m);
    }
}
#endif

void rmaib_cpu_atomic_n(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand,
                        void *fetch, size_t n)
{
#if defined(__x86_64__)
    size_t es = rmaib_basic_size(b);
    if (es < 8 && n * es >= 8) {
        /* head elements one by one up to an 8-byte boundary, words, tail */
        size_t head = (size_t) ((8 - (uintptr_t) target % 8) % 8) / es;
        size_t nw = (n - head) * es / 8, tail = n - head - nw * 8 / es;
        unsigned char *t = target, *f = fetch;
        const unsigned char *o = operand;
        elems(b, op, t, o, f, head);
        size_t skip = head * es;
        words(b, op, (uint64_t *) (void *) (t + skip), o ? o + skip : NULL, f ? f + skip : NULL,
              nw);
        skip += nw * 8;
        elems(b, op, t + skip, o ? o + skip : NULL, f ? f + skip : NULL, tail);
        return;
    }
#endif
    elems(b, op, target, operand, fetch, n);
}

static void elems(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand, void *fetch,
                  size_t n)
{
    if (n == 0)
        return;
    if (op == RMAIB_OP_NO_OP) {
        /* the operand is not read: MPI lets it be NULL with NO_OP */
        if (fetch)
            BY_SIZE(rmaib_basic_size(b), LOAD_ALL);
        return;
    }
    if (op == RMAIB_OP_REPLACE) {
        BY_SIZE(rmaib_basic_size(b), STORE_ALL);
        return;
    }
    switch (b) {
    RMAIB_INTEGER_KINDS(TYPE_INTEGER)
    case RMAIB_BASIC_BOOL:
        switch (op) {
        case RMAIB_OP_LAND: CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LAND(x, y)); return;
        case RMAIB_OP_LOR:  CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LOR(x, y)); return;
        case RMAIB_OP_LXOR: CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LXOR(x, y)); return;
        default: return;
        }
    case RMAIB_BASIC_LOGICAL4:
        switch (op) {
        case RMAIB_OP_LAND: CAS_LOOP(uint32_t, uint32_t, RMAIB_RED_LAND(x, y)); return;
        case RMAIB_OP_LOR:  CAS_LOOP(uint32_t, uint32_t, RMAIB_RED_LOR(x, y)); return;
        case RMAIB_OP_LXOR: CAS_LOOP(uint32_t, uint32_t, RMAIB_RED_LXOR(x, y)); return;
        default: return;
        }
    case RMAIB_BASIC_BYTE:
        switch (op) {
        case RMAIB_OP_BAND: NATIVE(uint8_t, __atomic_fetch_and); return;
        case RMAIB_OP_BOR:  NATIVE(uint8_t, __atomic_fetch_or); return;
        case RMAIB_OP_BXOR: NATIVE(uint8_t, __atomic_fetch_xor); return;
        default: return;
        }
    TYPE_FLOAT(RMAIB_BASIC_FLOAT, float, uint32_t)
    TYPE_FLOAT(RMAIB_BASIC_DOUBLE, double, uint64_t)
    case RMAIB_BASIC_C_FLOAT_COMPLEX:
        switch (op) {
        case RMAIB_OP_SUM:  CAS_LOOP(uint64_t, float _Complex, RMAIB_RED_CSUM(x, y)); return;
        case RMAIB_OP_PROD: CAS_LOOP(uint64_t, float _Complex, rmaib_red_cmulf(x, y)); return;
        default: return;
        }
    TYPE_PAIR(RMAIB_BASIC_FLOAT_INT, rmaib_float_int_t, float, int)
    TYPE_PAIR(RMAIB_BASIC_2INT, rmaib_2int_t, int, int)
    TYPE_PAIR(RMAIB_BASIC_SHORT_INT, rmaib_short_int_t, short, int)
    TYPE_PAIR(RMAIB_BASIC_2FLOAT, rmaib_2float_t, float, float)
    default:
        return;
    }
}

void rmaib_cpu_atomic(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand,
                      void *fetch)
{
    rmaib_cpu_atomic_n(b, op, target, operand, fetch, 1);
}

#define CAS_ONE(U) do {                                                         \
        U c_, s_;                                                               \
        memcpy(&c_, compare, sizeof c_);                                        \
        memcpy(&s_, swap, sizeof s_);                                           \
        __atomic_compare_exchange_n((U *) target, &c_, s_, 0, SC, SC);          \
        memcpy(result, &c_, sizeof c_);   /* on success c_ already is the old value */ \
    } while (0)

void rmaib_cpu_cas(size_t size, void *target, const void *compare, const void *swap,
                   void *result)
{
    BY_SIZE(size, CAS_ONE);
}
