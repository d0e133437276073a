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
               && sizeof(rmaib_short_int_t) == 8, "8-byte pair types");

static int lock_free(size_t size)
{
    switch (size) {
    case 1: return __atomic_always_lock_free(1, 0);
    case 2: return __atomic_always_lock_free(2, 0);
    case 4: return __atomic_always_lock_free(4, 0);
    case 8: return __atomic_always_lock_free(8, 0);
    default: return 0;
    }
}

int rmaib_cpu_atomic_supported(rmaib_basic_t b, rmaib_op_t op)
{
    if (rmaib_reduce_valid(b, op) != RMAIB_OK)
        return 0;
    switch (b) {
    case RMAIB_BASIC_INT8: case RMAIB_BASIC_INT16: case RMAIB_BASIC_INT32: case RMAIB_BASIC_INT64:
    case RMAIB_BASIC_UINT8: case RMAIB_BASIC_UINT16: case RMAIB_BASIC_UINT32:
    case RMAIB_BASIC_UINT64:
    case RMAIB_BASIC_FLOAT: case RMAIB_BASIC_DOUBLE: case RMAIB_BASIC_C_FLOAT_COMPLEX:
    case RMAIB_BASIC_BOOL: case RMAIB_BASIC_BYTE: case RMAIB_BASIC_CHAR:
    case RMAIB_BASIC_FLOAT_INT: case RMAIB_BASIC_2INT: case RMAIB_BASIC_SHORT_INT:
        return lock_free(rmaib_basic_size(b));
    default:
        return 0;
    }
}

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
#define CAS_PAIR(P, VT, MAC) EACH(uint64_t, {                                   \
        VT v_;                                                                  \
        int k_;                                                                 \
        uint64_t new_;                                                          \
        memcpy(&v_, o_ + offsetof(P, v), sizeof v_);                            \
        memcpy(&k_, o_ + offsetof(P, i), sizeof k_);                            \
        old_ = __atomic_load_n(p_, SC);                                         \
        do {                                                                    \
            unsigned char w_[sizeof(uint64_t)];                                 \
            VT u_;                                                              \
            int i_;                                                             \
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

#define TYPE_PAIR(B, P, VT)                                                     \
    case B:                                                                     \
        switch (op) {                                                           \
        case RMAIB_OP_MAXLOC: CAS_PAIR(P, VT, RMAIB_RED_MAXLOC); return;        \
        case RMAIB_OP_MINLOC: CAS_PAIR(P, VT, RMAIB_RED_MINLOC); return;        \
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

void rmaib_cpu_atomic_n(rmaib_basic_t b, rmaib_op_t op, void *target, const void *operand,
                        void *fetch, size_t n)
{
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
    TYPE_INTEGER(RMAIB_BASIC_INT8, int8_t, uint8_t, unsigned)
    TYPE_INTEGER(RMAIB_BASIC_INT16, int16_t, uint16_t, unsigned)
    TYPE_INTEGER(RMAIB_BASIC_INT32, int32_t, uint32_t, uint32_t)
    TYPE_INTEGER(RMAIB_BASIC_INT64, int64_t, uint64_t, uint64_t)
    TYPE_INTEGER(RMAIB_BASIC_UINT8, uint8_t, uint8_t, unsigned)
    TYPE_INTEGER(RMAIB_BASIC_UINT16, uint16_t, uint16_t, unsigned)
    TYPE_INTEGER(RMAIB_BASIC_UINT32, uint32_t, uint32_t, uint32_t)
    TYPE_INTEGER(RMAIB_BASIC_UINT64, uint64_t, uint64_t, uint64_t)
    TYPE_INTEGER(RMAIB_BASIC_CHAR, int8_t, uint8_t, unsigned)
    case RMAIB_BASIC_BOOL:
        switch (op) {
        case RMAIB_OP_LAND: CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LAND(x, y)); return;
        case RMAIB_OP_LOR:  CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LOR(x, y)); return;
        case RMAIB_OP_LXOR: CAS_LOOP(uint8_t, uint8_t, RMAIB_RED_LXOR(x, y)); return;
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
    TYPE_PAIR(RMAIB_BASIC_FLOAT_INT, rmaib_float_int_t, float)
    TYPE_PAIR(RMAIB_BASIC_2INT, rmaib_2int_t, int)
    TYPE_PAIR(RMAIB_BASIC_SHORT_INT, rmaib_short_int_t, short)
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
