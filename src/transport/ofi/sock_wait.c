/*
 * The progress thread's sleep over tcp;ofi_rxm: on the provider's sockets, not in a
 * completion queue's wait object.
 *
 * A wait object on our CQ makes ofi_rxm open tcp's CQ with FI_WAIT_FD: an epoll set
 * holding every connection, whose kernel callbacks run for every packet.  That cost
 * each round trip 2.5-5 us on the 2-core machine whether or not the thread ever
 * slept in it (a CQ with a wait object and no thread was as slow).  A pollfd wait
 * object would not cost that, but ofi_rxm 1.17 then leaves the connections out of
 * the wait (rxm_ep_msg_cq_open adds them for FI_WAIT_FD only), so a sleeping thread
 * missed peers' writes and reads: put+flush to a computing target took 1-4 ms.
 *
 * So over tcp the CQ has no wait object, and the thread sleeps in poll() on the
 * sockets tcp made for this endpoint: the connections it accepted (bound to our
 * endpoint's name) and those it opened (to a peer's name), found in /proc/self/fd.
 * The list is made again when it is older than RESCAN_NS, which is also the longest
 * sleep: a new connection, and the listener's connection requests, which ofi_rxm
 * accepts in a periodic part of its progress anyway, wait at most that long.  A
 * poll() registers on the sockets only while it sleeps, so a process that polls
 * the endpoint pays nothing for the thread.
 *
 * tcp reads a stream in pieces: a wake-up often leaves data for the next, and a
 * sleep on a socket that still holds some returns at once.  That is the thread
 * keeping up with a stream, and it must not be slowed: an earlier version napped
 * whenever a reap left data behind and looked for new sockets every 8th time, and
 * 64 KB puts to a computing target ran at 120 MB/s instead of 700-900.  Only data
 * that nobody reads is a spin to stop (STUCK_WAKES): after that many wake-ups
 * without a completion, if no socket was read from since the last look (bytes
 * received less bytes queued, per socket), the thread naps, 100 us doubling to
 * 6.4 ms, until one is or something completes.  A socket whose peer hung up
 * (readable for ever) leaves the set until the next scan.
 */
#define _GNU_SOURCE             /* POLLRDHUP */
#include <dirent.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <netinet/in.h>
#include <linux/tcp.h>          /* tcpi_bytes_received, which glibc's tcp_info lacks */
#include <unistd.h>
#include "rmaib_win.h"
#include "ofi.h"

enum { SOCK_MAX = 1024, STUCK_WAKES = 64, NAP_DOUBLINGS_MAX = 6 };
#define RESCAN_NS 10000000ull   /* 10 ms */
#define NAP_NS 100000L          /* 100 us */

static struct {
    int wake;                           /* eventfd written by rmaib_sock_wait_wake */
    struct pollfd fds[1 + SOCK_MAX];    /* [0]: wake; then the sockets */
    nfds_t n;
    uint64_t scanned_ns;                /* 0: scan before the next sleep */
    uint64_t fd_hash;                   /* the descriptor numbers at the last scan */
    int nfd;
    unsigned idle_wakes;                /* wake-ups in a row whose reap completed nothing */
    uint64_t consumed;                  /* bytes read off the sockets, at the last look */
    unsigned naps;                      /* 0, or 1 + doublings of the stuck nap */
} sw = { .wake = -1 };

int rmaib_sock_wait_open(void)
{
    sw.wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (sw.wake < 0)
        return -1;
    sw.fds[0] = (struct pollfd) { sw.wake, POLLIN, 0 };
    sw.n = 1;
    sw.scanned_ns = 0;
    sw.fd_hash = 0;
    sw.nfd = -1;
    sw.idle_wakes = 0;
    sw.naps = 0;
    return 0;
}

void rmaib_sock_wait_close(void)
{
    if (sw.wake >= 0)
        close(sw.wake);
    sw.wake = -1;
    sw.n = 0;
}

void rmaib_sock_wait_wake(void)
{
    uint64_t one = 1;
    if (sw.wake >= 0 && write(sw.wake, &one, sizeof one) < 0) {
        /* full counter: a wake-up is pending anyway */
    }
}

/* Which of the process's descriptors are ours.  Reading /proc/self/fd costs a few
 * system calls; asking each descriptor, three more each, so that is done only when
 * the set of descriptor numbers changed since the last look. */
static void scan(void)
{
    enum { FD_MAX = 4096 };
    static int fdv[FD_MAX];
    int nfd = 0;
    uint64_t h = 1469598103934665603ull;
    sw.scanned_ns = rmaib_now_ns();
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        sw.n = 1;
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL && nfd < FD_MAX) {
        char *end;
        long fd = strtol(de->d_name, &end, 10);
        if (end == de->d_name || *end || fd == dirfd(d) || fd == sw.wake)
            continue;
        fdv[nfd++] = (int) fd;
        h = (h ^ (uint64_t) fd) * 1099511628211ull;
    }
    closedir(d);
    if (h == sw.fd_hash && nfd == sw.nfd)
        return;
    sw.fd_hash = h;
    sw.nfd = nfd;
    sw.n = 1;
    for (int i = 0; i < nfd && sw.n < 1 + SOCK_MAX; i++) {
        int fd = fdv[i];
        struct sockaddr_storage sa;
        socklen_t len = sizeof sa;
        int type, ours = 0;
        socklen_t tl = sizeof type;
        if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_STREAM)
            continue;
        if (getpeername(fd, (struct sockaddr *) &sa, &len) != 0)
            continue;           /* the listener: see the top */
        ours = rmaib_ofi_socket_is_ours((struct sockaddr *) &sa, len, 0);
        len = sizeof sa;
        if (!ours && getsockname(fd, (struct sockaddr *) &sa, &len) == 0)
            ours = rmaib_ofi_socket_is_ours((struct sockaddr *) &sa, len, 1);
        if (ours)
            sw.fds[sw.n++] = (struct pollfd) { fd, POLLIN | POLLRDHUP, 0 };
    }
}

int rmaib_sock_wait(int timeout_ms)
{
    if (sw.wake < 0)
        return -1;
    if (sw.naps) {
        struct timespec ts = { 0, NAP_NS << (sw.naps - 1) };
        nanosleep(&ts, NULL);
    }
    if (!sw.scanned_ns || rmaib_now_ns() - sw.scanned_ns > RESCAN_NS)
        scan();
    int r = poll(sw.fds, sw.n, timeout_ms);
    if (r <= 0)
        return 0;
    if (sw.fds[0].revents) {
        uint64_t v;
        if (read(sw.wake, &v, sizeof v) < 0) {
            /* another reader took it: nothing to reset */
        }
    }
    for (nfds_t i = 1; i < sw.n;) {
        if (sw.fds[i].revents & (POLLNVAL | POLLERR | POLLHUP | POLLRDHUP)) {
            /* Closed, or its number reused: out until the next scan looks again. */
            sw.fds[i] = sw.fds[--sw.n];
            sw.nfd = -1;
        } else {
            i++;
        }
    }
    return 1;
}

/* Bytes the process has read off its sockets: received less still queued. */
static uint64_t consumed_bytes(void)
{
    uint64_t sum = 0;
    for (nfds_t i = 1; i < sw.n; i++) {
        struct tcp_info ti;
        socklen_t len = sizeof ti;
        int queued = 0;
        if (getsockopt(sw.fds[i].fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0
            && ioctl(sw.fds[i].fd, FIONREAD, &queued) == 0)
            sum += ti.tcpi_bytes_received - (uint64_t) queued;
    }
    return sum;
}

void rmaib_sock_wait_reaped(int n)
{
    if (n > 0) {
        sw.idle_wakes = 0;
        sw.naps = 0;
        return;
    }
    sw.idle_wakes++;
    if (sw.idle_wakes == STUCK_WAKES / 2)
        sw.consumed = consumed_bytes();         /* the baseline */
    if (sw.idle_wakes < STUCK_WAKES)
        return;
    /* From here every wake-up looks (there is a nap between them). */
    uint64_t c = consumed_bytes();
    if (c != sw.consumed)
        sw.naps = 0, sw.idle_wakes = 0;         /* data moved: keep up with it */
    else if (sw.naps <= NAP_DOUBLINGS_MAX)
        sw.naps++;
    sw.consumed = c;
}

unsigned long rmaib_sock_wait_nap_ns(void)
{
    return sw.naps ? (unsigned long) NAP_NS << (sw.naps - 1) : 0;
}
