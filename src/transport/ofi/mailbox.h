/*
 * The ofi backend's mailbox: what an origin writes into a target's mailbox for the
 * target's CPU to apply (a lock word's atomic, or fetch-and-op / compare-and-swap on
 * one element of window data), how the target checks and applies it, and which
 * slot a new request may take.  No provider calls and no MPI, so the unit test
 * (test/unit/mailbox) drives every branch, the refusals included; amo.c moves the
 * requests and answers.
 */
#ifndef RMAIB_MAILBOX_H_INCLUDED
#define RMAIB_MAILBOX_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "rmaib.h"

#define RMAIB_AMO_SLOTS 16      /* requests one origin may have in a target's mailbox */

/* A request: a control word's offset and rmaib_cpu_ctrl_atomic's arguments, or one
 * element of window data; op says which (below). */
typedef struct rmaib_amo_req {
    uint64_t off, operand, compare;
    uint32_t op;
    uint32_t tag;               /* the origin's number for it, echoed in the answer */
} rmaib_amo_req_t;

/* rmaib_amo_req_t.op: an rmaib_aop_t on a control word;
 * RMAIB_AMO_DATA_OP | basic << 8 | rmaib_op_t, rmaib_cpu_atomic on an element of
 * window data (operand and result in the low bytes);
 * RMAIB_AMO_DATA_CAS | size << 8, rmaib_cpu_cas on one;
 * RMAIB_AMO_DATA_RUN | basic << 8 | rmaib_op_t, rmaib_cpu_atomic on `operand`
 * consecutive elements from off, each atomic on its own, the operands taken from
 * the origin's stage (which its put filled before it sent the request) and the old
 * values left there in their place. */
enum { RMAIB_AMO_DATA_OP = 1u << 16, RMAIB_AMO_DATA_CAS = 2u << 16, RMAIB_AMO_DATA_RUN = 3u << 16 };

static inline uint32_t rmaib_amo_data_op(rmaib_basic_t b, rmaib_op_t op)
{
    return RMAIB_AMO_DATA_OP | (uint32_t) b << 8 | (uint32_t) op;
}

static inline uint32_t rmaib_amo_data_cas(size_t size)
{
    return RMAIB_AMO_DATA_CAS | (uint32_t) size << 8;
}

static inline uint32_t rmaib_amo_data_run(rmaib_basic_t b, rmaib_op_t op)
{
    return RMAIB_AMO_DATA_RUN | (uint32_t) b << 8 | (uint32_t) op;
}

/* Apply q to the target's control words ctrl[0, ctrl_size) or window data
 * data[0, data_size), with the origin's stage stage[0, stage_size) for a run,
 * leaving the old value in *old (0 for a run): RMAIB_OK, or RMAIB_ERR_ARG with
 * nothing touched and *old 0 when q is malformed (an unknown op, a type/op pair
 * the CPU does not do atomically, an element or run outside the memory or not
 * aligned to its size, a run of no elements or longer than the stage holds).  An
 * origin checks all of this before it sends, so a refusal means a peer that does
 * not speak this mailbox. */
int rmaib_amo_apply(const rmaib_amo_req_t *q, char *ctrl, size_t ctrl_size, char *data,
                    size_t data_size, char *stage, size_t stage_size, uint64_t *old);

/* An answer, as the target writes it into the origin's mailbox: one injected write
 * that no completion announces, so the origin finds it by looking.  tag names the
 * request answered (rmaib_amo_req_t.tag) and whether it was applied or refused;
 * check lets the origin tell a whole answer from one it caught while the provider
 * was placing it, whatever order the provider's copy stores the words in. */
typedef struct rmaib_amo_ans {
    uint64_t value, tag, check;
} rmaib_amo_ans_t;

/* The answer to the request tagged tag: its old value, or refused. */
void rmaib_amo_answer_fill(rmaib_amo_ans_t *a, uint32_t tag, int refused, uint64_t value);

/* Has the answer to the request tagged tag arrived whole at a?  0: not (yet); 1: yes,
 * the old value in *value; -1: yes, the target refused the request. */
int rmaib_amo_answer_read(const volatile rmaib_amo_ans_t *a, uint32_t tag, uint64_t *value);

/* The slot a new request takes, given the slots busy (bit i: slot i): the lowest
 * free one, or -1.  A one-way request (answered 0) needs two more left free: it
 * holds its slot until an answered request sent after it comes back, so one-way
 * requests alone must never fill the mailbox. */
int rmaib_amo_pick_slot(uint32_t busy, int answered);

#endif
