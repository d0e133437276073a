/*
 * The progress thread (RMAIB_ASYNC_PROGRESS): serves the target side of the ofi
 * endpoint while the process computes or sits in a call of the host MPI.
 *
 * Providers that progress in software (tcp;ofi_rxm, shm, udp;ofi_rxd) apply a
 * peer's put or atomic only inside one of our calls into the provider.  This thread
 * makes those calls.  It blocks in the CQ's wait object (fi_cq_sread, which wakes on
 * incoming traffic as well as on completions, and returns every 10 ms), so an idle
 * process costs no measurable CPU;
 * where the provider has no wait object it polls with a sleep that grows to 1 ms.
 * The endpoint's domain is FI_THREAD_SAFE and completions are credited wherever
 * they are read, so the thread needs no lock of its own.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "rmaib_win.h"
#include "rmaib_host.h"
#include "ofi.h"

static pthread_t thread;
static _Atomic int stop;
static int running;

static void *serve(void *arg)
{
    unsigned idle = 0;
    (void) arg;
    while (!atomic_load_explicit(&stop, memory_order_acquire)) {
        /* 10 ms, not longer: tcp;ofi_rxm sets a connection up in its periodic
         * progress, which a wake-up of the CQ's wait object does not always run; with
         * 100 ms a peer's first contact with a computing target took hundreds of ms.
         * 100 idle wake-ups a second cost nothing measurable. */
        int n = rmaib_ofi_progress_wait(10);
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
