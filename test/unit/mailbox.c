/*
 * The ofi backend's mailbox (src/mpid/ch4/netmod/rmaib/mailbox.c), without MPI or a
 * provider.  Checks that
 *   - every control-word op and the data ops and CASes an origin sends are applied
 *     to the right bytes, with the old value returned, and a run of elements takes
 *     its operands from the origin's stage and leaves the old values there;
 *   - every malformed request (unknown kind or op, a type/op pair the CPU does not
 *     do atomically, a bad CAS size, an element outside the memory, straddling its
 *     end, past it by an offset that would wrap, or not aligned; a run of no
 *     elements, longer than the stage, or a count that would wrap) is refused with
 *     RMAIB_ERR_ARG and touches no byte, leaving old 0;
 *   - the slot choice leaves two slots to answered requests: one-way requests alone
 *     take at most 14 of 16, after which the origin must send an answered request
 *     (amo.c's AMO_FULL), and an answered request takes any free slot;
 *   - an answer is found only whole and only for the request it names: its value
 *     or the refusal read back; a zeroed slot, another request's answer, and every
 *     mix of the words of two answers (as a reader may catch the provider placing
 *     one over the other) are "not yet".
 * Prints TAP.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "transport/ofi/mailbox.h"
#include "transport/transport.h"
#include "unit_tap.h"

enum { CTRL = 64, DATA = 64, STAGE = 32 };
static _Alignas(16) char ctrl[CTRL], data[DATA], stage[STAGE];

/* A data request: rmaib_amo_data_op(RMAIB_BASIC_type, RMAIB_OP_op). */
#define OP(type, op) rmaib_amo_data_op(RMAIB_BASIC_##type, RMAIB_OP_##op)

static rmaib_amo_req_t req(uint64_t off, uint64_t operand, uint64_t compare, uint32_t op)
{
    return (rmaib_amo_req_t){ off, operand, compare, op, 0 };
}

static void fill(void)
{
    for (int i = 0; i < CTRL; i++)
        ctrl[i] = (char) (0x10 + i);
    for (int i = 0; i < DATA; i++)
        data[i] = (char) (0x80 + i);
    for (int i = 0; i < STAGE; i++)
        stage[i] = (char) (0x40 + i);
}

static void set_word(char *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Apply q to a fresh ctrl/data; true when it succeeded, changed exactly the bytes
 * [lo, lo + n) of mem (ctrl or data) and nothing else, and returned want_old. */
static int applied(const char *what, rmaib_amo_req_t q, char *mem, size_t lo, size_t n,
                   const void *want_new, uint64_t want_old)
{
    char before_c[CTRL], before_d[DATA];
    memcpy(before_c, ctrl, CTRL);
    memcpy(before_d, data, DATA);
    uint64_t old = 12345;
    char before_s[STAGE];
    memcpy(before_s, stage, STAGE);
    int rc = rmaib_amo_apply(&q, ctrl, CTRL, data, DATA, stage, STAGE, &old);
    memcpy((mem == ctrl ? before_c : before_d) + lo, want_new, n);
    int ok = rc == RMAIB_OK && old == want_old && !memcmp(ctrl, before_c, CTRL) &&
             !memcmp(data, before_d, DATA) && !memcmp(stage, before_s, STAGE);
    tap(ok, "%s: applied (rc %d, old %#llx, want %#llx)", what, rc, (unsigned long long) old,
        (unsigned long long) want_old);
    return ok;
}

/* q on ctrl[0, ctrl_size), data[0, data_size) and the stage, inside the arrays. */
static void refused_in(const char *what, rmaib_amo_req_t q, size_t ctrl_size, size_t data_size)
{
    char before_c[CTRL], before_d[DATA], before_s[STAGE];
    fill();
    memcpy(before_c, ctrl, CTRL);
    memcpy(before_d, data, DATA);
    memcpy(before_s, stage, STAGE);
    uint64_t old = 12345;
    int rc = rmaib_amo_apply(&q, ctrl, ctrl_size, data, data_size, stage, STAGE, &old);
    tap(rc == RMAIB_ERR_ARG && old == 0 && !memcmp(ctrl, before_c, CTRL) &&
            !memcmp(data, before_d, DATA) && !memcmp(stage, before_s, STAGE),
        "%s: refused, nothing touched (rc %d, old %#llx)", what, rc, (unsigned long long) old);
}

static void refused(const char *what, rmaib_amo_req_t q)
{
    refused_in(what, q, CTRL, DATA);
}

static void control_words(void)
{
    fill();
    uint64_t v = 0x1111, n;
    set_word(ctrl + 16, v);
    applied("ctrl READ", req(16, 7, 0, RMAIB_AOP_READ), ctrl, 16, 8, &v, v);
    n = 42;
    applied("ctrl WRITE", req(16, 42, 0, RMAIB_AOP_WRITE), ctrl, 16, 8, &n, 0);
    n = 42 + 5;
    applied("ctrl FADD", req(16, 5, 0, RMAIB_AOP_FADD), ctrl, 16, 8, &n, 42);
    n = 9;
    applied("ctrl SWAP", req(16, 9, 0, RMAIB_AOP_SWAP), ctrl, 16, 8, &n, 47);
    n = 9;
    applied("ctrl CAS, compare differs", req(16, 77, 8, RMAIB_AOP_CAS), ctrl, 16, 8, &n, 9);
    n = 77;
    applied("ctrl CAS, compare matches", req(16, 77, 9, RMAIB_AOP_CAS), ctrl, 16, 8, &n, 9);
    set_word(ctrl + CTRL - 8, 0);
    n = 3;
    applied("ctrl FADD on the last word", req(CTRL - 8, 3, 0, RMAIB_AOP_FADD), ctrl, CTRL - 8, 8,
            &n, 0);

    refused("ctrl op past CAS", req(16, 1, 0, RMAIB_AOP_CAS + 1));
    refused("ctrl op 0xffff", req(16, 1, 0, 0xffff));
    refused("ctrl word not 8-aligned", req(12, 1, 0, RMAIB_AOP_FADD));
    refused_in("ctrl word straddling the end", req(CTRL - 8, 1, 0, RMAIB_AOP_SWAP), CTRL - 4, DATA);
    refused("ctrl word at the end", req(CTRL, 1, 0, RMAIB_AOP_WRITE));
    refused("ctrl offset that wraps", req(UINT64_MAX - 7, 1, 0, RMAIB_AOP_FADD));
}

static void data_ops(void)
{
    fill();
    int64_t i64 = -5, i64n = -5 + 1000;
    memcpy(data + 8, &i64, 8);
    applied("data INT64 SUM", req(8, 1000, 0, OP(INT64, SUM)), data, 8, 8, &i64n, (uint64_t) i64);
    uint8_t b = (uint8_t) data[3], bn = (uint8_t) (b | 0x41);
    applied("data UINT8 BOR", req(3, 0x41, 0, OP(UINT8, BOR)), data, 3, 1, &bn, b);
    double d = 1.5, dn = 1.5 + 2.25, two = 2.25;
    uint64_t dop;
    memcpy(data + 16, &d, 8);
    memcpy(&dop, &two, 8);
    uint64_t dold;
    memcpy(&dold, &d, 8);
    applied("data DOUBLE SUM", req(16, dop, 0, OP(DOUBLE, SUM)), data, 16, 8, &dn, dold);
    int32_t i32 = 7, i32n = 7;
    memcpy(data + 28, &i32, 4);
    applied("data INT32 NO_OP", req(28, 99, 0, OP(INT32, NO_OP)), data, 28, 4, &i32n, 7);
    int16_t i16 = 3, i16n = 3 > -8 ? 3 : -8;
    memcpy(data + DATA - 2, &i16, 2);
    applied("data INT16 MAX on the last element", req(DATA - 2, (uint16_t) -8, 0, OP(INT16, MAX)),
            data, DATA - 2, 2, &i16n, 3);

    refused("data LONG_DOUBLE SUM (no CPU atomic)", req(0, 1, 0, OP(LONG_DOUBLE, SUM)));
    refused("data DOUBLE BAND (invalid pair)", req(16, 1, 0, OP(DOUBLE, BAND)));
    refused("data type NONE", req(8, 1, 0, OP(NONE, SUM)));
    refused("data type 200", req(8, 1, 0, RMAIB_AMO_DATA_OP | 200u << 8 | RMAIB_OP_SUM));
    refused("data op 0", req(8, 1, 0, RMAIB_AMO_DATA_OP | RMAIB_BASIC_INT64 << 8));
    refused("data op 200", req(8, 1, 0, RMAIB_AMO_DATA_OP | RMAIB_BASIC_INT64 << 8 | 200));
    refused("data INT64 not 8-aligned", req(4, 1, 0, OP(INT64, SUM)));
    refused_in("data INT64 straddling the end", req(DATA - 8, 1, 0, OP(INT64, SUM)), CTRL,
               DATA - 4);
    refused("data UINT8 at the end", req(DATA, 1, 0, OP(UINT8, SUM)));
    refused("data offset that wraps", req(UINT64_MAX - 3, 1, 0, OP(INT32, SUM)));
}

static void data_cas(void)
{
    static const size_t sizes[] = { 1, 2, 4, 8 };
    for (int k = 0; k < 4; k++) {
        size_t s = sizes[k], off = 24;
        char what[64];
        fill();
        uint64_t cur = 0, sw = 0x0102030405060708ull & (s == 8 ? ~0ull : (1ull << (8 * s)) - 1);
        memcpy(&cur, data + off, s);
        snprintf(what, sizeof what, "data CAS of %zu bytes, compare differs", s);
        applied(what, req(off, sw, cur ^ 1, rmaib_amo_data_cas(s)), data, off, s, data + off, cur);
        snprintf(what, sizeof what, "data CAS of %zu bytes, compare matches", s);
        applied(what, req(off, sw, cur, rmaib_amo_data_cas(s)), data, off, s, &sw, cur);
    }
    refused("data CAS of 3 bytes", req(0, 1, 0, rmaib_amo_data_cas(3)));
    refused("data CAS of 16 bytes", req(0, 1, 0, rmaib_amo_data_cas(16)));
    refused("data CAS with an op byte", req(0, 1, 0, rmaib_amo_data_cas(8) | 1));
    refused("data CAS of 4 bytes not aligned", req(2, 1, 0, rmaib_amo_data_cas(4)));
    refused_in("data CAS of 8 bytes straddling the end", req(DATA - 8, 1, 0, rmaib_amo_data_cas(8)),
               CTRL, DATA - 4);
    refused("unknown kind 4 << 16", req(0, 1, 0, 4u << 16 | 8u << 8));
}

/* A run of n INT32 SUMs at data + off: the stage's operands added, the old values
 * left in the stage, nothing else touched. */
static void run_sum(const char *what, size_t off, size_t n)
{
    int32_t in[STAGE / 4], was[STAGE / 4], want[STAGE / 4];
    char before_c[CTRL], before_d[DATA];
    fill();
    for (size_t j = 0; j < n; j++) {
        in[j] = (int32_t) (1000 * (j + 1));
        memcpy(&was[j], data + off + 4 * j, 4);
        want[j] = was[j] + in[j];
    }
    memcpy(stage, in, 4 * n);
    memcpy(before_c, ctrl, CTRL);
    memcpy(before_d, data, DATA);
    memcpy(before_d + off, want, 4 * n);
    uint64_t old = 12345;
    rmaib_amo_req_t q = req(off, n, 0, rmaib_amo_data_run(RMAIB_BASIC_INT32, RMAIB_OP_SUM));
    int rc = rmaib_amo_apply(&q, ctrl, CTRL, data, DATA, stage, STAGE, &old);
    tap(rc == RMAIB_OK && old == 0 && !memcmp(ctrl, before_c, CTRL) &&
            !memcmp(data, before_d, DATA) && !memcmp(stage, was, 4 * n),
        "%s: applied, old values in the stage (rc %d)", what, rc);
}

static void data_runs(void)
{
    run_sum("run of 1 INT32 SUM", 4, 1);
    run_sum("run of 5 INT32 SUMs", 8, 5);
    run_sum("run filling the stage, up to the end of the data", DATA - STAGE, STAGE / 4);
    fill();
    double d[2] = { 1.5, -2.0 }, r[2] = { 9.0, 7.5 };
    memcpy(data + 16, d, sizeof d);
    memcpy(stage, r, sizeof r);
    uint64_t old = 1;
    rmaib_amo_req_t q = req(16, 2, 0, rmaib_amo_data_run(RMAIB_BASIC_DOUBLE, RMAIB_OP_REPLACE));
    int rc = rmaib_amo_apply(&q, ctrl, CTRL, data, DATA, stage, STAGE, &old);
    tap(rc == RMAIB_OK && !memcmp(data + 16, r, sizeof r) && !memcmp(stage, d, sizeof d),
        "run of 2 DOUBLE REPLACEs swaps window and stage (rc %d)", rc);

#define RUN(type, op) rmaib_amo_data_run(RMAIB_BASIC_##type, RMAIB_OP_##op)
    refused("run of 0 elements", req(8, 0, 0, RUN(INT32, SUM)));
    refused("run longer than the stage", req(0, STAGE / 4 + 1, 0, RUN(INT32, SUM)));
    refused("run count that would wrap", req(0, UINT64_MAX / 2 + 1, 0, RUN(INT64, SUM)));
    refused("run past the end of the data", req(DATA - 8, 3, 0, RUN(INT32, SUM)));
    refused("run starting at the end of the data", req(DATA, 1, 0, RUN(UINT8, SUM)));
    refused("run not aligned", req(2, 2, 0, RUN(INT32, SUM)));
    refused("run of LONG_DOUBLE (no CPU atomic)", req(0, 1, 0, RUN(LONG_DOUBLE, SUM)));
    refused("run of DOUBLE BAND (invalid pair)", req(0, 1, 0, RUN(DOUBLE, BAND)));
    refused("run offset that wraps", req(UINT64_MAX - 3, 1, 0, RUN(INT32, SUM)));
#undef RUN
}

static void slots(void)
{
    tap(rmaib_amo_pick_slot(0, 1) == 0 && rmaib_amo_pick_slot(0, 0) == 0, "empty mailbox: slot 0");
    tap(rmaib_amo_pick_slot(0x5, 1) == 1 && rmaib_amo_pick_slot(0x5, 0) == 1,
        "the lowest free slot");
    uint32_t busy = 0;
    int oneway = 0, s;
    while ((s = rmaib_amo_pick_slot(busy, 0)) >= 0 && oneway <= RMAIB_AMO_SLOTS) {
        busy |= 1u << s;
        oneway++;
    }
    tap(oneway == RMAIB_AMO_SLOTS - 2, "one-way requests alone take %d slots (want %d)", oneway,
        RMAIB_AMO_SLOTS - 2);
    s = rmaib_amo_pick_slot(busy, 1);
    tap(s >= 0 && !(busy >> s & 1), "an answered request still finds a slot (%d)", s);
    busy |= 1u << s;
    s = rmaib_amo_pick_slot(busy, 1);
    tap(s >= 0 && !(busy >> s & 1), "and a second one (%d)", s);
    busy |= 1u << s;
    tap(rmaib_amo_pick_slot(busy, 1) == -1 && rmaib_amo_pick_slot(busy, 0) == -1,
        "a full mailbox has no slot");
    tap(rmaib_amo_pick_slot(0xfffffff0u, 0) == 0, "bits above the %d slots are ignored",
        RMAIB_AMO_SLOTS);
}

static void answers(void)
{
    rmaib_amo_ans_t a, b, zero = { 0, 0, 0 };
    uint64_t v = 99;
    tap(rmaib_amo_answer_read(&zero, 0, &v) == 0 && rmaib_amo_answer_read(&zero, 7, &v) == 0
        && v == 99, "a zeroed slot holds no answer, not even to tag 0");
    rmaib_amo_answer_fill(&a, 7, 0, 0x1234);
    tap(rmaib_amo_answer_read(&a, 7, &v) == 1 && v == 0x1234, "an answer is read back");
    tap(rmaib_amo_answer_read(&a, 8, &v) == 0 && rmaib_amo_answer_read(&a, 6, &v) == 0,
        "it answers only the request it names");
    rmaib_amo_answer_fill(&a, 7, 0, 0);
    tap(rmaib_amo_answer_read(&a, 7, &v) == 1 && v == 0, "an old value of 0 is an answer");
    rmaib_amo_answer_fill(&a, 0xffffffffu, 1, 0);
    tap(rmaib_amo_answer_read(&a, 0xffffffffu, &v) == -1, "a refusal is read as one");
    rmaib_amo_answer_fill(&b, 0xffffffffu, 0, 0);
    tap(rmaib_amo_answer_read(&b, 0xffffffffu, &v) == 1, "... and an answer to the same tag not");

    /* Each of the 6 mixes of two answers' words (old in some, new in the others),
     * for values and tags an origin sees: small lock words, neighbouring tags. */
    static const uint64_t vals[] = { 0, 1, 2, 0x8000000000000000u, ~(uint64_t) 0, 42 };
    int torn_ok = 1, cases = 0;
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        for (size_t j = 0; j < sizeof vals / sizeof vals[0]; j++)
            for (uint32_t t = 1; t < 40; t++)
                for (int ref = 0; ref < 2; ref++) {
                    rmaib_amo_ans_t o, n;
                    rmaib_amo_answer_fill(&o, t, 0, vals[i]);
                    rmaib_amo_answer_fill(&n, t + 1, ref, vals[j]);
                    for (int mix = 1; mix < 7; mix++) {
                        rmaib_amo_ans_t m = {
                            mix & 1 ? n.value : o.value,
                            mix & 2 ? n.tag : o.tag,
                            mix & 4 ? n.check : o.check,
                        };
                        /* A mix that takes the new tag and check but the old value
                         * is whole where the values are equal. */
                        int whole = (mix & 6) == 6 && ((mix & 1) || vals[i] == vals[j]);
                        int r = rmaib_amo_answer_read(&m, t + 1, &v);
                        int want = whole ? (ref ? -1 : 1) : 0;
                        if (r != want || (whole && !ref && v != vals[j])) {
                            if (torn_ok)
                                printf("# mix %d of tag %u (%#llx) over %u (%#llx): %d\n",
                                       mix, t + 1, (unsigned long long) vals[j], t,
                                       (unsigned long long) vals[i], r);
                            torn_ok = 0;
                        }
                        cases++;
                    }
                }
    tap(torn_ok, "an answer torn between two is never taken for one (%d mixes)", cases);
}

int main(void)
{
    control_words();
    data_ops();
    data_cas();
    data_runs();
    slots();
    answers();
    printf("1..%d\n", tap_n);
    return tap_bad != 0;
}
