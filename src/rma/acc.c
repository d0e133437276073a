/*
 * The accumulate family: Accumulate, Get_accumulate (and so Fetch_and_op) and
 * Compare_and_swap.
 *
 * Two paths, chosen per element by the window's atomics transport: native atomics
 * where it does the (type, op) natively on that element (CPU atomics on allocated
 * shared memory and on the user's pages moved into it, network atomics), otherwise
 * the target's accumulate lock around get, reduce, put.  The transport answers alike
 * for every op and origin on one element (a run is split where the answer changes),
 * so the two paths never meet on the same element and element-wise atomicity holds
 * on both.  Everything an origin issues completes in program order,
 * which gives the default accumulate_ordering (rar, raw, war, waw).
 */
#include <stdlib.h>
#include <string.h>
#include "rma_fast.h"
#include "base/reduce.h"
#include "stream.h"

static const size_t ACC_LOCK = RMAIB_CTRL_OFF(acc_lock);

/* How many of the len bytes at roff take the path of the element at roff. */
static size_t acc_span(rmaib_win_t *w, int target, uint64_t roff, size_t len, rmaib_basic_t b)
{
    return w->atp->acc_native_span ? w->atp->acc_native_span(w, target, roff, len, b) : len;
}

static int acc_lock(rmaib_win_t *w, int target)
{
    RMAIB_BACKOFF(bo);
    for (;;) {
        uint64_t old;
        int rc = rmaib_ctrl_op(w, target, ACC_LOCK, RMAIB_AOP_CAS, (uint64_t) w->rank + 1, 0, &old);
        if (rc != RMAIB_OK || old == 0)
            return rc;
        rmaib_backoff(&bo);
    }
}

static int acc_unlock(rmaib_win_t *w, int target)
{
    int rc = rmaib_peer(w, target)->tp->flush(w, target);
    int rc2 = rmaib_ctrl_op(w, target, ACC_LOCK, RMAIB_AOP_WRITE, 0, 0, NULL);
    return rmaib_first_error(rc, rc2);
}

/*
 * The locked path, batched: the target runs of one call are gathered into a scratch
 * buffer (up to LOCKED_BATCH runs and LOCKED_SCRATCH bytes), read with one getv,
 * reduced there and written back with one putv.  A derived target type of many small
 * runs so costs two transport calls per batch, not two per run (on memory the peer
 * cannot map, each is a process_vm_* system call).  MPI_REPLACE without a fetch reads
 * nothing, and MPI_NO_OP writes nothing.  The accumulate lock is held throughout.
 */
enum { LOCKED_BATCH = 256, LOCKED_SCRATCH = 64 << 10 };

typedef struct locked_batch {
    rmaib_win_t *w;
    int target;
    rmaib_basic_t b;
    rmaib_op_t op;
    size_t esize;
    const char *operand;        /* operand and fetch of the batch's first byte */
    char *fetch;
    size_t n, bytes;            /* runs and bytes gathered */
    rmaib_seg_t seg[LOCKED_BATCH];
    char *scratch;
} locked_batch_t;

static int batch_flush(locked_batch_t *lb)
{
    int rc = RMAIB_OK;
    const rmaib_tp_ops_t *tp = rmaib_peer(lb->w, lb->target)->tp;
    if (lb->n == 0)
        return RMAIB_OK;
    if (lb->op != RMAIB_OP_REPLACE || lb->fetch)
        rc = tp->getv(lb->w, lb->target, lb->seg, lb->n);
    if (rc == RMAIB_OK && lb->fetch)
        memcpy(lb->fetch, lb->scratch, lb->bytes);
    if (rc == RMAIB_OK && lb->op != RMAIB_OP_NO_OP) {
        if (lb->op == RMAIB_OP_REPLACE)
            memcpy(lb->scratch, lb->operand, lb->bytes);
        else
            rmaib_reduce(lb->b, lb->op, lb->scratch, lb->operand, lb->bytes / lb->esize);
        rc = tp->putv(lb->w, lb->target, lb->seg, lb->n);
    }
    if (lb->operand)
        lb->operand += lb->bytes;
    if (lb->fetch)
        lb->fetch += lb->bytes;
    lb->n = lb->bytes = 0;
    return rc;
}

/* Add len bytes of the target at roff (whole elements) to the batch. */
static int batch_add(locked_batch_t *lb, uint64_t roff, size_t len)
{
    size_t room = LOCKED_SCRATCH / lb->esize * lb->esize;
    while (len) {
        if (lb->n == LOCKED_BATCH || lb->bytes == room) {
            int rc = batch_flush(lb);
            if (rc != RMAIB_OK)
                return rc;
        }
        size_t k = len < room - lb->bytes ? len : room - lb->bytes;
        lb->seg[lb->n++] = (rmaib_seg_t) { roff, lb->scratch + lb->bytes, k };
        lb->bytes += k;
        roff += k;
        len -= k;
    }
    return RMAIB_OK;
}

/* Skip n bytes of the stream. */
static void stream_skip(rmaib_stream_t *s, size_t n)
{
    int64_t a;
    size_t len;
    while (n && rmaib_stream_next(s, &a, &len)) {
        size_t k = len < n ? len : n;
        s->used += k;
        n -= k;
    }
}

/*
 * The pair types with a hole (double_int, long_int, short_int, long_double_int):
 * MPI moves each as its value's bytes then its index's (tl->basic_size bytes, which
 * is how operand and fetch are packed), while the kernels and CPU atomics work on
 * the C struct.  Element by element, then: the stream gives each element's start,
 * the parts are moved in and out of a struct, and the locked path reads and writes
 * the two parts only, never the padding (which may lie past the window's end).
 */
static int acc_apply_pairs(rmaib_win_t *w, int target, rmaib_op_t op, rmaib_basic_t b,
                           const char *operand, char *fetch, uint64_t roff, size_t tcount,
                           const rmaib_layout_t *tl)
{
    const rmaib_tp_ops_t *atp = w->atp, *tp = rmaib_peer(w, target)->tp;
    size_t psz = tl->basic_size, vlen = psz - sizeof(int), ioff = rmaib_pair_index_offset(b);
    size_t n = tcount * tl->size / psz;
    int locked = 0, rc = RMAIB_OK;
    rmaib_stream_t s;
    rmaib_stream_init(&s, tl, tcount);
    for (size_t e = 0; e < n && rc == RMAIB_OK; e++) {
        _Alignas(16) unsigned char in[sizeof(rmaib_long_double_int_t)] = { 0 };
        _Alignas(16) unsigned char old[sizeof in] = { 0 };
        int64_t ta;
        size_t len;
        if (!rmaib_stream_next(&s, &ta, &len))
            return RMAIB_ERR_INTERN;
        stream_skip(&s, psz);
        uint64_t ra = roff + (uint64_t) ta;
        if (operand) {
            memcpy(in, operand + e * psz, vlen);
            memcpy(in + ioff, operand + e * psz + vlen, sizeof(int));
        }
        if (atp->acc_native(w, target, ra, b, op)) {
            rc = atp->data_atomic(w, target, ra, b, op, operand ? in : NULL, old, 1);
        } else {
            if (!locked && (rc = acc_lock(w, target)) == RMAIB_OK)
                locked = 1;
            rmaib_seg_t seg[2] = { { ra, old, vlen }, { ra + ioff, old + ioff, sizeof(int) } };
            if (rc == RMAIB_OK)
                rc = tp->getv(w, target, seg, 2);
            if (rc == RMAIB_OK && op != RMAIB_OP_NO_OP) {
                _Alignas(16) unsigned char upd[sizeof in];
                memcpy(upd, old, sizeof upd);
                rmaib_reduce(b, op, upd, in, 1);
                seg[0].laddr = upd;
                seg[1].laddr = upd + ioff;
                rc = tp->putv(w, target, seg, 2);
            }
        }
        if (fetch && rc == RMAIB_OK) {
            memcpy(fetch + e * psz, old, vlen);
            memcpy(fetch + e * psz + vlen, old + ioff, sizeof(int));
        }
    }
    if (locked) {
        rc = rmaib_first_error(rc, acc_unlock(w, target));
    }
    return rc;
}

/* Apply op with a contiguous operand (NULL for NO_OP) to tcount elements of tl at
 * roff, fetching the old values contiguously into fetch if it is not NULL. */
static int acc_apply(rmaib_win_t *w, int target, rmaib_op_t op, rmaib_basic_t b,
                     const char *operand, char *fetch, uint64_t roff, size_t tcount,
                     const rmaib_layout_t *tl)
{
    const rmaib_tp_ops_t *atp = w->atp;
    size_t esize = rmaib_basic_size(b), done = 0, len;
    int locked = 0, rc = RMAIB_OK;
    if (tl->basic_size != esize)
        return acc_apply_pairs(w, target, op, b, operand, fetch, roff, tcount, tl);
    /* The common case, one contiguous run on the native path, needs no walk. */
    size_t total = tcount * tl->size;
    if (tl->contig && atp->atomic_run
        && atp->atomic_run(w, target, roff, b, op, operand, fetch, total, &rc))
        return rc;
    if (tl->contig && atp->acc_native(w, target, roff, b, op)
        && acc_span(w, target, roff, total, b) == total)
        return atp->data_atomic(w, target, roff, b, op, operand, fetch, total / esize);
    rmaib_stream_t s;
    int64_t ta;
    locked_batch_t *lb = NULL;
    rmaib_stream_init(&s, tl, tcount);
    while (rc == RMAIB_OK && rmaib_stream_next(&s, &ta, &len)) {
        uint64_t ra = roff + (uint64_t) ta;
        len = acc_span(w, target, ra, len, b);  /* the rest of the run comes next */
        if (atp->acc_native(w, target, ra, b, op)) {
            if (lb)             /* what is gathered goes first: program order */
                rc = batch_flush(lb);
            if (rc == RMAIB_OK)
                rc = atp->data_atomic(w, target, ra, b, op, operand ? operand + done : NULL,
                                      fetch ? fetch + done : NULL, len / esize);
        } else {
            if (!lb) {
                lb = malloc(sizeof *lb + LOCKED_SCRATCH);
                if (!lb) {
                    rc = RMAIB_ERR_NO_MEM;
                    break;
                }
                *lb = (locked_batch_t) { .w = w, .target = target, .b = b, .op = op,
                    .esize = esize, .scratch = (char *) (lb + 1) };
                rc = acc_lock(w, target);
                if (rc != RMAIB_OK)
                    break;
                locked = 1;
            }
            if (lb->n == 0) {   /* the batch starts here in operand and fetch */
                lb->operand = operand ? operand + done : NULL;
                lb->fetch = fetch ? fetch + done : NULL;
            }
            rc = batch_add(lb, ra, len);
        }
        done += len;
        s.used += len;
    }
    if (lb && rc == RMAIB_OK)
        rc = batch_flush(lb);
    if (locked) {
        rc = rmaib_first_error(rc, acc_unlock(w, target));
    }
    free(lb);
    return rc;
}

/* Checks shared by the family; *roff is where the target data starts.  Returns
 * RMAIB_OK with *nothing set when there is no data to touch. */
static int acc_prepare(rmaib_win_t *w, int target, int64_t tdisp, size_t tcount,
                       const rmaib_layout_t *tl, rmaib_op_t op, int flags, uint64_t *roff,
                       int *nothing)
{
    *nothing = 0;
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    int rc = rmaib_reduce_valid(tl->basic, op);
    if (rc != RMAIB_OK)
        return rc;
    rc = rmaib_epoch_ok(w, target, flags);
    if (rc != RMAIB_OK)
        return rc;
    if (tcount * tl->size == 0) {
        *nothing = 1;
        return RMAIB_OK;
    }
    /* (whole elements; no division for one element, the latency path's case) */
    if (tl->size != tl->basic_size && tl->size % tl->basic_size)
        return RMAIB_ERR_TYPE;
    return rmaib_target_base(w, target, tdisp, tcount, tl, roff);
}

/* An accumulate that moves no data at all is a no-op whatever its datatypes (a
 * count of 0, or a type of size 0, on every side; MPICH's badrma relies on it):
 * only the op, the target and the epoch are checked. */
static int acc_empty(rmaib_win_t *w, int target, rmaib_op_t op, int flags)
{
    if ((unsigned) op >= RMAIB_OP_COUNT || op < RMAIB_OP_SUM)
        return RMAIB_ERR_OP;
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    return rmaib_epoch_ok(w, target, flags);
}

/* The origin's data as one contiguous run: the user's buffer itself when it already
 * is one, else a packed copy the caller frees. */
static const char *contiguous(const void *buf, size_t count, const rmaib_layout_t *l, char **tofree)
{
    *tofree = NULL;
    if (l->contig)
        return buf;
    *tofree = malloc(count * l->size);
    if (*tofree)
        rmaib_pack(*tofree, buf, count, l);
    return *tofree;
}

int rmaib_accumulate_general(rmaib_win_t *w, const void *obuf, size_t ocount,
                             const rmaib_layout_t *ol, int target, int64_t tdisp, size_t tcount,
                             const rmaib_layout_t *tl, rmaib_op_t op, int flags)
{
    uint64_t roff = 0;
    int nothing;
    if (ocount * ol->size == 0 && tcount * tl->size == 0)
        return acc_empty(w, target, op, flags);
    if (ol->basic != tl->basic || ocount * ol->size != tcount * tl->size)
        return RMAIB_ERR_TYPE;
    if (op == RMAIB_OP_NO_OP)
        return RMAIB_ERR_OP;    /* MPI-3.1 §11.3.4: NO_OP only in the fetching calls */
    int rc = acc_prepare(w, target, tdisp, tcount, tl, op, flags, &roff, &nothing);
    if (rc != RMAIB_OK || nothing)
        return rc;
    if (ol->contig && tl->contig && tl->basic_size == rmaib_basic_size(tl->basic)
        && w->atp->atomic_run
        && w->atp->atomic_run(w, target, roff, tl->basic, op, obuf, NULL, tcount * tl->size, &rc))
        return rc;
    char *tmp;
    const char *operand = contiguous(obuf, ocount, ol, &tmp);
    if (!operand)
        return RMAIB_ERR_NO_MEM;
    rc = acc_apply(w, target, op, tl->basic, operand, NULL, roff, tcount, tl);
    if (tmp)
        free(tmp);
    return rc;
}

int rmaib_accumulate(rmaib_win_t *w, const void *obuf, size_t ocount, const rmaib_layout_t *ol,
                     int target, int64_t tdisp, size_t tcount, const rmaib_layout_t *tl,
                     rmaib_op_t op, int flags)
{
    return rmaib_accumulate_inline(w, obuf, ocount, ol, target, tdisp, tcount, tl, op, flags);
}

int rmaib_get_accumulate(rmaib_win_t *w, const void *obuf, size_t ocount,
                         const rmaib_layout_t *ol, void *rbuf, size_t rcount,
                         const rmaib_layout_t *rl, int target, int64_t tdisp, size_t tcount,
                         const rmaib_layout_t *tl, rmaib_op_t op, int flags)
{
    uint64_t roff = 0;
    int nothing;
    if ((op == RMAIB_OP_NO_OP || ocount * ol->size == 0) && rcount * rl->size == 0
        && tcount * tl->size == 0)
        return acc_empty(w, target, op, flags);
    /* With NO_OP the origin buffer is not used, so its arguments are not checked. */
    if (op != RMAIB_OP_NO_OP && (ol->basic != tl->basic || ocount * ol->size != tcount * tl->size))
        return RMAIB_ERR_TYPE;
    if (rl->basic != tl->basic || rcount * rl->size != tcount * tl->size)
        return RMAIB_ERR_TYPE;
    int rc = acc_prepare(w, target, tdisp, tcount, tl, op, flags, &roff, &nothing);
    if (rc != RMAIB_OK || nothing)
        return rc;
    char *otmp = NULL, *fetch = rbuf;
    const char *operand = NULL;
    if (op != RMAIB_OP_NO_OP && !(operand = contiguous(obuf, ocount, ol, &otmp)))
        return RMAIB_ERR_NO_MEM;
    if (!rl->contig && !(fetch = malloc(rcount * rl->size))) {
        free(otmp);
        return RMAIB_ERR_NO_MEM;
    }
    rc = acc_apply(w, target, op, tl->basic, operand, fetch, roff, tcount, tl);
    if (!rl->contig) {
        if (rc == RMAIB_OK)
            rmaib_unpack(rbuf, rcount, rl, fetch);
        free(fetch);
    }
    free(otmp);
    return rc;
}

/* Everything of fetch-and-op but rmaib_fetch_and_op's inline case: one element
 * straight to the atomics transport when it does it natively, kept to the checks
 * MPI asks for; the rest is Get_accumulate. */
int rmaib_fetch_and_op_general(rmaib_win_t *w, const void *obuf, void *rbuf,
                               const rmaib_layout_t *l, int target, int64_t tdisp, rmaib_op_t op)
{
    uint64_t roff;
    if (!l->contig || target < 0 || target >= w->nranks)
        return rmaib_get_accumulate(w, obuf, 1, l, rbuf, 1, l, target, tdisp, 1, l, op, 0);
    int rc = rmaib_target_ok(w, target);
    if (rc == RMAIB_OK)
        rc = rmaib_reduce_valid(l->basic, op);
    if (rc == RMAIB_OK)
        rc = rmaib_epoch_ok(w, target, 0);
    if (rc == RMAIB_OK)
        rc = rmaib_target_base(w, target, tdisp, 1, l, &roff);
    if (rc != RMAIB_OK)
        return rc;
    if (op == RMAIB_OP_NO_OP)
        obuf = NULL;
    if (w->atp->atomic_run
        && w->atp->atomic_run(w, target, roff, l->basic, op, obuf, rbuf,
                              rmaib_basic_size(l->basic), &rc))
        return rc;
    if (w->atp->acc_native(w, target, roff, l->basic, op))
        return w->atp->data_atomic(w, target, roff, l->basic, op, obuf, rbuf, 1);
    return acc_apply(w, target, op, l->basic, obuf, rbuf, roff, 1, l);
}

int rmaib_fetch_and_op(rmaib_win_t *w, const void *obuf, void *rbuf, const rmaib_layout_t *l,
                       int target, int64_t tdisp, rmaib_op_t op)
{
    return rmaib_fetch_and_op_inline(w, obuf, rbuf, l, target, tdisp, op);
}

int rmaib_compare_and_swap_general(rmaib_win_t *w, const void *obuf, const void *cbuf,
                                   void *rbuf, const rmaib_layout_t *l, int target, int64_t tdisp)
{
    uint64_t roff = 0;
    if (!l->contig || l->basic == RMAIB_BASIC_NONE || l->size != l->basic_size
        || rmaib_cas_valid(l->basic) != RMAIB_OK)
        return RMAIB_ERR_TYPE;
    int trc = rmaib_target_ok(w, target);
    if (trc != RMAIB_OK)
        return trc;
    int rc = rmaib_epoch_ok(w, target, 0);
    if (rc == RMAIB_OK)
        rc = rmaib_target_base(w, target, tdisp, 1, l, &roff);
    if (rc != RMAIB_OK)
        return rc;
    if (w->atp->acc_native(w, target, roff, l->basic, RMAIB_OP_REPLACE))
        return w->atp->data_cas(w, target, roff, l->size, cbuf, obuf, rbuf);

    char old[8];
    const rmaib_tp_ops_t *tp = rmaib_peer(w, target)->tp;
    rc = acc_lock(w, target);
    if (rc != RMAIB_OK)
        return rc;
    rc = tp->get(w, target, roff, old, l->size);
    if (rc == RMAIB_OK && memcmp(old, cbuf, l->size) == 0)
        rc = tp->put(w, target, roff, obuf, l->size);
    memcpy(rbuf, old, l->size);
    return rmaib_first_error(rc, acc_unlock(w, target));
}

int rmaib_compare_and_swap(rmaib_win_t *w, const void *obuf, const void *cbuf, void *rbuf,
                           const rmaib_layout_t *l, int target, int64_t tdisp)
{
    return rmaib_compare_and_swap_inline(w, obuf, cbuf, rbuf, l, target, tdisp);
}
