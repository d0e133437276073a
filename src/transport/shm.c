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
 * regions, which peers map as they first reach them (shm_dyn.c).  shm_seg.c makes
 * the segment and lets the node's ranks find it.
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

/* Layout: the local control blocks side by side, then their accumulate stripes
 * (shm_acc.c), then their attach tables (shm_dyn.c), then (page-aligned) the local
 * window memory.  Packed so: a fence touches its partners' control blocks, and the
 * node's fill a page or two instead of one page each.  Shared windows are
 * contiguous by default: rank r+1's memory starts right after rank r's; otherwise
 * each part starts on its own cache line or page.  Control blocks get their offsets
 * in s->peers[i].ctrl (fixed up after mmap), data in data_off[i], for the i-th
 * local rank; returns the node's lowest rank, which creates the segment. */
static int shm_layout(rmaib_win_t *w, shm_win_t *s, size_t *data_off, int has_data)
{
    size_t cs = rmaib_win_ctrl_size(w), n = (size_t) w->nlocal;
    for (size_t i = 0; i < n; i++)
        s->peers[i].ctrl = (char *) (i * cs);   /* fixed up after mmap */
    size_t off = align_up(n * (cs + SHM_ACC_STRIPES_SIZE + rmaib_shm_dyn_table_size(w)), 4096);
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

/* Each local peer's control block and data, as mapped; and the window's. */
static void shm_fill_peers(rmaib_win_t *w, shm_win_t *s, const size_t *data_off, int has_data)
{
    for (int i = 0; i < w->nlocal; i++) {
        int r = w->local_ranks[i];
        shm_peer_t *sp = &s->peers[i];
        rmaib_peer_t *pe = rmaib_peer(w, r);    /* (open since creation) */
        size_t n = (size_t) w->nlocal, dyn = rmaib_shm_dyn_table_size(w);
        char *stripes = (char *) s->seg + n * rmaib_win_ctrl_size(w);
        sp->ctrl = (char *) s->seg + (uintptr_t) sp->ctrl;
        sp->stripes = stripes + (size_t) i * SHM_ACC_STRIPES_SIZE;
        if (dyn)
            sp->dyn = (shm_dyn_table_t *) (stripes + n * SHM_ACC_STRIPES_SIZE + (size_t) i * dyn);
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

int rmaib_shm_ready(rmaib_win_t *w, shm_win_t *s, const shm_seg_args_t *a, int st)
{
    if (st != RMAIB_OK)
        return st;
    shm_layout(w, s, a->data_off, a->has_data);
    shm_fill_peers(w, s, a->data_off, a->has_data);
    return rmaib_transport_win_early(w);
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
    int has_data = w->flavor == RMAIB_FLAVOR_ALLOCATE || w->flavor == RMAIB_FLAVOR_SHARED;
    int status = w->setup_status;
    shm_win_t *s = calloc(1, sizeof *s + sizeof(shm_peer_t) * (size_t) w->nlocal);
    size_t *data_off = calloc((size_t) w->nlocal, sizeof *data_off);
    if (s)
        pthread_rwlock_init(&s->dyn_lock, NULL);
    if (!s || !data_off)
        status = status != RMAIB_OK ? status : RMAIB_ERR_NO_MEM;
    if (w->flavor == RMAIB_FLAVOR_SHARED && w->nnodes > 1)
        status = RMAIB_ERR_RMA_SHARED;  /* every rank sees the same node map */
    shm_seg_args_t a = { .data_off = data_off, .has_data = has_data, .leader = -1 };
    if (status == RMAIB_OK)
        a.leader = shm_layout(w, s, data_off, has_data);
    int rc = rmaib_shm_segment(w, s, &a, status);
    if (rc != RMAIB_OK)
        goto fn_fail;

    w->shm = s;
    if (w->flavor == RMAIB_FLAVOR_CREATE) {
        umem_setup(w, s);
        if (w->size)    /* after: a window's own region is no obstacle to it */
            s->hold = rmaib_umem_hold(w->base, w->size);
    }
    free(data_off);
    return RMAIB_OK;

  fn_fail:
    if (s)
        pthread_rwlock_destroy(&s->dyn_lock);
    free(s);
    free(data_off);
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
