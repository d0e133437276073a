/*
 * A walk over count elements of a layout, one contiguous run at a time: how Put,
 * Get and the accumulate family cut origin and target data to each other's blocks.
 */
#ifndef RMAIB_STREAM_H_INCLUDED
#define RMAIB_STREAM_H_INCLUDED

#include <string.h>
#include "rmaib_layout.h"

typedef struct rmaib_stream {
    const rmaib_layout_t *l;
    size_t count, elem, blk, used;
    rmaib_block_t whole;        /* a contiguous layout is one run of count * size */
} rmaib_stream_t;

static inline void rmaib_stream_init(rmaib_stream_t *s, const rmaib_layout_t *l, size_t count)
{
    s->l = l;
    s->count = count;
    s->elem = s->blk = s->used = 0;
    if (l->contig) {
        s->whole.disp = 0;
        s->whole.len = count * l->size;
        s->count = 1;
    }
}

/* The current run: its offset from the buffer start and its length; 0 at the end.
 * The caller consumes part of it by adding to s->used. */
static inline int rmaib_stream_next(rmaib_stream_t *s, int64_t *addr, size_t *len)
{
    const rmaib_layout_t *l = s->l;
    const rmaib_block_t *blocks = l->contig ? &s->whole : l->blocks;
    size_t nblocks = l->contig ? 1 : l->nblocks;
    while (s->elem < s->count) {
        if (s->blk < nblocks) {
            const rmaib_block_t *b = &blocks[s->blk];
            if (s->used < b->len) {
                *addr = (int64_t) s->elem * l->extent + b->disp + (int64_t) s->used;
                *len = b->len - s->used;
                return 1;
            }
            s->blk++;
            s->used = 0;
        } else {
            s->elem++;
            s->blk = 0;
        }
    }
    return 0;
}

/* Copy between count elements of l at buf and a contiguous buffer. */
static inline void rmaib_pack(void *dst, const void *buf, size_t count, const rmaib_layout_t *l)
{
    rmaib_stream_t s;
    int64_t a;
    size_t len, done = 0;
    rmaib_stream_init(&s, l, count);
    while (rmaib_stream_next(&s, &a, &len)) {
        memcpy((char *) dst + done, (const char *) buf + a, len);
        done += len;
        s.used += len;
    }
}

static inline void rmaib_unpack(void *buf, size_t count, const rmaib_layout_t *l, const void *src)
{
    rmaib_stream_t s;
    int64_t a;
    size_t len, done = 0;
    rmaib_stream_init(&s, l, count);
    while (rmaib_stream_next(&s, &a, &len)) {
        memcpy((char *) buf + a, (const char *) src + done, len);
        done += len;
        s.used += len;
    }
}

#endif
