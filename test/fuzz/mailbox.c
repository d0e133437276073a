/*
 * fuzz mailbox: the ofi backend's mailbox (src/transport/ofi/mailbox.c) over
 * arbitrary bytes, as a target would see a request from a peer that does not speak
 * its mailbox and an origin would see a slot half written.  The input gives the
 * sizes of the target's memory and its alignment, one request, one answer slot
 * and a tag.  Checked for every input:
 *   - rmaib_amo_apply accepts exactly the requests mailbox.h calls well formed,
 *     touches only the bytes the request names (none when it refuses, old 0) and
 *     nothing outside the memory it was given (the buffers are sized exactly, so
 *     AddressSanitizer sees a byte past the end);
 *   - rmaib_amo_answer_read finds an answer only in the three words
 *     rmaib_amo_answer_fill would write for that tag, and reads back what it wrote;
 *   - rmaib_amo_pick_slot picks the lowest free slot and leaves two to answered
 *     requests.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "transport/ofi/mailbox.h"
#include "rmaib_win.h"
#include "base/atomic_cpu.h"
#include "base/reduce.h"
#include "input.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Inside [0, size), aligned at base + off to es. */
static int fits(const char *base, size_t size, uint64_t off, size_t es)
{
    return es && off <= size && es <= size - off && (uintptr_t) (base + off) % es == 0;
}

/* Which memory q may change and where, if mailbox.h calls it well formed. */
typedef struct {
    int ok;
    char *mem;                  /* ctrl or data */
    uint64_t lo, len;           /* in mem */
    uint64_t stage_len;         /* a run's operands and old values */
} expect_t;

static expect_t expect(const rmaib_amo_req_t *q, char *ctrl, size_t cs, char *data, size_t ds,
                       size_t ss)
{
    uint32_t kind = q->op & ~0xffffu, arg = q->op >> 8 & 0xff, op = q->op & 0xff;
    expect_t e = { 0, NULL, 0, 0, 0 };
    size_t es = rmaib_basic_size((rmaib_basic_t) arg);
    int atomic = rmaib_cpu_atomic_supported((rmaib_basic_t) arg, (rmaib_op_t) op);
    if (kind == 0 && q->op <= RMAIB_AOP_CAS && q->off % 8 == 0 && q->off <= cs && cs - q->off >= 8)
        e = (expect_t) { 1, ctrl, q->off, 8, 0 };
    else if (kind == RMAIB_AMO_DATA_OP && atomic && fits(data, ds, q->off, es))
        e = (expect_t) { 1, data, q->off, es, 0 };
    else if (kind == RMAIB_AMO_DATA_RUN && atomic && q->operand >= 1 && q->operand <= ss / es
             && fits(data, ds, q->off, es) && q->operand * es <= ds - q->off)
        e = (expect_t) { 1, data, q->off, q->operand * es, q->operand * es };
    else if (kind == RMAIB_AMO_DATA_CAS && op == 0 && (arg == 1 || arg == 2 || arg == 4 || arg == 8)
             && fits(data, ds, q->off, arg))
        e = (expect_t) { 1, data, q->off, arg, 0 };
    return e;
}

/* a and b differ only in [lo, lo + len). */
static int same_outside(const char *a, const char *b, size_t n, uint64_t lo, uint64_t len)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] && (i < lo || i - lo >= len))
            return 0;
    return 1;
}

static void apply(input_t *in)
{
    size_t cs = take(in, 1) % 65, ds = take(in, 1) % 65, ss = take(in, 1) % 65;
    size_t shift = take(in, 1) % 8;
    rmaib_amo_req_t q;
    q.off = take(in, 8);
    /* Small offsets most of the time, so the fuzzer reaches the accepted paths. */
    if (!(q.off & 0x80))
        q.off &= 0x7f;
    q.operand = take(in, 8);
    q.compare = take(in, 8);
    q.op = (uint32_t) take(in, 4);
    q.tag = (uint32_t) take(in, 4);

    /* Exactly sized on the heap (data at an offset, to vary its alignment); the
     * copies are what the memory held before. */
    char *ctrl = malloc(cs + 1), *dbuf = malloc(ds + shift + 1), *stage = malloc(ss + 1);
    char *c0 = malloc(cs + 1), *d0 = malloc(ds + 1), *s0 = malloc(ss + 1);
    char *data = dbuf + shift;
    for (size_t i = 0; i < cs; i++)
        ctrl[i] = (char) take(in, 1);
    for (size_t i = 0; i < ds; i++)
        data[i] = (char) take(in, 1);
    for (size_t i = 0; i < ss; i++)
        stage[i] = (char) take(in, 1);
    memcpy(c0, ctrl, cs);
    memcpy(d0, data, ds);
    memcpy(s0, stage, ss);

    /* With the sizes given exactly: nothing past them is the mailbox's to touch. */
    char *c = cs ? ctrl : NULL, *d = ds ? data : NULL, *s = ss ? stage : NULL;
    uint64_t old = 0x5a5a5a5a5a5a5a5au;
    expect_t e = expect(&q, c, cs, d, ds, ss);
    int rc = rmaib_amo_apply(&q, c, cs, d, ds, s, ss, &old);
    CHECK(rc == RMAIB_OK || rc == RMAIB_ERR_ARG);
    CHECK((rc == RMAIB_OK) == e.ok);
    if (!e.ok) {
        CHECK(old == 0);
        e.len = 0;
    }
    CHECK(same_outside(ctrl, c0, cs, e.lo, e.mem == c ? e.len : 0));
    CHECK(same_outside(data, d0, ds, e.lo, e.mem == d ? e.len : 0));
    CHECK(same_outside(stage, s0, ss, 0, e.stage_len));
    free(ctrl);
    free(dbuf);
    free(stage);
    free(c0);
    free(d0);
    free(s0);
}

static void answer(input_t *in)
{
    rmaib_amo_ans_t a, want;
    a.value = take(in, 8);
    a.tag = take(in, 8);
    a.check = take(in, 8);
    uint32_t tag = (uint32_t) take(in, 4);
    uint64_t v = 0x77;

    int r = rmaib_amo_answer_read(&a, tag, &v);
    CHECK(r == 0 || r == 1 || r == -1);
    if (r != 0) {
        rmaib_amo_answer_fill(&want, tag, r == -1, v);
        CHECK(memcmp(&a, &want, sizeof a) == 0);
    } else {
        CHECK(v == 0x77);
    }

    /* What fill writes reads back, and only under its own tag. */
    for (int refused = 0; refused <= 1; refused++) {
        rmaib_amo_answer_fill(&want, tag, refused, a.value);
        CHECK(rmaib_amo_answer_read(&want, tag, &v) == (refused ? -1 : 1) && v == a.value);
        CHECK(rmaib_amo_answer_read(&want, tag + 1 + (uint32_t) (a.check % 0xffffffffu), &v) == 0);
    }
}

static void pick(input_t *in)
{
    uint32_t busy = (uint32_t) take(in, 4);
    int answered = (int) (take(in, 1) & 1);
    int s = rmaib_amo_pick_slot(busy, answered);
    uint32_t avail = ~busy & ((1u << RMAIB_AMO_SLOTS) - 1);
    if (s < 0) {
        CHECK(s == -1);
        CHECK(avail == 0 || (!answered && __builtin_popcount(avail) <= 2));
    } else {
        CHECK(s < RMAIB_AMO_SLOTS && (avail >> s & 1) && (avail & ((1u << s) - 1)) == 0);
        CHECK(answered || __builtin_popcount(avail) > 2);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input_t in = { data, size };
    switch (take(&in, 1) % 3) {
    case 0: apply(&in); break;
    case 1: answer(&in); break;
    default: pick(&in); break;
    }
    return 0;
}
