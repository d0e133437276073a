/*
 * Reduction kernels of the accumulate family: which (basic type, op) pairs MPI
 * allows, and inout[i] = inout[i] op in[i] on buffers of basic elements.  MPI-free.
 *
 * The element-level operators below are shared with the CPU-atomic path
 * (atomic_cpu.c), so a CAS loop and the get-reduce-put path compute bit-identical
 * results, NaNs included: MAX keeps the target unless the operand is strictly
 * greater (a NaN on either side leaves the target as it was), MIN likewise; a real
 * SUM or PROD with a NaN target yields that NaN (quieted), whatever the operand.
 *
 * Values never depend on padding bytes, and no op but REPLACE writes them:
 * x86 long double keeps its 6 padding bytes, pair types keep theirs.
 */
#ifndef RMAIB_REDUCE_H_INCLUDED
#define RMAIB_REDUCE_H_INCLUDED

#include <float.h>
#include <stddef.h>
#include "rmaib.h"

/* Bytes of a long double that carry its value: the x87 80-bit format sits in 12
 * or 16 bytes of which only the first 10 are significant. */
#if (defined(__x86_64__) || defined(__i386__)) && LDBL_MANT_DIG == 64
#define RMAIB_LDBL_BYTES 10
#else
#define RMAIB_LDBL_BYTES sizeof(long double)
#endif

/* The integer basic kinds as X(kind, signed C type, unsigned C type, the type SUM
 * and PROD compute in: unsigned, so a product of short types cannot overflow int). */
#define RMAIB_INTEGER_KINDS(X)                            \
    X(RMAIB_BASIC_INT8, int8_t, uint8_t, unsigned)        \
    X(RMAIB_BASIC_INT16, int16_t, uint16_t, unsigned)     \
    X(RMAIB_BASIC_INT32, int32_t, uint32_t, uint32_t)     \
    X(RMAIB_BASIC_INT64, int64_t, uint64_t, uint64_t)     \
    X(RMAIB_BASIC_UINT8, uint8_t, uint8_t, unsigned)      \
    X(RMAIB_BASIC_UINT16, uint16_t, uint16_t, unsigned)   \
    X(RMAIB_BASIC_UINT32, uint32_t, uint32_t, uint32_t)   \
    X(RMAIB_BASIC_UINT64, uint64_t, uint64_t, uint64_t)   \
    X(RMAIB_BASIC_CHAR, int8_t, uint8_t, unsigned)

/* The C layouts MPI gives the MAXLOC/MINLOC pair types. */
typedef struct { float v; int i; } rmaib_float_int_t;
typedef struct { double v; int i; } rmaib_double_int_t;
typedef struct { long v; int i; } rmaib_long_int_t;
typedef struct { int v; int i; } rmaib_2int_t;
typedef struct { short v; int i; } rmaib_short_int_t;
typedef struct { long double v; int i; } rmaib_long_double_int_t;
typedef struct { float v; float i; } rmaib_2float_t;       /* MPI_2REAL */
typedef struct { double v; double i; } rmaib_2double_t;    /* MPI_2DOUBLE_PRECISION */

/* Element operators: a is the target's value, b the operand's.  Real SUM/PROD:
 * IEEE 754 leaves open which payload an operation on two NaNs returns; x86 returns
 * its first operand's, and the compiler may swap a + b freely.  Pinning "a NaN
 * target wins" keeps the vectorized and the CAS-loop code in agreement. */
#define RMAIB_RED_FSUM(a, b)  ((a) + ((a) != (a) ? (a) : (b)))
#define RMAIB_RED_FPROD(a, b) ((a) * ((a) != (a) ? (a) : (b)))
#define RMAIB_RED_CSUM(a, b)  __builtin_complex(RMAIB_RED_FSUM(__real__ (a), __real__ (b)), \
                                                RMAIB_RED_FSUM(__imag__ (a), __imag__ (b)))
#define RMAIB_RED_MAX(a, b)   ((b) > (a) ? (b) : (a))
#define RMAIB_RED_MIN(a, b)   ((b) < (a) ? (b) : (a))
#define RMAIB_RED_LAND(a, b)  (((a) != 0) & ((b) != 0))
#define RMAIB_RED_LOR(a, b)   (((a) != 0) | ((b) != 0))
#define RMAIB_RED_LXOR(a, b)  (((a) != 0) ^ ((b) != 0))

/* (u, i) = (u, i) MAXLOC (v, j): the larger value wins; on a tie the smaller index. */
#define RMAIB_RED_MAXLOC(u, i, v, j) do {                               \
        if ((v) > (u)) { (u) = (v); (i) = (j); }                        \
        else if ((v) == (u) && (j) < (i)) (i) = (j);                    \
    } while (0)
#define RMAIB_RED_MINLOC(u, i, v, j) do {                               \
        if ((v) < (u)) { (u) = (v); (i) = (j); }                        \
        else if ((v) == (u) && (j) < (i)) (i) = (j);                    \
    } while (0)

/* float complex product, out of line so that both paths run the same machine code
 * (inlined copies could order operands or contract into FMAs differently). */
float _Complex rmaib_red_cmulf(float _Complex a, float _Complex b);

/* Tables behind the two inline functions below (on every accumulate's path). */
#define OPBIT(op) (1u << (op))
extern const unsigned rmaib_valid_ops_tab[RMAIB_BASIC_COUNT];
extern const size_t rmaib_basic_size_tab[RMAIB_BASIC_COUNT];

/* May op be applied to elements of basic type b (MPI-3.1 §5.9.2)?  RMAIB_OK,
 * RMAIB_ERR_OP for a forbidden pair or an unknown op, RMAIB_ERR_TYPE for
 * RMAIB_BASIC_NONE (the accumulate family needs one basic type, even for REPLACE)
 * or an unknown type. */
static inline int rmaib_reduce_valid(rmaib_basic_t b, rmaib_op_t op)
{
    if ((unsigned) b >= RMAIB_BASIC_COUNT || b == RMAIB_BASIC_NONE)
        return RMAIB_ERR_TYPE;
    if ((unsigned) op >= RMAIB_OP_COUNT || op < RMAIB_OP_SUM)
        return RMAIB_ERR_OP;
    return rmaib_valid_ops_tab[b] & OPBIT(op) ? RMAIB_OK : RMAIB_ERR_OP;
}

/* May Compare_and_swap work on b (MPI-3.1 §11.3.4: C integer, logical (C and
 * Fortran), byte; and
 * MPI_CHAR, which MPICH takes as a C integer here too)?  RMAIB_OK or RMAIB_ERR_TYPE. */
static inline int rmaib_cas_valid(rmaib_basic_t b)
{
    /* (exactly those types take a bitwise or a logical op: the table's categories) */
    if ((unsigned) b >= RMAIB_BASIC_COUNT)
        return RMAIB_ERR_TYPE;
    return rmaib_valid_ops_tab[b] & (OPBIT(RMAIB_OP_BAND) | OPBIT(RMAIB_OP_LAND))
        ? RMAIB_OK : RMAIB_ERR_TYPE;
}

/* inout[i] = inout[i] op in[i] for n elements of type b; REPLACE copies (memmove),
 * NO_OP does nothing.  Any alignment; in may equal inout but not partly overlap it.
 * The pair must be valid (rmaib_reduce_valid): an invalid one does nothing. */
void rmaib_reduce(rmaib_basic_t b, rmaib_op_t op, void *inout, const void *in, size_t n);
/* The same for a valid pair of a reducing op (neither REPLACE nor NO_OP), without
 * the checks, for a caller on the latency path that has made them. */
void rmaib_reduce_nocheck(rmaib_basic_t b, rmaib_op_t op, void *inout, const void *in,
                          size_t n);
/* Take the AVX-512 kernels for short runs (on, where the CPU has AVX-512: the
 * default) or the plain ones (0); returns whether the AVX-512 ones were in use.
 * For tests, which check both sets; not thread-safe. */
int rmaib_reduce_use_wide(int on);

/* sizeof one element (pairs: sizeof the C struct); 0 for NONE or an unknown type. */
static inline size_t rmaib_basic_size(rmaib_basic_t b)
{
    return (unsigned) b < RMAIB_BASIC_COUNT ? rmaib_basic_size_tab[b] : 0;
}

/* Pair types: offsetof the index in the C struct (0 for any other type).  MPI moves
 * a pair as its value's bytes followed by the index's, without the padding. */
size_t rmaib_pair_index_offset(rmaib_basic_t b);

#endif
