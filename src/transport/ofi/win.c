/*
 * The ofi backend's windows: the address vector (one entry per peer endpoint, for
 * every window), memory registration, window set-up and free, and dynamic windows'
 * key tables (attach, detach, an origin's cached copy of a target's).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "ofi_impl.h"
#include "rmaib_host.h"
#include "base/fault.h"

/* What each rank tells the others at window creation. */
typedef struct ofi_hello {
    int32_t status;
    uint32_t namelen;
    uint64_t data_va, data_key, ctrl_va, ctrl_key, ktab_va, ktab_key, box_va, box_key;
    uint32_t box_wid, pad;
    char name[OFI_NAME_MAX];
} ofi_hello_t;

/* The address cache is the process's, used by the windows of any thread. */
static pthread_mutex_t addr_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_inet(const struct sockaddr *sa, unsigned len, const char *name, size_t namelen)
{
    struct sockaddr_storage b;
    if (namelen > sizeof b || namelen < sizeof(struct sockaddr_in))
        return 0;
    memcpy(&b, name, namelen);
    if (sa->sa_family != b.ss_family)
        return 0;
    if (b.ss_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *x = (const struct sockaddr_in *) sa;
        const struct sockaddr_in *y = (const struct sockaddr_in *) &b;
        return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    if (b.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)
        && namelen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *) sa;
        const struct sockaddr_in6 *y = (const struct sockaddr_in6 *) &b;
        return x->sin6_port == y->sin6_port
            && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
    }
    return 0;
}

int rmaib_ofi_socket_is_ours(const struct sockaddr *sa, unsigned len, int local)
{
    if (local)
        return same_inet(sa, len, ofi.name, ofi.namelen);
    int ours = 0;
    pthread_mutex_lock(&addr_lock);
    for (size_t i = 0; i < ofi.naddrs && !ours; i++)
        ours = same_inet(sa, len, ofi.addrs[i].name, ofi.addrs[i].len);
    pthread_mutex_unlock(&addr_lock);
    return ours;
}

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Each endpoint name goes into the AV once per process, however many windows. */
static int lookup_addr_locked(const char *name, size_t len, fi_addr_t *fa, int *connected)
{
    uint64_t h = fnv1a(name, len);
    for (size_t i = 0; i < ofi.naddrs; i++)
        if (ofi.addrs[i].hash == h && ofi.addrs[i].len == len
            && memcmp(ofi.addrs[i].name, name, len) == 0) {
            *fa = ofi.addrs[i].fa;
            *connected = ofi.addrs[i].connected;
            return RMAIB_OK;
        }
    if (ofi.naddrs == ofi.addrs_cap) {
        size_t cap = ofi.addrs_cap ? 2 * ofi.addrs_cap : 64;
        ofi_addr_entry_t *a = realloc(ofi.addrs, cap * sizeof *a);
        if (!a)
            return RMAIB_ERR_NO_MEM;
        ofi.addrs = a;
        ofi.addrs_cap = cap;
    }
    if (fi_av_insert(ofi.av, name, 1, fa, 0, NULL) != 1)
        return RMAIB_ERR_TRANSPORT;
    ofi_addr_entry_t *e = &ofi.addrs[ofi.naddrs++];
    e->hash = h;
    e->len = len;
    memcpy(e->name, name, len);
    e->fa = *fa;
    e->connected = *connected = 0;
    return RMAIB_OK;
}

static int lookup_addr(const char *name, size_t len, fi_addr_t *fa, int *connected)
{
    pthread_mutex_lock(&addr_lock);
    int rc = lookup_addr_locked(name, len, fa, connected);
    pthread_mutex_unlock(&addr_lock);
    return rc;
}

static void mark_connected(fi_addr_t fa)
{
    pthread_mutex_lock(&addr_lock);
    for (size_t i = 0; i < ofi.naddrs; i++)
        if (ofi.addrs[i].fa == fa)
            ofi.addrs[i].connected = 1;
    pthread_mutex_unlock(&addr_lock);
}

/* Connection-oriented providers (tcp;ofi_rxm) connect at the first operation to a
 * peer, and a peer that is computing accepts only from its progress thread's
 * periodic progress.  Window creation, where every rank is inside rmaib, is the
 * cheap moment: read 8 bytes of each new peer's control block, all at once. */
static int connect_peers(rmaib_win_t *w, ofi_win_t *o, const int *connected)
{
    int p = w->nranks, rc = RMAIB_OK, n = 0;
    for (int r = 0; r < p; r++)
        n += !connected[r];
    if (n == 0)
        return RMAIB_OK;
    pool_blk_t *b = rmaib_ofi_pool_alloc((size_t) n * 8, NULL);
    char *buf = blk_data(b);
    ofi_waiter_t wt = { 0, 0 };
    for (int r = 0; r < p && rc == RMAIB_OK; r++) {
        if (connected[r])
            continue;
        ofi_peer_t *pe = &o->peers[r];
        ssize_t ret;
        atomic_fetch_add_explicit(&wt.pending, 1, memory_order_relaxed);
        POST(ret, fi_read(ofi.ep, buf, 8, ofi.pool_desc, pe->addr, pe->ctrl_raddr, pe->ctrl_key,
                          WAITER_CTX(&wt)));
        if (ret != 0) {
            atomic_fetch_sub_explicit(&wt.pending, 1, memory_order_relaxed);
            rc = rmaib_ofi_post_failed("connection set-up", ret);
        }
        buf += 8;
    }
    rc = rmaib_first_error(rc, wait_for(&wt));
    pool_release(b);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (!connected[r])
            mark_connected(o->peers[r].addr);
    return rc;
}

static int reg(void *base, size_t size, uint64_t access, struct fid_mr **mr, uint64_t *key)
{
    uint64_t want_key = atomic_fetch_add_explicit(&ofi.next_key, 1, memory_order_relaxed);
    int r = rmaib_fault(RMAIB_FAULT_MR_REG) ? -FI_ENOMEM
        : fi_mr_reg(ofi.domain, base, size, access, 0, want_key, 0, mr, NULL);
    if (r == 0 && ofi.mr_endpoint) {
        r = fi_mr_bind(*mr, &ofi.ep->fid, 0);
        if (r == 0)
            r = fi_mr_enable(*mr);
        if (r != 0) {
            fi_close(&(*mr)->fid);
            *mr = NULL;
        }
    }
    if (r != 0) {
        *mr = NULL;
        rmaib_host_say("rmaib: cannot register %zu bytes at %p with ofi: %s", size, base,
                       fi_strerror(-r));
        return r == -FI_ENOMEM ? RMAIB_ERR_NO_MEM : RMAIB_ERR_TRANSPORT;
    }
    *key = fi_mr_key(*mr);
    return RMAIB_OK;
}

static void win_release(rmaib_win_t *w, ofi_win_t *o)
{
    rmaib_ofi_amo_win_remove(o);
    for (int i = 0; i < RMAIB_MAX_ATTACH; i++)
        rmaib_ofi_close_fid(&o->attach_mr[i]);
    rmaib_ofi_close_fid(&o->data_mr);
    rmaib_ofi_close_fid(&o->ctrl_mr);
    rmaib_ofi_close_fid(&o->ktab_mr);
    rmaib_ofi_close_fid(&o->box_mr);
    free(o->ktab);
    free(o->box);
    for (int r = 0; r < w->nranks; r++) {
        free(o->peers[r].ktab);
        pthread_mutex_destroy(&o->peers[r].amo_lock);
        pthread_mutex_destroy(&o->peers[r].stage_lock);
        pthread_mutex_destroy(&o->peers[r].send_lock);
        pthread_mutex_destroy(&o->peers[r].ktab_lock);
    }
    free(o);
}

static ofi_win_t *win_alloc(rmaib_win_t *w)
{
    int p = w->nranks;
    ofi_win_t *o = calloc(1, sizeof *o + sizeof(ofi_peer_t) * (size_t) p);
    if (!o)
        return NULL;
    o->rank = w->rank;
    o->nranks = p;
    o->ctrl = (char *) w->my_ctrl;
    o->ctrl_size = rmaib_ctrl_size(w->ctrl_ranks, w->notify_max);
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC) {
        o->data = w->base;
        o->data_size = w->size;
    }
    for (int r = 0; r < p; r++) {
        pthread_mutex_init(&o->peers[r].amo_lock, NULL);
        pthread_mutex_init(&o->peers[r].stage_lock, NULL);
        pthread_mutex_init(&o->peers[r].send_lock, NULL);
        pthread_mutex_init(&o->peers[r].ktab_lock, NULL);
    }
    return o;
}

/* A dynamic window's own key table, registered for the origins to read. */
static int win_open_ktab(ofi_win_t *o, ofi_hello_t *mine)
{
    if (posix_memalign((void **) &o->ktab, 4096, sizeof *o->ktab) != 0) {
        o->ktab = NULL;
        return RMAIB_ERR_NO_MEM;
    }
    memset(o->ktab, 0, sizeof *o->ktab);
    mine->ktab_va = (uint64_t) (uintptr_t) o->ktab;
    return reg(o->ktab, sizeof *o->ktab, FI_REMOTE_READ, &o->ktab_mr, &mine->ktab_key);
}

/* The mailbox; a process out of window numbers goes without, and so then does the
 * whole window. */
static int win_open_box(ofi_win_t *o, int p, ofi_hello_t *mine)
{
    o->stage_bytes = rmaib_ofi_amo_stage_bytes(p);
    size_t bytes = rmaib_ofi_amo_stage_off(o, p);
    bytes = (bytes + 4095) & ~(size_t) 4095;
    if (posix_memalign((void **) &o->box, 4096, bytes) != 0) {
        o->box = NULL;
        return RMAIB_ERR_NO_MEM;
    }
    memset(o->box, 0, bytes);
    mine->box_va = (uint64_t) (uintptr_t) o->box;
    int rc = reg(o->box, bytes, FI_REMOTE_WRITE | FI_REMOTE_READ, &o->box_mr, &mine->box_key);
    if (rc == RMAIB_OK)
        mine->box_wid = o->wid = rmaib_ofi_amo_win_add(o);
    return rc;
}

/* Register what the peers reach, and say so in mine: the endpoint's name and the
 * keys, or in status why this rank cannot take part (o or the exchange's buffer
 * missing: out of memory). */
static void win_hello(rmaib_win_t *w, ofi_win_t *o, int have_all, ofi_hello_t *mine)
{
    const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
    memset(mine, 0, sizeof *mine);
    mine->status = RMAIB_OK;
    if (!have_all || !o)
        mine->status = RMAIB_ERR_NO_MEM;
    else if (!atomic_load(&ofi.up) || ofi.namelen > OFI_NAME_MAX)
        mine->status = RMAIB_ERR_TRANSPORT;
    if (mine->status == RMAIB_OK) {
        memcpy(mine->name, ofi.name, ofi.namelen);
        mine->namelen = (uint32_t) ofi.namelen;
        mine->data_va = (uint64_t) (uintptr_t) w->base;
        if (w->flavor != RMAIB_FLAVOR_DYNAMIC && w->size > 0)
            mine->status = reg(w->base, w->size, remote, &o->data_mr, &mine->data_key);
    }
    if (mine->status == RMAIB_OK) {
        mine->ctrl_va = (uint64_t) (uintptr_t) w->my_ctrl;
        mine->status = reg(w->my_ctrl, rmaib_ctrl_size(w->ctrl_ranks, w->notify_max), remote, &o->ctrl_mr,
                           &mine->ctrl_key);
    }
    if (mine->status == RMAIB_OK && w->flavor == RMAIB_FLAVOR_DYNAMIC)
        mine->status = win_open_ktab(o, mine);
    if (mine->status == RMAIB_OK && ofi.amo)
        mine->status = win_open_box(o, w->nranks, mine);
}

/* Control atomics go by the mailboxes if every rank has one. */
static int win_choose_amo(rmaib_win_t *w, ofi_win_t *o, const ofi_hello_t *all)
{
    o->amo = ofi.amo;
    for (int r = 0; r < w->nranks; r++)
        if (!all[r].box_wid)
            o->amo = 0;
    if (ofi.amo_only && !o->amo) {      /* every rank sees the same boxes, so all fail */
        if (w->rank == 0)
            rmaib_host_say("rmaib: %s has no atomics and a rank of this window is out of "
                           "mailboxes (%d ofi windows at once)", ofi.info->fabric_attr->prov_name,
                           AMO_MAX_WINS);
        return RMAIB_ERR_NO_MEM;
    }
    return RMAIB_OK;
}

/* Each peer's address and keys from its hello; then connect to the new ones. */
static int win_peers(rmaib_win_t *w, ofi_win_t *o, const ofi_hello_t *all)
{
    int p = w->nranks, ins = RMAIB_OK;
    int *connected = calloc((size_t) p, sizeof(int));
    if (!connected)
        ins = RMAIB_ERR_NO_MEM;
    for (int r = 0; r < p && ins == RMAIB_OK; r++) {
        ofi_peer_t *pe = &o->peers[r];
        const ofi_hello_t *h = &all[r];
        ins = lookup_addr(h->name, h->namelen, &pe->addr, &connected[r]);
        pe->data_va = h->data_va;
        pe->data_raddr = wire_addr(h->data_va, h->data_va);
        pe->data_key = h->data_key;
        pe->ctrl_raddr = wire_addr(h->ctrl_va, h->ctrl_va);
        pe->ctrl_key = h->ctrl_key;
        pe->ktab_raddr = wire_addr(h->ktab_va, h->ktab_va);
        pe->ktab_key = h->ktab_key;
        pe->box_raddr = wire_addr(h->box_va, h->box_va);
        pe->box_key = h->box_key;
        pe->box_wid = h->box_wid;
        atomic_init(&pe->done, 0);
        atomic_init(&pe->err, 0);
    }
    if (ins == RMAIB_OK)
        ins = connect_peers(w, o, connected);
    free(connected);
    return ins;
}

int rmaib_ofi_peer_open(rmaib_win_t *w, int rank, rmaib_peer_t *peer)
{
    ofi_win_t *o = w->ofi;
    if (o)              /* (before our win_init: open_early, after it) */
        peer->tpp = &o->peers[rank];
    return RMAIB_OK;
}

/* The entries opened before our set-up (the node-local ranks'), where we carry
 * their data. */
static void open_early(rmaib_win_t *w, rmaib_peer_ent_t *e, void *arg)
{
    (void) arg;
    if (e->p.tp == &rmaib_ofi_ops)
        rmaib_ofi_peer_open(w, e->rank, &e->p);
}

int rmaib_ofi_win_init(rmaib_win_t *w)
{
    /* The network is in use exactly when it carries the window's atomics, which
     * every rank of the group decides alike. */
    if (w->atp != &rmaib_ofi_ops)
        return RMAIB_OK;
    int p = w->nranks, rc = RMAIB_OK;
    ofi_hello_t mine, *all = malloc(sizeof *all * (size_t) p);
    ofi_win_t *o = win_alloc(w);
    win_hello(w, o, all != NULL, &mine);
    /* A rank that ran out of memory joins the agreement, and nobody exchanges. */
    rc = rmaib_host_agree(w->hcomm, p, all ? RMAIB_OK : RMAIB_ERR_NO_MEM);
    if (rc == RMAIB_OK)
        rc = rmaib_host_allgather(w->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].status != RMAIB_OK)
            rc = all[r].status;
    if (rc != RMAIB_OK)
        goto fn_fail;
    rc = win_choose_amo(w, o, all);
    if (rc != RMAIB_OK)
        goto fn_fail;
    int ins = win_peers(w, o, all);
    /* One more exchange so that no rank keeps a window a peer could not set up. */
    int *st = (int *) all;
    rc = rmaib_host_allgather(w->hcomm, &ins, st, sizeof(int));
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (st[r] != RMAIB_OK)
            rc = st[r];
    if (rc != RMAIB_OK)
        goto fn_fail;
    free(all);
    w->ofi = o;
    rmaib_peer_foreach(w, open_early, NULL);
    return RMAIB_OK;

  fn_fail:
    if (o)
        win_release(w, o);
    free(all);
    return rc;
}

void rmaib_ofi_win_fini(rmaib_win_t *w)
{
    ofi_win_t *o = w->ofi;
    if (!o)
        return;
    rmaib_ofi_quiesce(w);                         /* nothing may still credit this window */
    win_release(w, o);
    w->ofi = NULL;
}

int rmaib_ofi_attach(rmaib_win_t *w, void *base, size_t size)
{
    ofi_win_t *o = w->ofi;
    if (!o || !o->ktab)
        return RMAIB_OK;
    ofi_ktab_t *t = o->ktab;
    if (t->n == RMAIB_MAX_ATTACH)
        return RMAIB_ERR_RMA_ATTACH;
    uint64_t key;
    int rc = reg(base, size, FI_REMOTE_READ | FI_REMOTE_WRITE, &o->attach_mr[t->n], &key);
    if (rc != RMAIB_OK)
        return rc;
    atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
    t->e[t->n].base = (uint64_t) (uintptr_t) base;
    t->e[t->n].size = size;
    t->e[t->n].key = key;
    t->n++;
    atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
    return RMAIB_OK;
}

void rmaib_ofi_detach(rmaib_win_t *w, const void *base)
{
    ofi_win_t *o = w->ofi;
    if (!o || !o->ktab)
        return;
    ofi_ktab_t *t = o->ktab;
    for (uint64_t i = 0; i < t->n; i++)
        if (t->e[i].base == (uint64_t) (uintptr_t) base) {
            atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
            struct fid_mr *mr = o->attach_mr[i];
            t->e[i] = t->e[t->n - 1];
            o->attach_mr[i] = o->attach_mr[t->n - 1];
            o->attach_mr[t->n - 1] = NULL;
            t->n--;
            atomic_store((_Atomic uint64_t *) &t->gen, t->gen + 1);
            fi_close(&mr->fid);
            return;
        }
}

/* A consistent copy of a dynamic target's key table, read again only when the
 * target's generation has moved. */
int rmaib_ofi_ktab_refresh(ofi_peer_t *p)
{
    uint64_t gen;
    RMAIB_BACKOFF(bo);
    if (!p->ktab) {
        p->ktab = malloc(sizeof *p->ktab);
        if (!p->ktab)
            return RMAIB_ERR_NO_MEM;
        p->ktab->gen = 1;       /* odd: never valid */
    }
    int rc = rmaib_ofi_read_blocking(p, &gen, sizeof gen, p->ktab_raddr, p->ktab_key);
    while (rc == RMAIB_OK && gen != p->ktab->gen) {
        ofi_ktab_t *t = p->ktab;
        rc = rmaib_ofi_read_blocking(p, t, 2 * sizeof(uint64_t), p->ktab_raddr, p->ktab_key);
        if (rc == RMAIB_OK && t->n > RMAIB_MAX_ATTACH)
            rc = RMAIB_ERR_INTERN;
        if (rc == RMAIB_OK && t->n)
            rc = rmaib_ofi_read_blocking(p, t->e, t->n * sizeof t->e[0],
                               p->ktab_raddr + offsetof(ofi_ktab_t, e), p->ktab_key);
        if (rc == RMAIB_OK)
            rc = rmaib_ofi_read_blocking(p, &gen, sizeof gen, p->ktab_raddr, p->ktab_key);
        if (rc == RMAIB_OK && ((t->gen & 1) || gen != t->gen)) {
            t->gen = 1;
            rmaib_backoff(&bo);
        }
    }
    return rc;
}

/* Regions attached back to back may be covered by one access (the core's range check
 * allows it, as MPICH does), but each has its own key: cut the pieces of a dynamic
 * window's transfer at region ends.  *out is segs itself when nothing is cut, else an
 * array the caller frees (*tofree).  Refreshes the peer's key table first. */
int rmaib_ofi_dyn_cut(rmaib_win_t *w, ofi_peer_t *p, const rmaib_seg_t *segs, size_t n,
                      const rmaib_seg_t **out, size_t *nout, rmaib_seg_t **tofree)
{
    *out = segs;
    *nout = n;
    *tofree = NULL;
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC)
        return RMAIB_OK;
    int rc = dyn_prepare(w, p);
    if (rc != RMAIB_OK)
        return rc;
    const ofi_ktab_t *t = p->ktab;
    rmaib_seg_t *cut = NULL;
    size_t pieces = 0;
    for (int pass = 0; pass < 2; pass++) {     /* count, then fill */
        pieces = 0;
        for (size_t j = 0; j < n; j++) {
            uint64_t off = segs[j].roff;
            size_t left = segs[j].len;
            char *la = segs[j].laddr;
            while (left > 0) {
                size_t fit = 0;
                for (uint64_t i = 0; t && i < t->n; i++)
                    if (off >= t->e[i].base && off < t->e[i].base + t->e[i].size) {
                        uint64_t room = t->e[i].base + t->e[i].size - off;
                        fit = room < left ? (size_t) room : left;
                        break;
                    }
                if (fit == 0) {
                    free(cut);
                    return RMAIB_ERR_RMA_RANGE;
                }
                if (cut)
                    cut[pieces] = (rmaib_seg_t) { off, la, fit };
                pieces++;
                off += fit;
                la += fit;
                left -= fit;
            }
        }
        if (pieces == n)
            return RMAIB_OK;    /* nothing crosses a region end */
        if (!cut && !(cut = malloc(pieces * sizeof *cut)))
            return RMAIB_ERR_NO_MEM;
    }
    *out = *tofree = cut;
    *nout = pieces;
    return RMAIB_OK;
}
