/*
 * Process-wide set-up: RMAIB_* variables, read once, and the back-off every wait
 * loop in rmaib uses.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "rmaib_win.h"
#include "rmaib_host.h"

rmaib_config_t rmaib_config;
static int initialized;
static _Atomic int host_ranks;
static long ncpus;

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

int rmaib_init(void)
{
    if (initialized)
        return RMAIB_OK;
    rmaib_config.verbose = env_int("RMAIB_VERBOSE", 0);
    rmaib_config.node_size = env_int("RMAIB_NODE_SIZE", 0);
    rmaib_config.stats = env_int("RMAIB_STATS", 0);
    const char *t = getenv("RMAIB_TRANSPORT");
    rmaib_config.transport = t && *t ? t : "auto";
    const char *l = getenv("RMAIB_LOCK");
    rmaib_config.lock_alg = l && strcmp(l, "mcs") == 0 ? RMAIB_LOCKALG_MCS : RMAIB_LOCKALG_TAS;
    if (strcmp(rmaib_config.transport, "auto") && strcmp(rmaib_config.transport, "shm")
        && strcmp(rmaib_config.transport, "ofi")) {
        rmaib_host_say("RMAIB_TRANSPORT=%s is not one of auto, shm, ofi", rmaib_config.transport);
        return RMAIB_ERR_ARG;
    }
    const char *prov = getenv("RMAIB_OFI_PROVIDER");
    rmaib_config.ofi_provider = prov && *prov ? prov : NULL;
    rmaib_config.ofi_mr_local = env_int("RMAIB_OFI_MR_LOCAL", 0);
    const char *ca = getenv("RMAIB_OFI_ATOMICS");
    if (ca && *ca && strcmp(ca, "auto") && strcmp(ca, "provider")) {
        rmaib_host_say("RMAIB_OFI_ATOMICS=%s is not one of auto, provider", ca);
        return RMAIB_ERR_ARG;
    }
    rmaib_config.ofi_provider_atomics = ca && strcmp(ca, "provider") == 0;
    ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    rmaib_note_host_ranks(env_int("MPI_LOCALNRANKS", 0));                /* MPICH's Hydra */
    rmaib_note_host_ranks(env_int("OMPI_COMM_WORLD_LOCAL_SIZE", 0));     /* Open MPI */
    const char *ap = getenv("RMAIB_ASYNC_PROGRESS");
    if (!ap || !*ap || strcmp(ap, "auto") == 0) {
        rmaib_config.async_progress = -1;
    } else if (strcmp(ap, "0") == 0 || strcmp(ap, "1") == 0) {
        rmaib_config.async_progress = ap[0] - '0';
    } else {
        rmaib_host_say("RMAIB_ASYNC_PROGRESS=%s is not one of auto, 0, 1", ap);
        return RMAIB_ERR_ARG;
    }
    /* Peers on this node reach MPI_Win_create and dynamic-window memory with
     * process_vm_readv/writev, which Yama may restrict to descendants. */
#ifdef PR_SET_PTRACER
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif
    initialized = 1;
    return RMAIB_OK;
}

void rmaib_finalize(void)
{
    initialized = 0;
}

int rmaib_poll_wanted(void)
{
    return rmaib_transport_wants_polling();
}

void rmaib_poll_enter(void)
{
    rmaib_transport_poll_enter();
}

void rmaib_poll_leave(void)
{
    rmaib_transport_poll_leave();
}

void rmaib_note_host_ranks(int n)
{
    int cur = atomic_load_explicit(&host_ranks, memory_order_relaxed);
    while (n > cur && !atomic_compare_exchange_weak(&host_ranks, &cur, n))
        ;
}

/* Yielding costs a system call per round, and on the 2-core machine it took 8 us
 * off each lock round trip over tcp to stop yielding with 2 ranks on 2 cores; with
 * 8 ranks on 2 cores the rank we wait for needs our core. */
int rmaib_oversubscribed(void)
{
    return ncpus > 0 && atomic_load_explicit(&host_ranks, memory_order_relaxed) > ncpus;
}

/* No sleeping here: the host call may be waiting for a message that arrives in a
 * microsecond, and the host MPI's own wait would spin. */
void rmaib_poll(unsigned *round)
{
    rmaib_transport_progress();
    if ((*round)++ < 64 || !rmaib_oversubscribed())
        rmaib_cpu_relax();
    else
        sched_yield();
}

void rmaib_backoff_end(rmaib_backoff_t *b)
{
    if (b->polling) {
        b->polling = 0;
        rmaib_transport_poll_leave();
    }
}

uint64_t rmaib_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* How long a wait spins before it sleeps when every rank has a core: by the clock,
 * and far above the longest sleep step.  A rank that sleeps answers late by up to
 * a step; a peer whose spin is shorter than that lateness goes to sleep too and
 * answers late in turn, and the two settle into sleeping through every exchange.
 * A spin of 128 rounds did that where rounds are cheap: over net on a fast machine
 * 128 rounds took some 50 us, and fences ran at 100 us in most runs, 4 in the rest. */
#define SPIN_NS 1000000u        /* 1 ms */
#define SLEEP_MAX_US 100u

/* Spin for the first few rounds (a peer on another core answers in well under a
 * microsecond), then yield for a while if ranks outnumber cores (the peer we wait
 * for needs our core) or spin on for SPIN_NS if not, then sleep in growing steps up
 * to SLEEP_MAX_US. */
void rmaib_backoff(rmaib_backoff_t *b)
{
    unsigned n = b->n++;
    if (n == 0 && rmaib_transport_wants_polling()) {
        rmaib_transport_poll_enter();
        b->polling = 1;
    }
    rmaib_transport_progress();
    if (b->naps == 0) {
        if (n < 64) {
            rmaib_cpu_relax();
            return;
        }
        if (rmaib_oversubscribed()) {
            if (n < 128) {
                sched_yield();
                return;
            }
        } else {
            uint64_t now = rmaib_now_ns();
            if (b->spin_until == 0)
                b->spin_until = now + SPIN_NS;
            if (now < b->spin_until) {
                rmaib_cpu_relax();
                return;
            }
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
