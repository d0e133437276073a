/*
 * Waiting: the clock, the back-off every wait loop uses, and whether ranks
 * outnumber cores.  The layer that owns something to serve while waiting (the
 * transport) hands its hooks in with rmaib_wait_hooks.
 */
#ifndef RMAIB_BASE_BACKOFF_H_INCLUDED
#define RMAIB_BASE_BACKOFF_H_INCLUDED

#include <stdint.h>

/* What a wait serves each round.  wants_polling: does something move peers'
 * requests only while this process polls?  Then a spinning wait stands in for the
 * progress thread between poll_enter and poll_leave. */
typedef struct rmaib_wait_hooks {
    void (*progress)(void);
    int (*wants_polling)(void);
    void (*poll_enter)(void);
    void (*poll_leave)(void);
} rmaib_wait_hooks_t;

/* Set the hooks (NULL: none) and count the cores; until then waits serve nothing. */
void rmaib_wait_init(const rmaib_wait_hooks_t *hooks);
extern const rmaib_wait_hooks_t *rmaib_waits;
/* Run by the progress thread each time it wakes: the collectives' schedules. */
extern void (*_Atomic rmaib_async_hook)(void);

/* Waiting: spin briefly, then for 1 ms yield (ranks outnumber cores: tests run 8
 * ranks on 2 cores, so a spinner must give its core to the rank it is waiting for)
 * or spin on (every rank has a core), then sleep in growing steps.  Every round also
 * serves the hooks; while a wait spins or yields it stands in for the progress
 * thread.  Declare the state with RMAIB_BACKOFF, which ends that stand-in however
 * the waiting scope is left. */
typedef struct rmaib_backoff {
    unsigned n;             /* rounds so far */
    int polling;            /* holds the progress thread parked */
    unsigned naps;          /* sleeps so far */
    uint64_t spin_until;    /* rmaib_now_ns() at which the spinning ends; 0: not set */
} rmaib_backoff_t;

void rmaib_backoff(rmaib_backoff_t *b);
void rmaib_backoff_end(rmaib_backoff_t *b);
#define RMAIB_BACKOFF(name) \
    rmaib_backoff_t name __attribute__((cleanup(rmaib_backoff_end))) = { 0 }

/* One round of a wait in the host MPI: serve, then relax or yield; never sleeps. */
void rmaib_poll_round(unsigned *round);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t rmaib_now_ns(void);

/* Ranks of this job on this host, as far as we know (the launcher's count, the
 * largest window's): more of them than cores and a waiting rank yields its core. */
void rmaib_note_host_ranks(int n);
int rmaib_oversubscribed(void);

static inline void rmaib_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
