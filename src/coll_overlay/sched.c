/*
 * The schedule engine: every collective call on a communicator is queued, and
 * the call at the head of the queue runs as a schedule of steps (coll_impl.h)
 * that is built when it reaches the head, so a queued call holds only its
 * arguments.  One call runs at a time per communicator, which keeps the order
 * MPI asks for (and lets the running schedule own the scratch and the message
 * counters); communicators progress independently.
 *
 * Where rmaib's progress thread runs (ofi over providers that progress in
 * software), it runs the schedules too each time it wakes (rmaib_async_hook), so a
 * rank that computes still moves its part; it completes no request (it may not
 * call the host MPI), the next MPI thread to progress does.  With
 * RMAIB_ASYNC_PROGRESS=1 a thread of our own (below) runs them too while calls
 * are pending, on shm as well.
 *
 * A blocking call that finds the queue empty skips it: it builds (or, when it
 * repeats the last call, reuses) the steps and runs them to completion at once,
 * the same schedule without the ring; behind queued calls it waits its turn.
 *
 * Resources are fixed when the communicator's collective state is made: a ring
 * of RMAIB_COLL_QUEUE calls, a step array sized for the longest schedule of the
 * group up to 64 ranks (and no longer beyond: an algorithm of more steps is not
 * chosen there), and the window's slots.  A start that finds the ring full progresses
 * the older calls until one finishes.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include "coll_impl.h"
#include "base/backoff.h"
#include "base/config.h"
#include "base/reduce.h"
#include "rmaib_host.h"

static void async_wake(void);
/* Calls queued and not finished, over every communicator: what the schedule
 * thread (below) runs while it is above zero. */
static int async_pending;
/* Calls queued and not yet reported over every communicator, whatever the group:
 * while above zero, waits in the host run the schedules (rmaib_coll_unfinished).
 * Counted down at the report, not when a call finishes: one the schedule thread
 * finished still needs a wait to report it, where the host has no poll function
 * of its own on the request (Open MPI) to do so. */
static int unfinished;

/* ---------------------------------------------------------------- building */

int rmaib_sched_max_steps(int p)
{
    /* single-copy allreduce: 3 (p - 1) messages, p - 1 reads and a fold; flat:
     * p - 1 sends and p folds; log rounds stay below 64.  Bounded at any p: 35 KiB */
    return 4 * (p < 64 ? p : 64) + 64;
}

static coll_step_t *add(rmaib_coll_t *c, int kind)
{
    if (c->nsteps == c->cap_steps) {
        c->err = RMAIB_ERR_INTERN;
        return &c->steps[c->nsteps - 1];    /* never runs: the schedule fails */
    }
    coll_step_t *s = &c->steps[c->nsteps++];
    memset(s, 0, sizeof *s);
    s->kind = (unsigned char) kind;
    s->chain = c->nsteps > 1 && c->nsteps - 1 == c->rs ? 2 : 0;
    return s;
}

coll_step_t *rmaib_sched_msg(rmaib_coll_t *c, int dst, const void *sbuf, size_t slen, int src,
                             void *rbuf, size_t rlen, const coll_red_t *red)
{
    coll_step_t *s = add(c, STEP_MSG);
    s->dst = dst;
    s->src = src;
    /* The channels, now: an algorithm whose pairs have none fails its schedule. */
    if ((slen && rmaib_coll_link(c, dst, &s->dthere, &s->dhere) != RMAIB_OK)
        || (rlen && rmaib_coll_link(c, src, &s->sthere, &s->shere) != RMAIB_OK))
        c->err = RMAIB_ERR_INTERN;
    s->sbuf = sbuf;
    s->slen = slen;
    s->rbuf = rbuf;
    s->rlen = rlen;
    if (red) {
        s->red = *red;
        s->has_red = 1;
    }
    return s;
}

coll_step_t *rmaib_sched_copy(rmaib_coll_t *c, void *dst, const void *src, size_t n)
{
    coll_step_t *s = add(c, STEP_COPY);
    s->sbuf = src;
    s->rbuf = dst;
    s->rlen = n;
    return s;
}

coll_step_t *rmaib_sched_reduce(rmaib_coll_t *c, const coll_red_t *red, void *inout,
                                const void *in, size_t n)
{
    coll_step_t *s = rmaib_sched_copy(c, inout, in, n);
    s->kind = STEP_REDUCE;
    s->red = *red;
    s->has_red = 1;
    return s;
}

coll_step_t *rmaib_sched_fn(rmaib_coll_t *c, coll_step_fn *fn, const void *sbuf, void *rbuf,
                            size_t len)
{
    coll_step_t *s = rmaib_sched_copy(c, rbuf, sbuf, len);
    s->kind = STEP_FN;
    s->fn = fn;
    return s;
}

coll_step_t *rmaib_sched_read(rmaib_coll_t *c, int src, size_t off, void *rbuf, size_t n)
{
    coll_step_t *s = rmaib_sched_copy(c, rbuf, NULL, n);
    s->kind = STEP_READ;
    s->src = src;
    s->slen = off;
    return s;
}

void rmaib_sched_pre(rmaib_coll_t *c, void *dst, const void *src, size_t n)
{
    memcpy(dst, src, n);
    if (c->npre < 2)
        c->pre[c->npre] = (struct coll_pre) { dst, src, n };
    c->npre++;                  /* past two: the schedule is not reused */
}

/* A round ends where a step's chain is 2: the first step of the next round. */
void rmaib_sched_round(rmaib_coll_t *c)
{
    c->rs = c->nsteps;          /* while building: where the open round began */
}

/* ---------------------------------------------------------------- running */

static int run_step(rmaib_coll_t *c, coll_step_t *s, int *moved)
{
    switch (s->kind) {
    case STEP_MSG:
        return rmaib_coll_run_msg(c, s, moved);
    case STEP_READ:
        return rmaib_coll_run_read(c, s, moved);
    case STEP_COPY:
        memmove(s->rbuf, s->sbuf, s->rlen);
        break;
    case STEP_REDUCE:
        rmaib_reduce(s->red.b, s->red.op, s->rbuf, s->sbuf, s->rlen / s->red.esize);
        break;
    default:
        s->fn(c, s);
        break;
    }
    s->done = 1;
    *moved = 1;
    return RMAIB_OK;
}

/* The round that begins at step rs: its end and its dependency counter. */
static void open_round(rmaib_coll_t *c, int rs)
{
    c->rs = rs;
    c->re = rs + 1;
    while (c->re < c->nsteps && c->steps[c->re].chain != 2)
        c->re++;
    c->pending = c->re - rs;
}

/* One pass over the current round and, as rounds finish, the next ones. */
static int run_rounds(rmaib_coll_t *c, int *moved)
{
    int rc = RMAIB_OK;
    c->nwait = 0;
    while (c->rs < c->nsteps && rc == RMAIB_OK) {
        for (int i = c->rs; i < c->re && rc == RMAIB_OK; i++) {
            coll_step_t *s = &c->steps[i];
            if (s->done || (s->chain == 1 && !s[-1].done))
                continue;
            rc = run_step(c, s, moved);
            c->pending -= s->done;
        }
        if (c->pending)
            break;
        open_round(c, c->re);
    }
    return rc;
}

/* Build the head call's schedule; rounds are marked by the first step of each. */
static int build(rmaib_coll_t *c, const coll_call_t *call)
{
    c->nsteps = 0;
    c->rs = 0;
    c->err = RMAIB_OK;
    c->npre = 0;
    c->late_err = RMAIB_OK;
    c->reusable = 0;            /* until the build below completes */
    c->fam = FAM_DIST;          /* each algorithm names its families; this is a default */
    c->fam_id = 0;
    int rc;
    switch (call->kind) {
    case COLL_ALLREDUCE:
        rc = rmaib_coll_build_allreduce(c, call);
        break;
    case COLL_ALLGATHER:
        rc = rmaib_coll_build_allgather(c, call);
        break;
    case COLL_ALLTOALL:
        rc = rmaib_coll_build_alltoall(c, call);
        break;
    default:
        rc = RMAIB_OK;
        c->last_alg = "dissemination";
        c->fam = FAM_DIST;
        for (int d = 1; d < c->nranks; d *= 2) {
            rmaib_sched_msg(c, (c->rank + d) % c->nranks, &c->token, 1,
                            (c->rank - d + c->nranks) % c->nranks, &c->token, 1, NULL);
            rmaib_sched_round(c);
        }
        break;
    }
    c->built = 1;
    open_round(c, 0);
    rc = rc != RMAIB_OK ? rc : c->err;
    c->last = *call;
    c->reusable = rc == RMAIB_OK && c->npre <= 2;
    return rc;
}

/* The steps last built, for call again if it repeats that call: its copies
 * replayed, its steps made new.  0 if it does not. */
static int rebuild(rmaib_coll_t *c, const coll_call_t *call)
{
    const coll_call_t *l = &c->last;
    if (!c->reusable || l->kind != call->kind || l->sbuf != call->sbuf || l->rbuf != call->rbuf
        || l->n != call->n || l->b != call->b || l->op != call->op)
        return 0;
    for (int i = 0; i < c->npre; i++)
        memcpy(c->pre[i].dst, c->pre[i].src, c->pre[i].n);
    c->late_err = RMAIB_OK;
    for (int i = 0; i < c->nsteps; i++) {
        coll_step_t *s = &c->steps[i];
        s->done = 0;
        s->soff = s->roff = 0;
    }
    c->built = 1;
    open_round(c, 0);
    return 1;
}

/* ---------------------------------------------------------------- the queue */

/* Report the finished calls, oldest first: they leave the ring before their
 * done() runs.  done() must not start a call on c (we hold c->busy). */
static void report(rmaib_coll_t *c)
{
    while (c->qdone) {
        coll_call_t fin = c->q[c->qhead];
        c->qhead = (c->qhead + 1) % c->qcap;
        __atomic_store_n(&c->qlen, c->qlen - 1, __ATOMIC_RELEASE);
        c->qdone--;
        __atomic_sub_fetch(&unfinished, 1, __ATOMIC_RELAXED);
        if (fin.done)
            fin.done(fin.arg, fin.err);
    }
}

/* Run c's calls until one waits: nonzero if anything moved.  The caller holds
 * c->busy.  Without reporting (the progress thread, which may not call the host
 * MPI), finished calls wait in the ring, done, for the next caller that reports. */
static int progress_locked(rmaib_coll_t *c, int reporting)
{
    int moved = 0;
    if (reporting)
        report(c);
    while (c->qdone < c->qlen) {
        coll_call_t *call = &c->q[(c->qhead + c->qdone) % c->qcap];
        int rc = RMAIB_OK;
        if (!c->built) {
            rc = build(c, call);
            moved = 1;
        }
        if (rc == RMAIB_OK)
            rc = run_rounds(c, &moved);
        if (rc == RMAIB_OK && c->rs < c->nsteps)
            break;
        call->err = rc != RMAIB_OK ? rc : c->late_err;
        c->built = 0;
        rmaib_coll_scratch_trim(c);
        c->qdone++;
        if (c->mapped)
            __atomic_sub_fetch(&async_pending, 1, __ATOMIC_RELAXED);
        moved = 1;
        if (reporting)
            report(c);
    }
    return moved;
}

static int try_take(rmaib_coll_t *c)
{
    return !atomic_flag_test_and_set_explicit(&c->busy, memory_order_acquire);
}

static void give_back(rmaib_coll_t *c)
{
    atomic_flag_clear_explicit(&c->busy, memory_order_release);
}

int rmaib_coll_progress(rmaib_coll_t *c)
{
    if (!try_take(c))
        return 0;
    int moved = progress_locked(c, 1);
    give_back(c);
    return moved;
}

/* Read under c->busy: the progress thread may be changing it. */
int rmaib_coll_pending(rmaib_coll_t *c)
{
    RMAIB_BACKOFF(bo);
    while (!try_take(c))
        rmaib_backoff(&bo);
    int n = c->qlen;
    give_back(c);
    return n;
}

/* Queue call (room made by progressing the older ones), then run what can run. */
static int start(rmaib_coll_t *c, const coll_call_t *call)
{
    RMAIB_BACKOFF(bo);
    for (;;) {
        if (try_take(c)) {
            if (c->qlen < c->qcap)
                break;
            int moved = progress_locked(c, 1);
            give_back(c);
            if (moved)
                continue;
        }
        rmaib_backoff(&bo);
    }
    c->q[(c->qhead + c->qlen) % c->qcap] = *call;
    __atomic_store_n(&c->qlen, c->qlen + 1, __ATOMIC_RELEASE);
    __atomic_add_fetch(&unfinished, 1, __ATOMIC_RELAXED);
    if (c->mapped)
        __atomic_add_fetch(&async_pending, 1, __ATOMIC_SEQ_CST);
    progress_locked(c, 1);
    int left = c->mapped && c->qdone < c->qlen;
    give_back(c);
    if (left)
        async_wake();
    return RMAIB_OK;
}

static void note_done(void *arg, int err)
{
    *(int *) arg = err;
}

/* A blocking call with nothing queued before it runs at once, from the steps it
 * built last time if it repeats the last call: the same schedule, without the
 * queue.  It runs without c->busy: with nothing queued, whoever else holds it
 * (the progress thread, another thread's progress) finds nothing to run, and
 * only the calling thread may queue on c (MPI orders a communicator's
 * collectives).  Taking it would drain the store buffer, where the last call's
 * acknowledgement to a peer is still waiting for its cache line. */
static int run_direct(rmaib_coll_t *c, const coll_call_t *call)
{
    int rc = rebuild(c, call) ? RMAIB_OK : build(c, call);
    RMAIB_BACKOFF(bo);
    while (rc == RMAIB_OK) {
        int moved = 0;
        rc = run_rounds(c, &moved);
        if (c->rs >= c->nsteps)
            break;
        /* A pass that was stopped by one flag alone can do nothing more until
         * that flag rises: watch the word, not the whole round. */
        if (c->nwait == 1)
            while (rmaib_load(c->wait_word) < c->wait_k)
                rmaib_backoff(&bo);
        else if (!moved)
            rmaib_backoff(&bo);
    }
    c->built = 0;
    rmaib_coll_scratch_trim(c);
    return rc != RMAIB_OK ? rc : c->late_err;
}

/* The blocking form: start, then progress until our call has finished. */
static int run(rmaib_coll_t *c, coll_call_t *call)
{
    if (__atomic_load_n(&c->qlen, __ATOMIC_ACQUIRE) == 0)
        return run_direct(c, call);
    int err = -1;
    call->done = note_done;
    call->arg = &err;
    start(c, call);
    if (err < 0) {
        RMAIB_BACKOFF(bo);
        while (err < 0)
            if (!rmaib_coll_progress(c))
                rmaib_backoff(&bo);
    }
    return err;
}

int rmaib_coll_allreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                         rmaib_basic_t b, rmaib_op_t op)
{
    coll_call_t call = { .kind = COLL_ALLREDUCE, .b = b, .op = op, .sbuf = sbuf, .rbuf = rbuf,
                         .n = count };
    return run(c, &call);
}

int rmaib_coll_allgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    coll_call_t call = { .kind = COLL_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf, .n = bytes };
    return run(c, &call);
}

int rmaib_coll_alltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    coll_call_t call = { .kind = COLL_ALLTOALL, .sbuf = sbuf, .rbuf = rbuf, .n = bytes };
    return run(c, &call);
}

int rmaib_coll_iallreduce(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t count,
                          rmaib_basic_t b, rmaib_op_t op, rmaib_coll_done_fn *done, void *arg)
{
    coll_call_t call = { .kind = COLL_ALLREDUCE, .b = b, .op = op, .sbuf = sbuf, .rbuf = rbuf,
                         .n = count, .done = done, .arg = arg };
    return start(c, &call);
}

int rmaib_coll_iallgather(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                          rmaib_coll_done_fn *done, void *arg)
{
    coll_call_t call = { .kind = COLL_ALLGATHER, .sbuf = sbuf, .rbuf = rbuf, .n = bytes,
                         .done = done, .arg = arg };
    return start(c, &call);
}

int rmaib_coll_ialltoall(rmaib_coll_t *c, const void *sbuf, void *rbuf, size_t bytes,
                         rmaib_coll_done_fn *done, void *arg)
{
    coll_call_t call = { .kind = COLL_ALLTOALL, .sbuf = sbuf, .rbuf = rbuf, .n = bytes,
                         .done = done, .arg = arg };
    return start(c, &call);
}

int rmaib_coll_ibarrier(rmaib_coll_t *c, rmaib_coll_done_fn *done, void *arg)
{
    coll_call_t call = { .kind = COLL_BARRIER, .done = done, .arg = arg };
    return start(c, &call);
}

/* ---------------------------------------------------------------- every communicator */

/* The communicators with collective state: a list under a lock that progress_all
 * only tries, since whoever holds it is progressing them already (or enrolling). */
static pthread_mutex_t all_lock = PTHREAD_MUTEX_INITIALIZER;
static rmaib_coll_t *all;

/* A progress thread's turn: run the schedules (only those of mapped groups:
 * mapped_only), report nothing; nonzero if anything moved. */
static int advance_moved(int mapped_only)
{
    int moved = 0;
    if (pthread_mutex_trylock(&all_lock) != 0)
        return 0;
    for (rmaib_coll_t *c = all; c; c = c->next)
        if ((c->mapped || !mapped_only) && try_take(c)) {
            moved |= progress_locked(c, 0);
            give_back(c);
        }
    pthread_mutex_unlock(&all_lock);
    return moved;
}

int rmaib_coll_advance(void)
{
    return advance_moved(0);
}

/* The transport's progress thread's hook. */
static void advance_all(void)
{
    (void) rmaib_coll_advance();
}

int rmaib_coll_unfinished(void)
{
    return __atomic_load_n(&unfinished, __ATOMIC_RELAXED) > 0;
}

/* ---------------------------------------------------------------- the schedule thread */

/* With RMAIB_ASYNC_PROGRESS=1, a thread of the process runs the schedules while
 * calls are pending, so a rank that computes outside MPI still does its part.
 * Only groups whose control blocks are all mapped (shm), where nothing else
 * would: over ofi the transport's thread runs the schedules when it wakes, and
 * this thread's puts and flushes beside it and the main thread made the
 * icoll_many test 8 times slower on 4 ranks (2 cores).  It sleeps on a
 * condition while nothing is pending; a start that leaves its call unfinished
 * wakes it.  Between passes that move nothing it spins for SPIN_NS (not when
 * ranks outnumber cores), then naps 1, 2 ... 64 us (timer slack 1 us), leaving
 * the core to the rank's computing thread.  While an MPI thread progresses the schedules itself (polls moves) the
 * thread keeps out of its way in naps that grow to 1.3 ms, and it first naps
 * 5 us to see whether the starter went on to wait: two threads racing for
 * c->busy made a 1 MiB start + wait 7 times slower (the thread, preempted while
 * holding it, stalls the waiter a time slice), and on 2 cores shared by 4 ranks
 * 20 us wake-ups slowed everything.  It calls nothing of the host MPI. */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t tid;
    int running, stop, sleeping;
} th = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };
static unsigned polls;          /* progress passes of MPI threads: a hint, relaxed */

enum { SPIN_NS = 20000, NAP_MAX_US = 64, POLLED_NAP_US = 20, SETTLE_US = 5 };

static void nap_us(unsigned us)
{
    struct timespec ts = { 0, (long) us * 1000 };
    nanosleep(&ts, NULL);
}

/* Run the schedules until nothing is pending (or stop). */
static void run_pending(void)
{
    unsigned naps = 0, polled = 0, seen = __atomic_load_n(&polls, __ATOMIC_RELAXED);
    uint64_t idle_since = 0, spin = rmaib_oversubscribed() ? 0 : SPIN_NS;
    nap_us(SETTLE_US);          /* did the starter go on to wait?  Then polls moved */
    while (__atomic_load_n(&async_pending, __ATOMIC_ACQUIRE) > 0
           && !__atomic_load_n(&th.stop, __ATOMIC_RELAXED)) {
        unsigned now_polls = __atomic_load_n(&polls, __ATOMIC_RELAXED);
        if (now_polls != seen) {        /* naps of 20 us, doubling to 1.3 ms */
            seen = now_polls;
            nap_us(POLLED_NAP_US << (polled < 6 ? polled++ : 6));
            continue;
        }
        polled = 0;
        if (advance_moved(1)) {
            idle_since = 0;
            naps = 0;
        } else if (idle_since == 0) {
            idle_since = rmaib_now_ns();
        } else if (rmaib_now_ns() - idle_since < spin) {
            rmaib_cpu_relax();
        } else {
            nap_us(naps < 6 ? 1u << naps++ : NAP_MAX_US);
        }
    }
}

static void *sched_thread(void *arg)
{
    (void) arg;
    rmaib_host_own_thread = 1;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    pthread_mutex_lock(&th.lock);
    while (!__atomic_load_n(&th.stop, __ATOMIC_RELAXED)) {
        /* seq_cst against async_wake: it adds to async_pending, then reads
         * sleeping; we set sleeping, then read async_pending. */
        __atomic_store_n(&th.sleeping, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&async_pending, __ATOMIC_SEQ_CST) == 0) {
            pthread_cond_wait(&th.cond, &th.lock);
            continue;
        }
        __atomic_store_n(&th.sleeping, 0, __ATOMIC_RELAXED);
        pthread_mutex_unlock(&th.lock);
        run_pending();
        pthread_mutex_lock(&th.lock);
    }
    pthread_mutex_unlock(&th.lock);
    return NULL;
}

static void async_wake(void)
{
    if (!__atomic_load_n(&th.sleeping, __ATOMIC_SEQ_CST))
        return;
    pthread_mutex_lock(&th.lock);
    pthread_cond_signal(&th.cond);
    pthread_mutex_unlock(&th.lock);
}

/* The first communicator starts the thread, the last stops it; life_lock orders
 * the two (a stop joins the thread, which takes all_lock only by trying). */
static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;

static void thread_start(void)
{
    if (th.running || rmaib_config.async_progress != 1)
        return;
    __atomic_store_n(&th.stop, 0, __ATOMIC_RELAXED);
    if (pthread_create(&th.tid, NULL, sched_thread, NULL) == 0)
        th.running = 1;
    else if (rmaib_config.verbose)
        rmaib_host_say("rmaib: cannot start the schedule thread: non-blocking collectives "
                       "progress only inside MPI calls");
}

static void thread_stop(void)
{
    pthread_mutex_lock(&th.lock);
    __atomic_store_n(&th.stop, 1, __ATOMIC_RELAXED);
    pthread_cond_signal(&th.cond);
    pthread_mutex_unlock(&th.lock);
    pthread_join(th.tid, NULL);
    th.running = 0;
}

void rmaib_sched_enrol(rmaib_coll_t *c)
{
    atomic_store(&rmaib_async_hook, advance_all);
    pthread_mutex_lock(&life_lock);
    thread_start();
    pthread_mutex_lock(&all_lock);
    c->prev = NULL;
    c->next = all;
    if (all)
        all->prev = c;
    all = c;
    pthread_mutex_unlock(&all_lock);
    pthread_mutex_unlock(&life_lock);
}

void rmaib_sched_leave(rmaib_coll_t *c)
{
    pthread_mutex_lock(&life_lock);
    pthread_mutex_lock(&all_lock);
    if (c->prev)
        c->prev->next = c->next;
    else
        all = c->next;
    if (c->next)
        c->next->prev = c->prev;
    int last = !all;
    pthread_mutex_unlock(&all_lock);
    if (last && th.running)
        thread_stop();
    pthread_mutex_unlock(&life_lock);
}

int rmaib_coll_progress_all(void)
{
    int moved = 0;
    __atomic_store_n(&polls, __atomic_load_n(&polls, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
    if (pthread_mutex_trylock(&all_lock) != 0)
        return 0;
    for (rmaib_coll_t *c = all; c; c = c->next)
        moved |= rmaib_coll_progress(c);
    pthread_mutex_unlock(&all_lock);
    return moved;
}
