/*
 * FNV-1a, 64 bits: the hash of host names, namespaces, endpoint names and provider
 * names (keys compared across processes, so every process must hash alike).
 */
#ifndef RMAIB_BASE_HASH_H_INCLUDED
#define RMAIB_BASE_HASH_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define RMAIB_FNV1A_INIT UINT64_C(0xcbf29ce484222325)

/* h carried on over the n bytes at p (start from RMAIB_FNV1A_INIT). */
static inline uint64_t rmaib_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
}

#endif
