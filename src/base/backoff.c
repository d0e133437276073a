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
static long ncpus;

void rmaib_wait_init(const rmaib_wait_hooks_t *hooks)
{
    rmaib_waits = hooks ? hooks : &no_hooks;
    if (ncpus == 0) {
        ncpus = sysconf(_SC_NPROCESSORS_ONLN);
        rmaib_note_host_ranks(rmaib_env_int("MPI_LOCALNRANKS", 0));            /* MPICH's Hydra */
        rmaib_note_host_ranks(rmaib_env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 0)); /* Open MPI */
    }
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
    return ncpus > 0 && atomic_load_explicit(&host_ranks, memory_order_relaxed) > ncpus;
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
 * sleep in growing steps up to SLEEP_MAX_US. */
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
            b->spin_until = now + SPIN_NS;
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
