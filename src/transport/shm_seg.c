/*
 * A window's shared segment (shm.c): made by the node's lowest rank, its leader,
 * and mapped by every rank of the node.
 *
 * The segment has no name: the leader makes it with memfd_create and the others
 * open it as /proc/LEADER/fd/N, so a rank killed at any point of the window's
 * creation leaves nothing behind in /dev/shm.  Where /proc does not let them (an
 * LSM, a non-dumpable leader), it falls back to a named segment, created mode 0600
 * and unlinked as soon as every local rank has mapped it: only a leader killed
 * between the two leaves that name behind.
 *
 * How the node's ranks learn N.  Every process keeps a board, a page of its own in
 * a memfd made at its first window, whose descriptor its creation records carry
 * (win_exchange.c keeps those of the node's ranks in the communicator's directory).
 * A window with a serial is the only creation of its processes under way, so the
 * leader can publish the segment in its board under the serial, and the others wait
 * for it there: the window's one collective is the agreement that all have mapped
 * it, whatever P.  A window without a serial, or a group in which a rank has no
 * board, gathers every rank's name instead (an allgather over the group), and so
 * does a window whose board round failed for want of memory or of /proc, where that
 * allgather's named fallback may do better.  Each choice is made alike on every
 * rank.  The board also holds its owner's ancestors, which a node-mate needs under
 * Yama (ptracer.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "rmaib_host.h"
#include "base/backoff.h"
#include "base/config.h"
#include "base/ptracer.h"
#include "shm_impl.h"

typedef struct shm_hello {
    int status;         /* RMAIB_OK or the leader's error */
    char name[SHM_NAME_LEN];    /* "/proc/PID/fd/N", or the fallback's shm_open name */
    int64_t anc[RMAIB_PTRACER_DEPTH]; /* this rank's ancestors, where Yama asks for them */
} shm_hello_t;

typedef struct shm_board {
    uint64_t magic;             /* BOARD_MAGIC ^ pid: the file is a board, its owner's */
    int64_t anc[RMAIB_PTRACER_DEPTH];   /* the owner's ancestors */
    _Atomic uint64_t serial;    /* of the window whose segment hello names */
    shm_hello_t hello;
} shm_board_t;

#define BOARD_MAGIC UINT64_C(0x726d6169622d6264)        /* "rmaib-bd" */

static unsigned long shm_seq;
static pthread_once_t board_once = PTHREAD_ONCE_INIT;
static shm_board_t *board;
static int board_fd = -1;

static int agree(rmaib_win_t *w, int mine)
{
    return rmaib_host_agree(w->hcomm, w->nranks, mine);
}

static void board_make(void)
{
    int fd = memfd_create("rmaib-board", MFD_CLOEXEC);
    void *p = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, sizeof *board) == 0)
        p = mmap(NULL, sizeof *board, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        if (fd >= 0)
            close(fd);
        return;
    }
    board = p;
    board->magic = BOARD_MAGIC ^ (uint64_t) getpid();
    rmaib_ancestors(board->anc);
    board_fd = fd;
}

int rmaib_shm_board_fd(void)
{
    pthread_once(&board_once, board_make);
    return board_fd;
}

/* A node-mate's board, mapped read-only (ours as it is), or NULL: not reachable, or
 * the descriptor no longer its board. */
static const shm_board_t *board_open(const rmaib_peer_t *pe)
{
    if (pe->pid == (int) getpid())
        return board;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pe->pid, pe->board_fd);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size == (off_t) sizeof *board)
        p = mmap(NULL, sizeof *board, PROT_READ, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED)
        return NULL;
    const shm_board_t *b = p;
    if (b->magic != (BOARD_MAGIC ^ (uint64_t) pe->pid)) {
        munmap(p, sizeof *b);
        return NULL;
    }
    return b;
}

static void board_close(const shm_board_t *b)
{
    if (b && b != board)
        munmap((void *) b, sizeof *b);
}

/* The leader's new segment, named in hello (a /proc path unless named), or -1
 * with hello->status set. */
static int seg_create(shm_win_t *s, shm_hello_t *hello, int named)
{
    int fd = -1;
    for (int tries = 0; named && tries < 2; tries++) {
        snprintf(hello->name, sizeof hello->name, "/rmaib.%d.%lu", (int) getpid(), shm_seq++);
        fd = shm_open(hello->name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 || errno != EEXIST)
            break;
        shm_unlink(hello->name);        /* stale name from a recycled pid */
    }
    if (!named) {
        fd = memfd_create("rmaib", MFD_CLOEXEC);
        snprintf(hello->name, sizeof hello->name, "/proc/%d/fd/%d", (int) getpid(), fd);
    }
    if (fd < 0 || ftruncate(fd, (off_t) s->seg_size) != 0) {
        if (named)      /* (a failed memfd_create falls back without a word) */
            rmaib_host_say("rmaib: cannot create a %zu-byte shared segment: %s", s->seg_size,
                           strerror(errno));
        if (fd >= 0)
            close(fd);
        fd = -1;
        hello->status = RMAIB_ERR_NO_MEM;
    }
    return fd;
}

/* Map the segment (the leader's fd, which stays open until every rank has mapped
 * it, or opened by name). */
static int seg_map(shm_win_t *s, int fd, const char *name)
{
    int own = fd < 0;
    if (own)
        fd = strncmp(name, "/proc/", 6) ? shm_open(name, O_RDWR, 0600)
            : open(name, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return RMAIB_ERR_NO_MEM;
    int rc = RMAIB_OK;
    s->seg = mmap(NULL, s->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    if (s->seg == MAP_FAILED) {
        s->seg = NULL;
        rc = RMAIB_ERR_NO_MEM;
    }
    if (own)
        close(fd);
    return rc;
}

/* The leader's descriptor and name, which the others no longer need once the
 * segment's round is agreed on (named segments only have a name to unlink). */
static void seg_release(const rmaib_win_t *w, const shm_seg_args_t *a, int fd,
                        const shm_hello_t *hello)
{
    if (fd >= 0)
        close(fd);
    if (w->rank == a->leader && hello->name[0] && strncmp(hello->name, "/proc/", 6))
        shm_unlink(hello->name);
}

/* The agreement that ends a way: whether every rank has mapped the segment and is
 * ready (rmaib_shm_ready); what was mapped goes again on failure. */
static int seg_agree(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int st, int fd,
                     const shm_hello_t *hello)
{
    int rc = agree(w, rmaib_shm_ready(w, s, a, st));
    if (rc != RMAIB_OK && s && s->seg) {        /* (s: NULL if this rank ran out) */
        munmap(s->seg, s->seg_size);
        s->seg = NULL;
    }
    seg_release(w, a, fd, hello);
    return rc;
}

/* The board's way (see the top). */
static int seg_by_board(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int status)
{
    shm_hello_t hello = { .status = status };
    int fd = -1, rc;
    /* A rank that failed publishes its error: it may be the leader without knowing
     * it (its part of the exchange failed), and a board no one waits on is harmless. */
    if (w->rank == a->leader || status != RMAIB_OK) {
        if (hello.status == RMAIB_OK && (fd = seg_create(s, &hello, 0)) < 0) {
            hello.status = RMAIB_OK;
            fd = seg_create(s, &hello, 1);
        }
        board->hello = hello;
        atomic_store_explicit(&board->serial, w->serial, memory_order_release);
        rc = hello.status == RMAIB_OK ? seg_map(s, fd, hello.name) : hello.status;
    } else {                    /* (our own status is RMAIB_OK here) */
        const shm_board_t *b = board_open(rmaib_peer(w, a->leader));
        rc = b ? RMAIB_OK : RMAIB_ERR_NO_MEM;
        if (b) {
            RMAIB_BACKOFF(bo);
            while (atomic_load_explicit(&b->serial, memory_order_acquire) != w->serial)
                rmaib_backoff(&bo);
            rc = b->hello.status;
            memcpy(hello.name, b->hello.name, sizeof hello.name);
            board_close(b);
        }
        if (rc == RMAIB_OK)
            rc = seg_map(s, -1, hello.name);
    }
    return seg_agree(w, s, a, rc, fd, &hello);
}

/* Nodes are numbered in order of their lowest rank (win.c): called for r = 0, 1, ...
 * in turn, is r its node's lowest rank, which makes the node's segment? */
static int node_leader(const rmaib_win_t *w, int r, int *nodes_seen)
{
    if (rmaib_peer_node(w, r) < *nodes_seen)
        return 0;
    ++*nodes_seen;
    return 1;
}

/* A round of the gathered way; named: the fallback.  *retry: only the segments'
 * creation or mapping failed, where the fallback may do better (every rank decides
 * alike). */
static int seg_round(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, shm_hello_t *hello,
                     shm_hello_t *hellos, int named, int *retry)
{
    int fd = -1, rc;
    *retry = 0;
    hello->name[0] = 0;
    if (hello->status == RMAIB_OK && w->rank == a->leader)
        fd = seg_create(s, hello, named);
    rc = rmaib_host_allgather(w->hcomm, hello, hellos, sizeof *hello);
    /* Retry only where every rank that failed is a node's leader. */
    int failed = RMAIB_OK, leaders = 1;
    for (int r = 0, seen = 0; rc == RMAIB_OK && r < w->nranks; r++) {
        int lead = node_leader(w, r, &seen);
        if (hellos[r].status != RMAIB_OK) {
            failed = hellos[r].status;
            leaders &= lead;
        }
    }
    if (rc == RMAIB_OK) {
        *retry = leaders;
        rc = failed;
    }
    /* (the agreement: also "all have mapped it") */
    if (rc == RMAIB_OK)
        return seg_agree(w, s, a, seg_map(s, fd, hellos[a->leader].name), fd, hello);
    seg_release(w, a, fd, hello);
    return rc;
}

/* Does this window reach a local peer's memory with process_vm_* (memory the user
 * brought, or the collective buffers of cma_peers), on a kernel whose Yama lets
 * only named processes do that to us? */
static int needs_ptracer(const rmaib_win_t *w, int has_data)
{
    static _Atomic int scope = -2;
    if ((has_data && !w->cma_peers) || w->nlocal < 2)
        return 0;
    if (scope == -2)
        scope = rmaib_yama_scope(RMAIB_YAMA_SCOPE_PATH);
    return scope == 1;
}

/* Let the node's ranks attach to us: name their nearest common ancestor (the
 * launcher) as our ptracer, or anyone if they have none within reach or we cannot
 * read their ancestors (from the gathered hellos, else from their boards). */
static void allow_peers(const rmaib_win_t *w, const int64_t *mine, const shm_hello_t *hellos)
{
    int n = 0, idx = -1;
    int64_t *chains = malloc(sizeof mine[0] * RMAIB_PTRACER_DEPTH * (size_t) w->nlocal);
    for (int i = 0; chains && i < w->nlocal; i++) {
        int r = w->local_ranks[i];
        const shm_board_t *b = hellos ? NULL : board_open(rmaib_peer(w, r));
        if (!hellos && !b)
            break;
        memcpy(chains + (size_t) RMAIB_PTRACER_DEPTH * n++, hellos ? hellos[r].anc : b->anc,
               sizeof mine[0] * RMAIB_PTRACER_DEPTH);
        board_close(b);
    }
    if (chains && n == w->nlocal)
        idx = rmaib_ptracer_pick(mine, chains, n);
    free(chains);
    if (rmaib_ptracer_allow(mine, idx) != 0)
        rmaib_host_say("rmaib: prctl(PR_SET_PTRACER) failed: %s; local peers may not reach "
                       "this window's memory", strerror(errno));
    else if (rmaib_config.verbose)
        rmaib_host_say("rmaib: Yama ptrace_scope 1: %s may attach to this process",
                       idx < 0 ? "any process of this user" : "the ranks' launcher and its descendants");
}

/* The gathered way (see the top).  A rank out of memory joins the exchange with its
 * error; in a large group, where it may have no buffer for it, all agree first. */
static int seg_gathered(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int status,
                        int ptracer)
{
    int p = w->nranks;
    shm_hello_t hello = { .status = status }, small[RMAIB_SMALL_GROUP], *hellos = small;
    if (p > RMAIB_SMALL_GROUP && !(hellos = malloc(sizeof *hellos * (size_t) p)))
        hello.status = hello.status != RMAIB_OK ? hello.status : RMAIB_ERR_NO_MEM;
    if (ptracer)
        rmaib_ancestors(hello.anc);
    int retry = 0, mine = hello.status;
    int rc = p > RMAIB_SMALL_GROUP ? agree(w, hello.status) : RMAIB_OK;
    if (rc == RMAIB_OK)
        rc = seg_round(w, s, a, &hello, hellos, 0, &retry);
    if (rc != RMAIB_OK && retry) {      /* every rank saw the same: all try a named one */
        hello.status = mine;
        rc = seg_round(w, s, a, &hello, hellos, 1, &retry);
    }
    if (rc == RMAIB_OK && ptracer)
        allow_peers(w, hello.anc, hellos);
    if (hellos != small)
        free(hellos);
    return rc;
}

/* No rank shares a node (each is its node's only rank): the segment is ours
 * alone, and it needs no exchange, only the agreement that every rank made its
 * own (with the named fallback where a memfd failed). */
static int seg_alone(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int status)
{
    int rc = status, fd = -1;
    shm_hello_t hello = { .status = RMAIB_OK };
    for (int named = 0; status == RMAIB_OK && named < 2; named++) {
        hello = (shm_hello_t) { .status = RMAIB_OK };
        fd = seg_create(s, &hello, named);
        rc = hello.status == RMAIB_OK ? seg_map(s, fd, hello.name) : hello.status;
        if (rc == RMAIB_OK)
            break;
        seg_release(w, a, fd, &hello);
        fd = -1;
        hello.name[0] = 0;
    }
    return seg_agree(w, s, a, rc, fd, &hello);
}

int rmaib_shm_segment(rmaib_win_t *w, shm_win_t *s, shm_seg_args_t *a, int status)
{
    if (w->nnodes == w->nranks)
        return seg_alone(w, s, a, status);
    int ptracer = needs_ptracer(w, a->has_data);
    if (w->serial && w->boards) {
        int rc = seg_by_board(w, s, a, status);
        if (rc == RMAIB_OK && ptracer)
            allow_peers(w, board->anc, NULL);
        if (rc != RMAIB_ERR_NO_MEM)
            return rc;
    }
    return seg_gathered(w, s, a, status, ptracer);
}
