/*
 * The mailbox request: checks and application (see mailbox.h).
 */
#include "mailbox.h"
#include "rmaib_win.h"
#include "base/atomic_cpu.h"

/* The element of window data a request names, checked as the origin's
 * rmaib_ofi_data_atomic did (inside the window, aligned to its size), or NULL. */
static char *data_element(char *data, size_t data_size, uint64_t off, size_t size)
{
    if (size == 0 || off > data_size || size > data_size - off
        || (uintptr_t) (data + off) % size != 0)
        return NULL;
    return data + off;
}

int rmaib_amo_apply(const rmaib_amo_req_t *q, char *ctrl, size_t ctrl_size, char *data,
                    size_t data_size, char *stage, size_t stage_size, uint64_t *old)
{
    uint32_t kind = q->op & ~0xffffu, arg = q->op >> 8 & 0xff, op = q->op & 0xff;
    char *e;
    *old = 0;
    if (kind == 0 && q->op <= RMAIB_AOP_CAS && q->off % sizeof(uint64_t) == 0
        && q->off <= ctrl_size && ctrl_size - q->off >= sizeof(uint64_t)) {
        *old = rmaib_cpu_ctrl_atomic(ctrl + q->off, (rmaib_aop_t) q->op, q->operand, q->compare);
        return RMAIB_OK;
    }
    if (kind == RMAIB_AMO_DATA_OP
        && rmaib_cpu_atomic_supported((rmaib_basic_t) arg, (rmaib_op_t) op)
        && (e = data_element(data, data_size, q->off, rmaib_basic_size((rmaib_basic_t) arg)))) {
        rmaib_cpu_atomic((rmaib_basic_t) arg, (rmaib_op_t) op, e, &q->operand, old);
        return RMAIB_OK;
    }
    if (kind == RMAIB_AMO_DATA_RUN
        && rmaib_cpu_atomic_supported((rmaib_basic_t) arg, (rmaib_op_t) op)) {
        size_t es = rmaib_basic_size((rmaib_basic_t) arg), n = (size_t) q->operand;
        /* n fits the stage, so n * es cannot wrap; the first element's checks then
         * bound the rest. */
        if (n >= 1 && q->operand <= stage_size / es
            && (e = data_element(data, data_size, q->off, es)) && n * es <= data_size - q->off) {
            /* Operands and old values share the stage: element j's operand is read
             * before its old value is stored over it. */
            rmaib_cpu_atomic_n((rmaib_basic_t) arg, (rmaib_op_t) op, e, stage, stage, n);
            return RMAIB_OK;
        }
    }
    if (kind == RMAIB_AMO_DATA_CAS && op == 0 && (arg == 1 || arg == 2 || arg == 4 || arg == 8)
        && (e = data_element(data, data_size, q->off, arg))) {
        rmaib_cpu_cas(arg, e, &q->compare, &q->operand, old);
        return RMAIB_OK;
    }
    return RMAIB_ERR_ARG;
}

int rmaib_amo_pick_slot(uint32_t busy, int answered)
{
    uint32_t avail = ~busy & ((1u << RMAIB_AMO_SLOTS) - 1);
    if (!avail || (!answered && __builtin_popcount(avail) <= 2))
        return -1;
    return __builtin_ctz(avail);
}

/* kind + 1 in the high word: never 0, the tag of a zeroed mailbox. */
static uint64_t answer_tag(uint32_t tag, int refused)
{
    return (uint64_t) (refused ? 1 : 2) << 32 | tag;
}

/* A multiply by an odd constant is one-to-one, so an answer torn between the words
 * of two answers (tags differ) never checks: value ^ f(new tag) = old value ^
 * f(old tag) would need the new value to equal the old one xor f(old) ^ f(new). */
static uint64_t answer_check(uint64_t value, uint64_t tag)
{
    return value ^ tag * 0x9e3779b97f4a7c15u;
}

void rmaib_amo_answer_fill(rmaib_amo_ans_t *a, uint32_t tag, int refused, uint64_t value)
{
    a->value = value;
    a->tag = answer_tag(tag, refused);
    a->check = answer_check(value, a->tag);
}

int rmaib_amo_answer_read(const volatile rmaib_amo_ans_t *a, uint32_t tag, uint64_t *value)
{
    uint64_t t = a->tag, v = a->value, c = a->check;
    int refused = t == answer_tag(tag, 1);
    if ((!refused && t != answer_tag(tag, 0)) || c != answer_check(v, t))
        return 0;
    *value = v;
    return refused ? -1 : 1;
}
