/*
 * The back-off every wait loop in rmaib uses, and the clock.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "rmaib_host.h"
#include "config.h"
#include "backoff.h"

static void serve_nothing(void)
{
}

static int polls_nothing(void)
{
    return 0;
}

static const rmaib_wait_hooks_t no_hooks = {
    .progress = serve_nothing,
    .wants_polling = polls_nothing,
    .poll_enter = serve_nothing,
    .poll_leave = serve_nothing,
};

const rmaib_wait_hooks_t *rmaib_waits = &no_hooks;
void (*_Atomic rmaib_async_hook)(void);
static _Atomic int host_ranks;
static _Atomic long ncpus;      /* 0: not counted yet */

/* The cores and the launcher's count of ranks on this host, once (at the first wait
 * that asks, or the transport's start); twice by two threads is harmless. */
static long count_cpus(void)
{
    long n = atomic_load_explicit(&ncpus, memory_order_acquire);
    if (n != 0)
        return n;
    rmaib_note_host_ranks(rmaib_env_int("MPI_LOCALNRANKS", 0));            /* MPICH's Hydra */
    rmaib_note_host_ranks(rmaib_env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 0)); /* Open MPI */
    n = sysconf(_SC_NPROCESSORS_ONLN);
    n = n > 0 ? n : 1;
    atomic_store_explicit(&ncpus, n, memory_order_release);
    return n;
}

void rmaib_wait_init(const rmaib_wait_hooks_t *hooks)
{
    rmaib_waits = hooks ? hooks : &no_hooks;
    count_cpus();
}

void rmaib_note_host_ranks(int n)
{
    int cur = atomic_load_explicit(&host_ranks, memory_order_relaxed);
    while (n > cur && !atomic_compare_exchange_weak(&host_ranks, &cur, n))
        ;
}

/* Yielding costs a system call per round: with 2 ranks on 2 cores it cost each lock
 * round trip over tcp 8 us; with 8 ranks on 2 cores the rank we wait for needs our
 * core. */
int rmaib_oversubscribed(void)
{
    long cpus = count_cpus();   /* first: it notes the launcher's count */
    return atomic_load_explicit(&host_ranks, memory_order_relaxed) > cpus;
}

/* At least CROWDED ranks a core: a waiter sleeps as soon as its first rounds found
 * nothing.  Yielding then hands the core to another waiter more often than to the
 * rank being waited for: with 64 ranks on 2 cores an empty fence took 22 ms with the
 * 1 ms of yielding and 5.4 ms without, 1.5 and 0.3 ms with 8 ranks (4 a core); with
 * 3 ranks on 2 cores the yielding is what makes a lock handover fast (c78e83c). */
#define CROWDED 4

static int crowded(void)
{
    long cpus = count_cpus();
    return atomic_load_explicit(&host_ranks, memory_order_relaxed) >= CROWDED * cpus;
}

/* No sleeping here: the host call may be waiting for a message that arrives in a
 * microsecond, and the host MPI's own wait would spin. */
void rmaib_poll_round(unsigned *round)
{
    rmaib_waits->progress();
    if ((*round)++ < 64 || !rmaib_oversubscribed())
        rmaib_cpu_relax();
    else
        sched_yield();
}

void rmaib_backoff_end(rmaib_backoff_t *b)
{
    if (b->polling) {
        b->polling = 0;
        rmaib_waits->poll_leave();
    }
}

uint64_t rmaib_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* A wait spins (or yields) this long by the clock before it sleeps,
 * far above the longest sleep step: a peer whose spin is shorter than our lateness
 * goes to sleep too, and the two settle into sleeping through every exchange
 * (docs/performance.md, "Back-off"). */
#define SPIN_NS 1000000u        /* 1 ms */
#define SLEEP_MAX_US 100u

/* Spin for the first few rounds (a peer on another core answers in well under a
 * microsecond), then for SPIN_NS yield if ranks outnumber cores (the peer may need
 * our core, and a sleeper answers a lock handed over late) or spin on if not, then
 * sleep in growing steps up to SLEEP_MAX_US; where ranks crowd the cores, sleep at
 * once after the first rounds. */
void rmaib_backoff(rmaib_backoff_t *b)
{
    unsigned n = b->n++;
    if (n == 0 && rmaib_waits->wants_polling()) {
        rmaib_waits->poll_enter();
        b->polling = 1;
    }
    rmaib_waits->progress();
    if (b->naps == 0) {
        if (n < 64) {
            rmaib_cpu_relax();
            return;
        }
        uint64_t now = rmaib_now_ns();
        if (b->spin_until == 0)
            b->spin_until = crowded() ? now : now + SPIN_NS;
        if (now < b->spin_until) {
            if (rmaib_oversubscribed())
                sched_yield();
            else
                rmaib_cpu_relax();
            return;
        }
    }
    if (b->polling)             /* sleeping: the progress thread serves meanwhile */
        rmaib_backoff_end(b);
    if ((b->naps & 15) == 0)
        rmaib_host_progress();
    unsigned us = b->naps < 7 ? 1u << b->naps : SLEEP_MAX_US;
    struct timespec ts = { 0, (long) (us > SLEEP_MAX_US ? SLEEP_MAX_US : us) * 1000 };
    b->naps++;
    nanosleep(&ts, NULL);
}
