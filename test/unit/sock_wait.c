/*
 * The progress thread's sleep on tcp's sockets (src/mpid/ch4/netmod/rmaib/sock_wait.c),
 * on real loopback sockets, without a provider: this file plays win.c, whose
 * rmaib_ofi_socket_is_ours says which sockets are the endpoint's (here: those bound
 * to the port of our "endpoint" listener).  Checks that
 *   - a wake-up ends the sleep, once, and the timeout ends it with 0;
 *   - only the endpoint's sockets wake it: data on another connection does not;
 *   - data on the endpoint's socket ends the sleep at once;
 *   - data nobody reads is a spin stopped after 64 empty wake-ups: the naps begin at
 *     100 us and double to 6.4 ms, and stop the moment bytes are read off a socket
 *     or a reap completes something;
 *   - a stream read as it arrives (the thread keeping up) never naps;
 *   - a peer's hang-up ends the sleep, and a closed socket is not polled again after
 *     the next scan.
 * Prints TAP.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "transport/ofi/ofi.h"
#include "unit_tap.h"

enum { STUCK_WAKES = 64 };
#define FIRST_NAP_NS 100000ul
#define LAST_NAP_NS 6400000ul

static unsigned short endpoint_port;

/* win.c's part: a socket bound to our endpoint's port is ours; peers' names do not
 * occur here. */
int rmaib_ofi_socket_is_ours(const struct sockaddr *sa, unsigned len, int local)
{
    const struct sockaddr_in *in = (const struct sockaddr_in *) sa;
    return local && len >= sizeof *in && in->sin_family == AF_INET
        && ntohs(in->sin_port) == endpoint_port;
}

/* config.c's clock, which the rest of librmaib would bring. */
uint64_t rmaib_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    printf("Bail out! %s\n", what);
    _exit(1);
}

/* A loopback connection: *client connected to a listener, *server accepted by it;
 * returns the listener's port. */
static unsigned short connection(int *client, int *server)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    if (l < 0 || bind(l, (struct sockaddr *) &a, sizeof a) != 0 || listen(l, 1) != 0
        || getsockname(l, (struct sockaddr *) &a, &len) != 0)
        die("listener");
    *client = socket(AF_INET, SOCK_STREAM, 0);
    if (*client < 0 || connect(*client, (struct sockaddr *) &a, sizeof a) != 0)
        die("connect");
    *server = accept(l, NULL, NULL);
    if (*server < 0)
        die("accept");
    close(l);
    return ntohs(a.sin_port);
}

static void send_bytes(int fd, size_t n)
{
    char buf[256] = { 0 };
    if (n > sizeof buf || write(fd, buf, n) != (ssize_t) n)
        die("write");
}

static void recv_bytes(int fd, size_t n)
{
    char buf[256];
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf, n - got < sizeof buf ? n - got : sizeof buf);
        if (r <= 0)
            die("read");
        got += (size_t) r;
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
    nanosleep(&ts, NULL);
}

/* Wake-ups that find data but complete nothing, as the thread makes them. */
static int idle_wakes(int n)
{
    int woken = 0;
    for (int i = 0; i < n; i++) {
        woken += rmaib_sock_wait(1000) == 1;
        rmaib_sock_wait_reaped(0);
    }
    return woken;
}

int main(void)
{
    int other_c, other_s, c, s;
    connection(&other_c, &other_s);             /* not the endpoint's */
    endpoint_port = connection(&c, &s);         /* s is the endpoint's */

    tap(rmaib_sock_wait(0) == -1, "a wait before open fails");
    tap(rmaib_sock_wait_open() == 0, "open");
    tap(rmaib_sock_wait(0) == 0, "nothing to read: the wait times out");
    rmaib_sock_wait_wake();
    tap(rmaib_sock_wait(5000) == 1, "a wake-up ends the wait");
    tap(rmaib_sock_wait(0) == 0, "the wake-up is consumed");

    send_bytes(other_c, 16);
    tap(rmaib_sock_wait(50) == 0, "data on a connection not the endpoint's does not wake");
    send_bytes(c, 16);
    tap(rmaib_sock_wait(5000) == 1, "data on the endpoint's connection wakes");
    tap(rmaib_sock_wait_nap_ns() == 0, "no nap yet");

    /* Nobody reads s: after STUCK_WAKES wake-ups with nothing done, naps begin. */
    int woken = idle_wakes(STUCK_WAKES - 1);
    tap(woken == STUCK_WAKES - 1 && rmaib_sock_wait_nap_ns() == 0,
        "%d of %d wake-ups with the data unread, and still no nap", woken, STUCK_WAKES - 1);
    idle_wakes(1);
    tap(rmaib_sock_wait_nap_ns() == FIRST_NAP_NS, "wake-up %d: a nap of %lu ns (want %lu)",
        STUCK_WAKES, rmaib_sock_wait_nap_ns(), FIRST_NAP_NS);
    unsigned long prev = rmaib_sock_wait_nap_ns();
    int doubling = 1;
    for (int i = 0; i < 8; i++) {
        idle_wakes(1);
        unsigned long nap = rmaib_sock_wait_nap_ns();
        doubling &= nap == (prev < LAST_NAP_NS ? 2 * prev : LAST_NAP_NS);
        prev = nap;
    }
    tap(doubling && prev == LAST_NAP_NS, "the nap doubles to %lu ns and stays (%lu)",
        LAST_NAP_NS, prev);

    /* Bytes read off the socket: the data moves, so the thread keeps up again. */
    recv_bytes(s, 8);
    idle_wakes(1);
    tap(rmaib_sock_wait_nap_ns() == 0, "8 bytes read: the nap is gone (%lu ns)",
        rmaib_sock_wait_nap_ns());

    /* A completion ends a nap at once. */
    idle_wakes(STUCK_WAKES);
    tap(rmaib_sock_wait_nap_ns() != 0, "unread again: napping");
    rmaib_sock_wait(1000);
    rmaib_sock_wait_reaped(1);
    tap(rmaib_sock_wait_nap_ns() == 0, "a reap that completed something ends the nap");
    recv_bytes(s, 8);

    /* A stream read as it comes, in pieces that leave data behind: never a nap. */
    unsigned long naps = 0;
    int all_woke = 1;
    send_bytes(c, 32);
    for (int i = 0; i < 4 * STUCK_WAKES; i++) {
        all_woke &= rmaib_sock_wait(1000) == 1;
        recv_bytes(s, 16);      /* half of what is there */
        send_bytes(c, 16);
        rmaib_sock_wait_reaped(0);
        naps += rmaib_sock_wait_nap_ns() != 0;
    }
    tap(all_woke && naps == 0, "%d wake-ups on a stream read in pieces: %lu naps",
        4 * STUCK_WAKES, naps);
    recv_bytes(s, 32);
    tap(rmaib_sock_wait(0) == 0, "all read: the wait times out");

    /* The peer hangs up: one wake-up, and the socket is out of the set. */
    close(c);
    tap(rmaib_sock_wait(5000) == 1, "the peer's hang-up wakes the wait");
    close(s);
    sleep_ms(15);               /* past the 10 ms rescan */
    tap(rmaib_sock_wait(0) == 0, "closed: the socket is not polled again");

    rmaib_sock_wait_close();
    tap(rmaib_sock_wait(0) == -1, "a wait after close fails");
    close(other_c);
    close(other_s);
    printf("1..%d\n", tap_n);
    return tap_bad != 0;
}
