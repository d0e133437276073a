/*
 * The progress thread (RMAIB_ASYNC_PROGRESS): serves the target side of the ofi
 * endpoint while the process computes or sits in a call of the host MPI.
 *
 * Providers that progress in software (tcp;ofi_rxm, shm, udp;ofi_rxd) apply a
 * peer's put or atomic only inside one of our calls into the provider.  This thread
 * makes those calls.  It blocks until traffic comes, for at most 10 ms: over tcp in
 * poll() on the provider's sockets (sock_wait.c), elsewhere in the CQ's wait object
 * (fi_cq_sread, which wakes on incoming traffic as well as on completions), so an
 * idle process costs no measurable CPU;
 * where the provider has no wait object it polls with a sleep that grows to 1 ms.
 * The endpoint's domain is FI_THREAD_SAFE and completions are credited wherever
 * they are read; the CQ has one reader at a time (cq.c's reap_lock), which the
 * thread holds while it blocks, and a poller that arrives wakes it first.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdint.h>
#include "rmaib_win.h"
#include "rmaib_host.h"
#include "ofi.h"

static pthread_t thread;
static _Atomic int stop;
static int running;

/* Threads polling the endpoint in a wait of their own.  While there are any, and
 * for LEASE_NS after the last of them stopped, this thread stays out of the CQ's
 * wait object and naps instead: two threads polling one endpoint fight over the
 * provider's locks, and every wake-up of this thread by a peer's packet takes a core
 * from the poller (with 2 ranks on 2 cores that tripled put+flush over tcp).  The
 * lease spans the gaps between an origin's back-to-back waits (put, flush, put ...).
 *
 * The naps lengthen while the polling goes on, 1, 2, 4 then 8 ms: in this VM each
 * timed wake-up of the thread cost the pollers far more than a context switch, and
 * with 1 ms naps put+flush and fetch-and-op over tcp took 4-5 us longer than with
 * no thread, 10 ms naps recovering about half of it.  A nap ends at most
 * LEASE_NS << NAP_DOUBLINGS after the last poll, which bounds how long a peer waits
 * once nobody here polls. */
enum { LEASE_NS = 1000000, NAP_DOUBLINGS = 3 };
static _Atomic int pollers;
static _Atomic uint64_t last_poll_ns;
static _Atomic int in_wait;          /* the thread is in (or entering) the wait object */

void rmaib_progress_thread_hold(void)
{
    /* The first poller after a quiet spell takes the thread out of the wait object,
     * where every packet would wake it for up to 10 ms.  seq_cst, as in serve: each
     * side stores, then loads the other's word, so one of them sees the other. */
    if (atomic_fetch_add(&pollers, 1) == 0 && atomic_load(&in_wait))
        rmaib_ofi_progress_wake();
}

void rmaib_progress_thread_release(void)
{
    atomic_store_explicit(&last_poll_ns, rmaib_now_ns(), memory_order_relaxed);
    atomic_fetch_sub_explicit(&pollers, 1, memory_order_release);
}

/* How long to nap before serving (0: serve now), the naps so far having been
 * lengthened `doublings` times. */
static uint64_t polled_by_others(unsigned doublings)
{
    uint64_t lease = (uint64_t) LEASE_NS << doublings;
    if (atomic_load(&pollers) > 0)
        return lease;
    uint64_t since = rmaib_now_ns()
        - atomic_load_explicit(&last_poll_ns, memory_order_relaxed);
    return since < LEASE_NS ? lease - since : 0;
}

static void *serve(void *arg)
{
    unsigned idle = 0, doublings = 0;
    (void) arg;
    rmaib_host_own_thread = 1;
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        uint64_t nap = polled_by_others(doublings);
        if (!nap) {
            atomic_store(&in_wait, 1);
            nap = polled_by_others(doublings);  /* a poller that came before in_wait was set */
        }
        if (nap) {
            atomic_store_explicit(&in_wait, 0, memory_order_relaxed);
            struct timespec ts = { (time_t) (nap / 1000000000u), (long) (nap % 1000000000u) };
            nanosleep(&ts, NULL);
            if (doublings < NAP_DOUBLINGS)
                doublings++;
            continue;
        }
        doublings = 0;
        /* 10 ms, not longer: tcp;ofi_rxm sets a connection up in its periodic
         * progress, which a wake-up of the CQ's wait object does not always run; with
         * 100 ms a peer's first contact with a computing target took hundreds of ms.
         * 100 idle wake-ups a second cost nothing measurable. */
        int n = rmaib_ofi_progress_wait(10);
        atomic_store_explicit(&in_wait, 0, memory_order_relaxed);
        void (*hook)(void) = atomic_load(&rmaib_async_hook);
        if (hook)
            hook();
        if (n > 0) {
            idle = 0;
        } else if (n < 0) {     /* cannot block: sleep 1, 2, 4 ... 1024 us */
            struct timespec ts = { 0, 1000L << (idle < 10 ? idle : 10) };
            if (idle < 10)
                idle++;
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

int rmaib_progress_thread_start(void)
{
    if (running)
        return RMAIB_OK;
    atomic_store(&stop, 0);
    int err = pthread_create(&thread, NULL, serve, NULL);
    if (err != 0) {
        rmaib_host_say("rmaib: cannot start the progress thread (error %d); "
                       "targets progress only inside rmaib calls", err);
        return RMAIB_ERR_TRANSPORT;
    }
    running = 1;
    return RMAIB_OK;
}

void rmaib_progress_thread_stop(void)
{
    if (!running)
        return;
    atomic_store_explicit(&stop, 1, memory_order_release);
    rmaib_ofi_progress_wake();
    pthread_join(thread, NULL);
    running = 0;
}
