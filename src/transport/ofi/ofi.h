/*
 * Private interface between the ofi backend (ofi.c; the state its files share is in
 * ofi_impl.h), its progress thread (progress_thread.c) and the transport choice
 * (transport.c).
 */
#ifndef RMAIB_OFI_H_INCLUDED
#define RMAIB_OFI_H_INCLUDED

/* Bring up the process's endpoint if it is not up yet: RMAIB_OK, or
 * RMAIB_ERR_TRANSPORT with the reason in rmaib_ofi_failure().  A failure is
 * remembered: later calls fail at once with the same reason.  Not collective. */
int rmaib_ofi_init(void);
const char *rmaib_ofi_failure(void);

/* Tear the endpoint down (windows must be gone); the next window brings it up anew. */
void rmaib_ofi_finalize(void);

/* For the progress thread: serve the endpoint until there is nothing left to do,
 * then block in the provider's wait object for up to timeout_ms (or, where the
 * provider has none, sleep a little).  Returns the completions it handled. */
int rmaib_ofi_progress_wait(int timeout_ms);
/* Does the provider apply peers' atomics in software on this host's CPU, with atomic
 * instructions (libfabric's util atomics, built on the compiler's __atomic
 * builtins)?  tcp, sockets, udp and shm, under ofi_rxm or ofi_rxd or alone. */
int rmaib_ofi_atomics_on_cpu(void);
/* Does the provider reach only this host (shm)?  Then no window spanning nodes. */
int rmaib_ofi_local_only(void);
/* Is the endpoint up, on a provider whose peers' requests move only when we poll? */
int rmaib_ofi_wants_polling(void);
/* Wake a thread blocked in rmaib_ofi_progress_wait. */
void rmaib_ofi_progress_wake(void);

/* Is a TCP socket with this address (its own, local 1; its peer's, local 0) one the
 * provider made for our endpoint: bound to our endpoint's name, or connected to a
 * peer's? */
struct sockaddr;
int rmaib_ofi_socket_is_ours(const struct sockaddr *sa, unsigned len, int local);

/* sock_wait.c: the progress thread's sleep on tcp's sockets (see there). */
int rmaib_sock_wait_open(void);
void rmaib_sock_wait_close(void);
void rmaib_sock_wait_wake(void);
/* Sleep until a socket of the endpoint has data, a wake, or timeout_ms: 1 if woken
 * before the timeout, 0 if not, -1 if not open. */
int rmaib_sock_wait(int timeout_ms);
/* Call after reaping what woke rmaib_sock_wait, with the completions reaped: spots
 * data that stays unread, so that the sleep does not turn into a spin. */
void rmaib_sock_wait_reaped(int n);
/* The nap the next rmaib_sock_wait begins with, in ns (0: none; for test/unit). */
unsigned long rmaib_sock_wait_nap_ns(void);

/* progress_thread.c: one thread per process serving the target side. */
int rmaib_progress_thread_start(void);
void rmaib_progress_thread_stop(void);
/* Another thread polls the endpoint from now until the matching release: the
 * progress thread parks meanwhile.  Calls nest and may come from several threads. */
void rmaib_progress_thread_hold(void);
void rmaib_progress_thread_release(void);

#endif
