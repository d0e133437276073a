/*
 * Data the tests move and check: patterns that name their origin, target and index,
 * sentinels for memory nobody may touch, and a small generator every rank can replay.
 */
#ifndef RMAIB_TEST_PATTERN_H
#define RMAIB_TEST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

/* Value no test ever writes: every byte outside a transfer must still hold it. */
#define SENT_INT ((int) 0xDEADBEEF)
#define SENT_BYTE 0xA5

/* A positive int unique for (origin, target, slot, index) with up to 64 ranks,
 * 1024 slots and 64 elements per slot; never equal to SENT_INT. */
static inline int pat(int o, int t, int slot, int j)
{
    return 1 + (((o * 64 + t) * 1024 + slot % 1024) * 64 + j % 64);
}

/* A byte for (origin, target, index); never SENT_BYTE. */
static inline unsigned char bpat(int o, int t, long i)
{
    unsigned v = (unsigned) (o * 131 + t * 29 + i * 7 + (i >> 8) * 13 + (i >> 16) * 3) % 254u;
    return (unsigned char) (v >= SENT_BYTE ? v + 1 : v);
}

static inline void fill_int(int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        p[i] = v;
}

/* Index of the first int in p[0..n) that is not v, or -1. */
static inline long find_not_int(const int *p, size_t n, int v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return (long) i;
    return -1;
}

static inline long find_not_byte(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return (long) i;
    return -1;
}

/* A small deterministic generator (xorshift64*), so every rank can replay another
 * rank's sequence of operations. */
static inline uint64_t prng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

#endif
