/*
 * The shared-memory backend: the fast path within a node.
 *
 * Each window gets one POSIX shared-memory segment per node, created by the node's
 * lowest rank and mapped by every rank of the node.  It holds the control blocks of
 * all local ranks and, for MPI_Win_allocate and MPI_Win_allocate_shared, their
 * window memory, so Put and Get to a local peer are memcpy and control-word atomics
 * are CPU atomics.  Memory the user brought (MPI_Win_create, dynamic windows) is
 * reached with process_vm_readv/writev, without the target's help, except the
 * whole pages of MPI_Win_create regions that umem.c could move into a memfd: the
 * peers map that as they map the segment; and those of dynamic windows' attached
 * regions, which peers map as they first reach them (shm_dyn.c).
 *
 * The segment has no name: the leader makes it with memfd_create and the others
 * open it as /proc/LEADER/fd/N, so a rank killed at any point of the window's
 * creation leaves nothing behind in /dev/shm.  Where /proc does not let them (an
 * LSM, a non-dumpable leader), it falls back to a named segment, created mode 0600
 * and unlinked as soon as every local rank has mapped it: only a leader killed
 * between the two leaves that name behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "rmaib_win.h"
#include "rmaib_host.h"
#include "base/atomic_cpu.h"
#include "base/config.h"
#include "base/ptracer.h"
#include "umem.h"
#include "shm_impl.h"

#define SHM_NAME_LEN 48

typedef struct shm_hello {
    int status;         /* RMAIB_OK or the leader's error */
    char name[SHM_NAME_LEN];    /* "/proc/PID/fd/N", or the fallback's shm_open name */
    int64_t anc[RMAIB_PTRACER_DEPTH]; /* this rank's ancestors, where Yama asks for them */
} shm_hello_t;

static unsigned long shm_seq;

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* Every rank must agree on failure, or some would map while others bail out. */
static int agree(rmaib_win_t *w, int mine)
{
    return rmaib_host_agree(w->hcomm, w->nranks, mine);
}

static int cmp_int(const void *a, const void *b)
{
    return (*(const int *) a > *(const int *) b) - (*(const int *) a < *(const int *) b);
}

/* rank's place among the node's ranks (it is one of them). */
static int local_index(const rmaib_win_t *w, int rank)
{
    const int *at = bsearch(&rank, w->local_ranks, (size_t) w->nlocal, sizeof rank, cmp_int);
    return (int) (at - w->local_ranks);
}

shm_peer_t *rmaib_shm_peer(const rmaib_win_t *w, int rank)
{
    return &((shm_win_t *) w->shm)->peers[local_index(w, rank)];
}

/* Layout: the local control blocks, then (page-aligned) the local window memory.
 * Shared windows are contiguous by default: rank r+1's memory starts right after
 * rank r's.  Otherwise each part starts on its own cache line or page.  Control
 * blocks, each followed by its accumulate stripes (shm_acc.c), get their offsets
 * in s->peers[i].ctrl (fixed up after mmap), data in data_off[i], for the i-th
 * local rank; returns the node's lowest rank, which creates the segment. */
static int shm_layout(rmaib_win_t *w, shm_win_t *s, size_t *data_off, int has_data)
{
    size_t off = 0;
    for (int i = 0; i < w->nlocal; i++) {
        s->peers[i].ctrl = (char *) off;       /* fixed up after mmap */
        off += rmaib_win_ctrl_size(w) + SHM_ACC_STRIPES_SIZE
            + rmaib_shm_dyn_table_size(w);
    }
    off = align_up(off, 4096);
    for (int i = 0; has_data && i < w->nlocal; i++) {
        if (w->flavor == RMAIB_FLAVOR_ALLOCATE)
            off = align_up(off, RMAIB_CACHELINE);
        else if (w->noncontig)
            off = align_up(off, 4096);
        data_off[i] = off;
        off += rmaib_peer(w, w->local_ranks[i])->size;
    }
    s->seg_size = align_up(off ? off : 1, 4096);
    return w->local_ranks[0];
}

/* The leader's new segment, named in hello (a /proc path unless named), or -1
 * with hello->status set. */
static int shm_create(shm_win_t *s, shm_hello_t *hello, int named)
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
        hello->status = RMAIB_ERR_NO_MEM;
    }
    return fd;
}

/* Map the segment (the leader's fd, which stays open until every rank has mapped
 * it, or opened by name). */
static int shm_map(shm_win_t *s, int fd, const char *name)
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

/* Nodes are numbered in order of their lowest rank (win.c): called for r = 0, 1, ...
 * in turn, is r its node's lowest rank, which makes the node's segment? */
static int node_leader(const rmaib_win_t *w, int r, int *nodes_seen)
{
    if (rmaib_peer_node(w, r) < *nodes_seen)
        return 0;
    ++*nodes_seen;
    return 1;
}

static void shm_fill_peers(rmaib_win_t *w, shm_win_t *s, const size_t *data_off, int has_data);

/* Our part is mapped (st): the peers' control blocks and memory as mapped, and the
 * network's early set-up (transport.h), before the agreement that ends ours.  The
 * layout again first: the fallback's segment may follow a first one filled in. */
static int shm_ready(rmaib_win_t *w, shm_win_t *s, size_t *data_off, int has_data, int st)
{
    if (st != RMAIB_OK)
        return st;
    shm_layout(w, s, data_off, has_data);
    shm_fill_peers(w, s, data_off, has_data);
    return rmaib_transport_win_early(w);
}

/* Make and map the node's segment; named: the fallback (see the top).  On failure
 * nothing is left mapped, open or named; *retry: only the segments' creation or
 * mapping failed, where the fallback may do better (every rank decides alike). */
static int shm_segment(rmaib_win_t *w, shm_win_t *s, size_t *data_off, int has_data,
                       shm_hello_t *hello, shm_hello_t *hellos, int leader, int named,
                       int *retry)
{
    int fd = -1, rc;
    *retry = 0;
    hello->name[0] = 0;
    if (hello->status == RMAIB_OK && w->rank == leader)
        fd = shm_create(s, hello, named);
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
    if (rc == RMAIB_OK) {
        /* (also "all have mapped it") */
        rc = agree(w, shm_ready(w, s, data_off, has_data, shm_map(s, fd, hellos[leader].name)));
        if (rc != RMAIB_OK && s->seg) {
            munmap(s->seg, s->seg_size);
            s->seg = NULL;
        }
    }
    if (fd >= 0)
        close(fd);
    if (w->rank == leader && named && hello->name[0])
        shm_unlink(hello->name);
    return rc;
}

/* No rank shares a node (each is its node's only rank): the segment is ours
 * alone, and it needs no exchange, only the agreement that every rank made its
 * own (with the named fallback where a memfd failed). */
static int shm_segment_alone(rmaib_win_t *w, shm_win_t *s, size_t *data_off,
                             int has_data, int status)
{
    int rc = status;
    for (int named = 0; status == RMAIB_OK && named < 2; named++) {
        shm_hello_t hello = { .status = RMAIB_OK };
        int fd = shm_create(s, &hello, named);
        rc = hello.status == RMAIB_OK ? shm_map(s, fd, hello.name) : hello.status;
        if (fd >= 0)
            close(fd);
        if (named && hello.name[0])
            shm_unlink(hello.name);
        if (rc == RMAIB_OK)
            break;
    }
    rc = agree(w, shm_ready(w, s, data_off, has_data, rc));
    if (rc != RMAIB_OK && s && s->seg) {       /* (s: NULL if this rank ran out) */
        munmap(s->seg, s->seg_size);
        s->seg = NULL;
    }
    return rc;
}

/* Does this window reach a local peer's memory with process_vm_* (memory the user
 * brought, or the collective buffers of cma_peers), on a kernel whose Yama lets
 * only named processes do that to us? */
static int cma_needs_ptracer(const rmaib_win_t *w, int has_data)
{
    static _Atomic int scope = -2;
    if ((has_data && !w->cma_peers) || w->nlocal < 2)
        return 0;
    if (scope == -2)
        scope = rmaib_yama_scope(RMAIB_YAMA_SCOPE_PATH);
    return scope == 1;
}

/* Let the node's ranks attach to us: name their nearest common ancestor (the
 * launcher) as our ptracer, or anyone if they have none within reach. */
static void cma_allow_peers(const rmaib_win_t *w, const shm_hello_t *hellos, const int64_t *mine)
{
    int n = 0, idx = -1;
    int64_t *chains = malloc(sizeof hellos->anc * (size_t) w->nlocal);
    for (int i = 0; chains && i < w->nlocal; i++)
        memcpy(chains + (size_t) RMAIB_PTRACER_DEPTH * n++, hellos[w->local_ranks[i]].anc,
               sizeof hellos->anc);
    if (chains)
        idx = rmaib_ptracer_pick(mine, chains, n);
    free(chains);
    if (rmaib_ptracer_allow(mine, idx) != 0)
        rmaib_host_say("rmaib: prctl(PR_SET_PTRACER) failed: %s; local peers may not reach "
                       "this window's memory", strerror(errno));
    else if (rmaib_config.verbose)
        rmaib_host_say("rmaib: Yama ptrace_scope 1: %s may attach to this process",
                       idx < 0 ? "any process of this user" : "the ranks' launcher and its descendants");
}

/* Each local peer's control block and data, as mapped; and the window's. */
static void shm_fill_peers(rmaib_win_t *w, shm_win_t *s, const size_t *data_off, int has_data)
{
    for (int i = 0; i < w->nlocal; i++) {
        int r = w->local_ranks[i];
        shm_peer_t *sp = &s->peers[i];
        rmaib_peer_t *pe = rmaib_peer(w, r);    /* (open since creation) */
        sp->ctrl = (char *) s->seg + (uintptr_t) sp->ctrl;
        sp->stripes = sp->ctrl + rmaib_win_ctrl_size(w);
        if (rmaib_shm_dyn_table_size(w))
            sp->dyn = (shm_dyn_table_t *) (sp->stripes + SHM_ACC_STRIPES_SIZE);
        sp->pid = pe->pid;
        sp->dlo = sp->alo = 1;  /* empty ranges, until set */
        sp->dhi = sp->ahi = 0;
        if (has_data) {
            sp->dlo = sp->alo = 0;
            sp->dhi = sp->ahi = UINT64_MAX;
            sp->dbase = (uintptr_t) s->seg + data_off[i];
        } else if (r == w->rank) {
            sp->dlo = 0;        /* own memory: dynamic offsets are addresses */
            sp->dhi = UINT64_MAX;
            sp->dbase = w->flavor == RMAIB_FLAVOR_DYNAMIC ? 0 : (uintptr_t) w->base;
        } else {
            sp->va = w->flavor == RMAIB_FLAVOR_DYNAMIC ? 0 : pe->base;
        }
        if (pe->tp == &rmaib_shm_ops)
            pe->tpp = sp;
        if (w->ctrl_cpu == RMAIB_CTRL_CPU_ALL
            || (w->ctrl_cpu == RMAIB_CTRL_CPU_SELF && r == w->rank))
            pe->ctrl_mapped = sp->ctrl;
        /* (data_off: aligned for any element, so an offset aligned is an address) */
        pe->elem_native = w->ctrl_cpu == RMAIB_CTRL_CPU_ALL && has_data && !sp->dyn
            && sp->dbase % 16 == 0;
    }
    shm_peer_t *me = &s->peers[local_index(w, w->rank)];
    w->my_ctrl = (struct rmaib_ctrl *) me->ctrl;
    if (has_data) {
        w->base = (void *) me->dbase;
        for (int i = 0; i < w->nlocal; i++)
            rmaib_peer(w, w->local_ranks[i])->base = s->peers[i].dbase;
    }
}

enum { UMEM_NONE, UMEM_MAPPED, UMEM_REFUSED };

typedef struct umem_hello {
    int32_t state;      /* UMEM_* */
    uint64_t lo, hi;    /* the moved pages, as window offsets */
    char name[SHM_NAME_LEN];    /* the memfd, "/proc/PID/fd/N" */
} umem_hello_t;

/* Our pages back to private memory, the peers' unmapped, every range as before. */
static void umem_undo(rmaib_win_t *w, shm_win_t *s)
{
    for (int i = 0; i < w->nlocal; i++) {
        shm_peer_t *sp = &s->peers[i];
        if (sp->umap) {
            munmap(sp->umap, sp->umap_len);
            sp->umap = NULL;
            sp->dlo = 1;
            sp->dhi = 0;
        }
        sp->alo = 1;
        sp->ahi = 0;
    }
    rmaib_umem_unmap(s->umem);
    s->umem = NULL;
}

/* Map a local peer's moved pages here; RMAIB_OK or RMAIB_ERR_NO_MEM. */
static int umem_map_peer(shm_peer_t *sp, const umem_hello_t *h)
{
    size_t len = (size_t) (h->hi - h->lo);
    int fd = open(h->name, O_RDWR | O_CLOEXEC);
    void *m = fd < 0 ? MAP_FAILED : mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED) {
        if (rmaib_config.verbose)
            rmaib_host_say("rmaib: cannot map a peer's window memory (%s): %s; it stays on "
                           "process_vm", h->name, strerror(errno));
        return RMAIB_ERR_NO_MEM;
    }
    sp->umap = m;
    sp->umap_len = len;
    return RMAIB_OK;
}

/* MPI_Win_create: move the whole pages of our region into a memfd and map those of
 * the local peers.  All or nothing per node (one rank refusing, or told not to, keeps
 * the node on process_vm_*), so every origin, the owner included, sees the same
 * ranges and takes the same accumulate path on each element; every rank agrees
 * before any range is used.  Failing to map is no error: process_vm_* still works. */
static int umem_setup(rmaib_win_t *w, shm_win_t *s)
{
    int p = w->nranks, local = 0, node_ok = 1, fd = -1, li;
    umem_hello_t mine = { .state = UMEM_NONE }, small[RMAIB_SMALL_GROUP], *all = small;
    char why[200] = "";
    if (w->nnodes == p)         /* no rank shares a node: every rank skips alike */
        return RMAIB_OK;
    if (p > RMAIB_SMALL_GROUP)
        all = malloc(sizeof *all * (size_t) p);
    int rc = p > RMAIB_SMALL_GROUP ? agree(w, all ? RMAIB_OK : RMAIB_ERR_NO_MEM) : RMAIB_OK;
    if (rc != RMAIB_OK) {
        free(all);
        return RMAIB_OK;
    }
    for (int i = 0; i < w->nlocal; i++)         /* (RMAIB_TRANSPORT=ofi: none) */
        local += rmaib_peer(w, w->local_ranks[i])->tp == &rmaib_shm_ops;
    if (!w->map_user) {
        mine.state = UMEM_REFUSED;
    } else if (local > 1) {
        s->umem = rmaib_umem_map(w->base, w->size, &mine.lo, &mine.hi, &fd, why, sizeof why);
        mine.state = s->umem ? UMEM_MAPPED : why[0] ? UMEM_REFUSED : UMEM_NONE;
        if (s->umem)
            snprintf(mine.name, sizeof mine.name, "/proc/%d/fd/%d", (int) getpid(), fd);
        else if (why[0] && rmaib_config.verbose)
            rmaib_host_say("rmaib: MPI_Win_create memory at %p (%zu bytes) stays on "
                           "process_vm: %s", w->base, w->size, why);
    }
    rc = rmaib_host_allgather(w->hcomm, &mine, all, sizeof mine);
    for (li = 0; rc == RMAIB_OK && li < w->nlocal; li++)
        if (all[w->local_ranks[li]].state == UMEM_REFUSED)
            node_ok = 0;
    int st = RMAIB_OK;
    for (li = 0; rc == RMAIB_OK && node_ok && st == RMAIB_OK && li < w->nlocal; li++) {
        int r = w->local_ranks[li];
        if (r != w->rank && all[r].state == UMEM_MAPPED)
            st = umem_map_peer(&s->peers[li], &all[r]);
    }
    if (rc == RMAIB_OK)
        rc = agree(w, st);
    if (rc != RMAIB_OK || !node_ok) {
        umem_undo(w, s);
        goto fn_exit;
    }
    for (li = 0; li < w->nlocal; li++) {
        int r = w->local_ranks[li];
        shm_peer_t *sp = &s->peers[li];
        if (all[r].state != UMEM_MAPPED)
            continue;
        sp->alo = all[r].lo;
        sp->ahi = all[r].hi;
        if (r != w->rank) {
            sp->dbase = (uintptr_t) sp->umap - all[r].lo;
            sp->dlo = all[r].lo;
            sp->dhi = all[r].hi;
        }
    }
  fn_exit:
    if (all != small)
        free(all);
    return RMAIB_OK;
}

static int shm_win_init(rmaib_win_t *w)
{
    int p = w->nranks, rc = RMAIB_OK;
    int has_data = w->flavor == RMAIB_FLAVOR_ALLOCATE || w->flavor == RMAIB_FLAVOR_SHARED;
    int leader = -1;
    shm_hello_t hello = { .status = w->setup_status }, small[RMAIB_SMALL_GROUP], *hellos = small;
    size_t *data_off = NULL;

    shm_win_t *s = calloc(1, sizeof *s + sizeof(shm_peer_t) * (size_t) w->nlocal);
    data_off = calloc((size_t) w->nlocal, sizeof *data_off);
    int alone = w->nnodes == p;
    if (p > RMAIB_SMALL_GROUP && !alone)
        hellos = malloc(sizeof *hellos * (size_t) p);
    if (!s || !data_off || !hellos)
        hello.status = hello.status != RMAIB_OK ? hello.status : RMAIB_ERR_NO_MEM;
    else
        pthread_rwlock_init(&s->dyn_lock, NULL);
    if (w->flavor == RMAIB_FLAVOR_SHARED && w->nnodes > 1)
        hello.status = RMAIB_ERR_RMA_SHARED;   /* every rank sees the same node map */
    if (hello.status == RMAIB_OK)
        leader = shm_layout(w, s, data_off, has_data);
    int ptracer = cma_needs_ptracer(w, has_data);
    if (ptracer)
        rmaib_ancestors(hello.anc);
    /* A rank out of memory joins the exchange with its error; in a large group,
     * where it may have no buffer for it, all agree first. */
    int retry = 0, mine = hello.status;
    if (alone)
        rc = shm_segment_alone(w, s, data_off, has_data, hello.status);
    else if ((rc = p > RMAIB_SMALL_GROUP ? agree(w, hello.status) : RMAIB_OK) == RMAIB_OK)
        rc = shm_segment(w, s, data_off, has_data, &hello, hellos, leader, 0, &retry);
    if (rc != RMAIB_OK && retry) {      /* every rank saw the same: all try a named one */
        hello.status = mine;
        rc = shm_segment(w, s, data_off, has_data, &hello, hellos, leader, 1, &retry);
    }
    if (rc != RMAIB_OK)
        goto fn_fail;

    if (ptracer)
        cma_allow_peers(w, hellos, hello.anc);
    w->shm = s;
    if (w->flavor == RMAIB_FLAVOR_CREATE) {
        umem_setup(w, s);
        if (w->size)    /* after: a window's own region is no obstacle to it */
            s->hold = rmaib_umem_hold(w->base, w->size);
    }
    free(data_off);
    if (hellos != small)
        free(hellos);
    return RMAIB_OK;

  fn_fail:
    if (s)
        pthread_rwlock_destroy(&s->dyn_lock);
    free(s);
    free(data_off);
    if (hellos != small)
        free(hellos);
    return rc;
}

static void shm_win_fini(rmaib_win_t *w)
{
    shm_win_t *s = w->shm;
    if (!s)
        return;
    for (int i = 0; i < w->nlocal; i++)
        rmaib_peer(w, w->local_ranks[i])->ctrl_mapped = NULL;
    umem_undo(w, s);
    if (s->hold)
        rmaib_umem_unhold(s->hold);
    rmaib_shm_dyn_fini(w);
    munmap(s->seg, s->seg_size);
    pthread_rwlock_destroy(&s->dyn_lock);
    free(s);
    w->shm = NULL;
}

/* process_vm_* may move fewer bytes than asked (an iovec boundary); go on from there. */
int rmaib_shm_pvm(int pid, int write, struct iovec *l, size_t nl, struct iovec *r, size_t nr)
{
    while (nl > 0 && nr > 0) {
        size_t cl = nl > IOV_MAX ? IOV_MAX : nl, cr = nr > IOV_MAX ? IOV_MAX : nr;
        ssize_t n = write ? process_vm_writev(pid, l, cl, r, cr, 0)
            : process_vm_readv(pid, l, cl, r, cr, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rmaib_host_say("rmaib: process_vm_%s to pid %d failed: %s", write ? "writev" : "readv",
                           (int) pid, strerror(errno));
            return RMAIB_ERR_TRANSPORT;
        }
        for (size_t done = (size_t) n; done > 0;) {     /* advance both lists by n bytes */
            size_t k = done < l->iov_len ? done : l->iov_len;
            l->iov_base = (char *) l->iov_base + k;
            l->iov_len -= k;
            done -= k;
            if (l->iov_len == 0) {
                l++;
                nl--;
            }
        }
        for (size_t done = (size_t) n; done > 0;) {
            size_t k = done < r->iov_len ? done : r->iov_len;
            r->iov_base = (char *) r->iov_base + k;
            r->iov_len -= k;
            done -= k;
            if (r->iov_len == 0) {
                r++;
                nr--;
            }
        }
        while (nl > 0 && l->iov_len == 0) {
            l++;
            nl--;
        }
        while (nr > 0 && r->iov_len == 0) {
            r++;
            nr--;
        }
        if (n == 0 && nl > 0)
            return RMAIB_ERR_TRANSPORT;
    }
    return RMAIB_OK;
}

/* Segments in the peer's mapped range are copied here; the others (the edges of a
 * user region that are not whole pages, or all of one that stayed where it was) go
 * out in batches of process_vm_*.  Nothing orders the segments of one call. */
static int shm_xferv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n, int write)
{
    shm_peer_t *sp = shm_tpp(w, peer);
    enum { BATCH = 256 };
    struct iovec l[BATCH], r[BATCH];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (shm_direct(sp, segs[i].roff, segs[i].len)) {
            char *remote = (char *) (sp->dbase + segs[i].roff);
            if (write)
                memcpy(remote, segs[i].laddr, segs[i].len);
            else
                memcpy(segs[i].laddr, remote, segs[i].len);
            continue;
        }
        if (rmaib_shm_dyn_copy(w, peer, segs[i].roff, segs[i].laddr, segs[i].len, write))
            continue;
        l[k].iov_base = segs[i].laddr;
        l[k].iov_len = segs[i].len;
        r[k].iov_base = (void *) (uintptr_t) (sp->va + segs[i].roff);
        r[k].iov_len = segs[i].len;
        if (++k == BATCH) {
            int rc = rmaib_shm_pvm(sp->pid, write, l, k, r, k);
            if (rc != RMAIB_OK)
                return rc;
            k = 0;
        }
    }
    return k ? rmaib_shm_pvm(sp->pid, write, l, k, r, k) : RMAIB_OK;
}

static int shm_put(rmaib_win_t *w, int peer, uint64_t roff, const void *src, size_t len)
{
    shm_peer_t *sp = shm_tpp(w, peer);
    if (shm_direct(sp, roff, len)) {
        shm_copy((char *) (sp->dbase + roff), src, len);
        return RMAIB_OK;
    }
    rmaib_seg_t seg = { roff, (void *) src, len };
    return shm_xferv(w, peer, &seg, 1, 1);
}

static int shm_get(rmaib_win_t *w, int peer, uint64_t roff, void *dst, size_t len)
{
    shm_peer_t *sp = shm_tpp(w, peer);
    if (shm_direct(sp, roff, len)) {
        shm_copy(dst, (char *) (sp->dbase + roff), len);
        return RMAIB_OK;
    }
    rmaib_seg_t seg = { roff, dst, len };
    return shm_xferv(w, peer, &seg, 1, 0);
}

static int shm_putv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    return shm_xferv(w, peer, segs, n, 1);
}

static int shm_getv(rmaib_win_t *w, int peer, const rmaib_seg_t *segs, size_t n)
{
    return shm_xferv(w, peer, segs, n, 0);
}

/* The atomics transport may be shm only when the whole window is on one node, so the
 * peer's control block is always mapped here. */
static int shm_ctrl_atomic(rmaib_win_t *w, int peer, size_t off, rmaib_aop_t op,
                           uint64_t operand, uint64_t compare, uint64_t *result)
{
    uint64_t old = rmaib_cpu_ctrl_atomic(shm_tpp(w, peer)->ctrl + off, op, operand, compare);
    if (result)
        *result = old;
    return RMAIB_OK;
}

static int shm_ctrl_store(rmaib_win_t *w, int peer, size_t off, uint64_t value)
{
    __atomic_store_n((uint64_t *) (shm_tpp(w, peer)->ctrl + off), value, __ATOMIC_RELEASE);
    return RMAIB_OK;
}

static int shm_ctrl_read(rmaib_win_t *w, int peer, size_t off, void *dst, size_t len)
{
    memcpy(dst, shm_tpp(w, peer)->ctrl + off, len);
    atomic_thread_fence(memory_order_acquire);
    return RMAIB_OK;
}

/* Loads, stores and process_vm_* are complete when they return; what is left is
 * ordering them before whatever this process does next.  A release fence does that:
 * every synchronisation that could let a peer observe the data (an unlock, a flag,
 * a counter) is an atomic that follows it, and a full fence here would cost as much
 * as the whole put. */
static int shm_flush(rmaib_win_t *w, int peer)
{
    (void) w;
    (void) peer;
    atomic_thread_fence(memory_order_release);
    return RMAIB_OK;
}

static void shm_progress(void)
{
}

const rmaib_tp_ops_t rmaib_shm_ops = {
    .name = "shm",
    .reach = RMAIB_TP_NODE,
    .complete_at_issue = 1,
    .win_init = shm_win_init,
    .win_fini = shm_win_fini,
    .put = shm_put,
    .get = shm_get,
    .putv = shm_putv,
    .getv = shm_getv,
    .ctrl_atomic = shm_ctrl_atomic,
    .ctrl_store = shm_ctrl_store,
    .acc_native = rmaib_shm_acc_native,
    .acc_native_span = rmaib_shm_acc_native_span,
    .data_atomic = rmaib_shm_data_atomic,
    .data_cas = rmaib_shm_data_cas,
    .atomic_run = rmaib_shm_atomic_run,
    .elem_atomic = rmaib_shm_elem_atomic,
    .elem_acc = rmaib_shm_elem_acc,
    .ctrl_read = shm_ctrl_read,
    .flush = shm_flush,
    .flush_local = shm_flush,
    .progress = shm_progress,
    .attach = rmaib_shm_dyn_attach,
    .detach = rmaib_shm_dyn_detach,
};
