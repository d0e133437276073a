/*
 * The harnesses' reading of their input: bytes taken from the front, zeros once
 * it runs out (so every input, however short, is a whole case).
 */
#ifndef RMAIB_FUZZ_INPUT_H_INCLUDED
#define RMAIB_FUZZ_INPUT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t *p;
    size_t n;
} input_t;

/* The next `bytes` bytes (at most 8), little-endian. */
static inline uint64_t take(input_t *in, size_t bytes)
{
    uint64_t v = 0;
    for (size_t i = 0; i < bytes && in->n; i++, in->p++, in->n--)
        v |= (uint64_t) *in->p << 8 * i;
    return v;
}

#endif
