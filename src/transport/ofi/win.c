/*
 * The ofi backend's windows: the address vector (one entry per peer endpoint, for
 * every window), memory registration, window set-up and free, and dynamic windows'
 * key tables (attach, detach, an origin's cached copy of a target's).
 *
 * A communicator's first window over the network exchanges every rank's hello
 * (endpoint name, keys, addresses), made within the node backend's last agreement,
 * and keeps the peers' address vector entries in the communicator's directory.  A
 * later allocated or dynamic window with a serial (w->serial), over a provider that
 * lets rmaib choose keys and addresses regions by offset, exchanges nothing: each
 * rank's keys and mailbox number follow from the serial and its regions start at 0
 * on the wire, so it sets up early (rmaib_ofi_win_early) within that agreement.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "ofi_impl.h"
#include "rmaib_host.h"
#include "base/fault.h"
#include "base/hash.h"

/* What each rank tells the others at window creation. */
typedef struct ofi_hello {
    int32_t status;
    uint32_t namelen;
    uint64_t provider;          /* the provider's name and address format, hashed */
    uint64_t data_va, data_key, ctrl_va, ctrl_key, ktab_va, ktab_key, box_va, box_key;
    uint32_t box_wid, pad;
    char name[OFI_NAME_MAX];
} ofi_hello_t;

/* The address cache is the process's, used by the windows of any thread.  Its
 * entries stay in the order inserted; two open-addressed tables of entry index + 1
 * find one by endpoint name (window creation) and by the inet address a socket
 * shows (sock_wait.c), each in O(1), so that P peers cost O(P), not O(P^2). */
static pthread_mutex_t addr_lock = PTHREAD_MUTEX_INITIALIZER;

/* An inet address as bytes (family, port, address), equal exactly for the same
 * endpoint; its length, or 0 for anything else. */
static size_t inet_key(const void *addr, size_t len, unsigned char key[OFI_INET_KEY])
{
    struct sockaddr_storage b;
    if (len > sizeof b || len < sizeof(struct sockaddr_in))
        return 0;
    memcpy(&b, addr, len);
    if (b.ss_family == AF_INET) {
        const struct sockaddr_in *x = (const struct sockaddr_in *) &b;
        key[0] = AF_INET;
        memcpy(key + 1, &x->sin_port, 2);
        memcpy(key + 3, &x->sin_addr, 4);
        return 7;
    }
    if (b.ss_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *x = (const struct sockaddr_in6 *) &b;
        key[0] = AF_INET6;
        memcpy(key + 1, &x->sin6_port, 2);
        memcpy(key + 3, &x->sin6_addr, 16);
        return 19;
    }
    return 0;
}

static int same_inet(const struct sockaddr *sa, unsigned len, const char *name, size_t namelen)
{
    unsigned char a[OFI_INET_KEY], b[OFI_INET_KEY];
    size_t la = inet_key(sa, len, a);
    return la && la == inet_key(name, namelen, b) && memcmp(a, b, la) == 0;
}

/* The slot of table t where the entry hashed h is, or the empty one it would go in;
 * same(i) tells whether entry i is the one sought. */
#define ADDR_PROBE(t, h, same, slot)                                            \
    do {                                                                        \
        size_t mask_ = ofi.addr_slots - 1;                                      \
        for ((slot) = (size_t) (h) & mask_; (t)[slot]; (slot) = ((slot) + 1) & mask_) { \
            size_t i = (t)[slot] - 1;                                           \
            (void) i;                                                           \
            if (same)                                                           \
                break;                                                          \
        }                                                                       \
    } while (0)

static void addr_index(size_t i)
{
    ofi_addr_entry_t *e = &ofi.addrs[i];
    size_t slot;
    ADDR_PROBE(ofi.addr_by_name, e->hash, 0, slot);
    ofi.addr_by_name[slot] = (uint32_t) i + 1;
    if (e->ilen) {
        ADDR_PROBE(ofi.addr_by_inet, e->ihash, 0, slot);
        ofi.addr_by_inet[slot] = (uint32_t) i + 1;
    }
}

/* Room for one more entry: the array and, at half full, tables twice the size. */
static int addr_grow(void)
{
    if (ofi.naddrs == ofi.addrs_cap) {
        size_t cap = ofi.addrs_cap ? 2 * ofi.addrs_cap : 64;
        ofi_addr_entry_t *a = cap < UINT32_MAX ? realloc(ofi.addrs, cap * sizeof *a) : NULL;
        if (!a)
            return RMAIB_ERR_NO_MEM;
        ofi.addrs = a;
        ofi.addrs_cap = cap;
    }
    if (2 * (ofi.naddrs + 1) <= ofi.addr_slots)
        return RMAIB_OK;
    size_t slots = ofi.addr_slots ? 2 * ofi.addr_slots : 128;
    uint32_t *byname = calloc(slots, sizeof *byname), *byinet = calloc(slots, sizeof *byinet);
    if (!byname || !byinet) {
        free(byname);
        free(byinet);
        return RMAIB_ERR_NO_MEM;
    }
    free(ofi.addr_by_name);
    free(ofi.addr_by_inet);
    ofi.addr_by_name = byname;
    ofi.addr_by_inet = byinet;
    ofi.addr_slots = slots;
    for (size_t i = 0; i < ofi.naddrs; i++)
        addr_index(i);
    return RMAIB_OK;
}

int rmaib_ofi_socket_is_ours(const struct sockaddr *sa, unsigned len, int local)
{
    if (local)
        return same_inet(sa, len, ofi.name, ofi.namelen);
    unsigned char key[OFI_INET_KEY];
    size_t klen = inet_key(sa, len, key), slot;
    if (!klen)
        return 0;
    uint64_t h = rmaib_fnv1a(RMAIB_FNV1A_INIT, key, klen);
    pthread_mutex_lock(&addr_lock);
    int ours = 0;
    if (ofi.addr_slots) {
        ADDR_PROBE(ofi.addr_by_inet, h, ofi.addrs[i].ihash == h && ofi.addrs[i].ilen == klen
                   && memcmp(ofi.addrs[i].ikey, key, klen) == 0, slot);
        ours = ofi.addr_by_inet[slot] != 0;
    }
    pthread_mutex_unlock(&addr_lock);
    return ours;
}

/* Each endpoint name goes into the AV once per process, however many windows:
 * *idx is its entry. */
static int lookup_addr_locked(const char *name, size_t len, fi_addr_t *fa, size_t *idx)
{
    uint64_t h = rmaib_fnv1a(RMAIB_FNV1A_INIT, name, len);
    size_t slot;
    if (ofi.addr_slots) {
        ADDR_PROBE(ofi.addr_by_name, h, ofi.addrs[i].hash == h && ofi.addrs[i].len == len
                   && memcmp(ofi.addrs[i].name, name, len) == 0, slot);
        if (ofi.addr_by_name[slot]) {
            *idx = ofi.addr_by_name[slot] - 1;
            *fa = ofi.addrs[*idx].fa;
            return RMAIB_OK;
        }
    }
    if (len > OFI_NAME_MAX || addr_grow() != RMAIB_OK)
        return RMAIB_ERR_NO_MEM;
    if (fi_av_insert(ofi.av, name, 1, fa, 0, NULL) != 1)
        return RMAIB_ERR_TRANSPORT;
    ofi_addr_entry_t *e = &ofi.addrs[ofi.naddrs];
    e->hash = h;
    e->len = len;
    memcpy(e->name, name, len);
    e->ilen = (uint8_t) inet_key(name, len, e->ikey);
    e->ihash = rmaib_fnv1a(RMAIB_FNV1A_INIT, e->ikey, e->ilen);
    e->fa = *fa;
    *idx = ofi.naddrs++;
    addr_index(*idx);
    return RMAIB_OK;
}

static int lookup_addr(const char *name, size_t len, fi_addr_t *fa)
{
    size_t idx;
    pthread_mutex_lock(&addr_lock);
    int rc = lookup_addr_locked(name, len, fa, &idx);
    pthread_mutex_unlock(&addr_lock);
    return rc;
}

/* want_key: the key asked for where the provider lets us choose (no FI_MR_PROV_KEY). */
static int reg(void *base, size_t size, uint64_t access, uint64_t want_key, struct fid_mr **mr,
               uint64_t *key)
{
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

static void win_release(ofi_win_t *o)
{
    rmaib_ofi_amo_win_remove(o);
    rmaib_ofi_cq_readers_out();         /* none still serves o's mailbox */
    for (int i = 0; o->attach_mr && i < RMAIB_MAX_ATTACH; i++)
        rmaib_ofi_close_fid(&o->attach_mr[i]);
    free(o->attach_mr);
    rmaib_ofi_close_fid(&o->data_mr);
    rmaib_ofi_close_fid(&o->ctrl_mr);
    rmaib_ofi_close_fid(&o->ktab_mr);
    rmaib_ofi_close_fid(&o->box_mr);
    free(o->ktab);
    if (o->box)
        munmap(o->box, o->box_bytes);
    rmaib_ofi_peers_free(o);
    free(o->early_hellos);
    pthread_mutex_destroy(&o->walk_lock);
    pthread_mutex_destroy(&o->open_lock);
    free(o);
}

static ofi_win_t *win_alloc(rmaib_win_t *w)
{
    int p = w->nranks;
    ofi_win_t *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->rank = w->rank;
    o->nranks = p;
    o->ctrl = (char *) w->my_ctrl;
    o->ctrl_size = rmaib_win_ctrl_size(w);
    if (w->flavor != RMAIB_FLAVOR_DYNAMIC) {
        o->data = w->base;
        o->data_size = w->size;
    }
    pthread_mutex_init(&o->walk_lock, NULL);
    pthread_mutex_init(&o->open_lock, NULL);
    for (int c = 0; c < OFI_COL_N; c++)
        o->col[c].base = -1;
    return o;
}

/* A dynamic window's own key table, registered for the origins to read. */
static int win_open_ktab(ofi_win_t *o, ofi_hello_t *mine, uint64_t key)
{
    o->attach_mr = calloc(RMAIB_MAX_ATTACH, sizeof *o->attach_mr);
    if (!o->attach_mr)
        return RMAIB_ERR_NO_MEM;
    if (posix_memalign((void **) &o->ktab, 4096, sizeof *o->ktab) != 0) {
        o->ktab = NULL;
        return RMAIB_ERR_NO_MEM;
    }
    memset(o->ktab, 0, sizeof *o->ktab);
    mine->ktab_va = (uint64_t) (uintptr_t) o->ktab;
    return reg(o->ktab, sizeof *o->ktab, FI_REMOTE_READ, key, &o->ktab_mr, &mine->ktab_key);
}

/* The mailbox; a process out of window numbers goes without, and so then does the
 * whole window. */
static int win_open_box(ofi_win_t *o, int p, ofi_hello_t *mine, uint64_t key, uint32_t want)
{
    o->stage_bytes = rmaib_ofi_amo_stage_bytes(p);
    size_t bytes = rmaib_ofi_amo_stage_off(o, p);
    bytes = (bytes + 4095) & ~(size_t) 4095;
    /* Fresh anonymous pages: zero, and memory only where an origin writes (each
     * origin's slots and stage are its own), so untouched origins cost address space. */
    o->box = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o->box == MAP_FAILED) {
        o->box = NULL;
        return RMAIB_ERR_NO_MEM;
    }
    o->box_bytes = bytes;
    mine->box_va = (uint64_t) (uintptr_t) o->box;
    int rc = rmaib_ofi_amo_reserve();
    if (rc == RMAIB_OK)
        rc = reg(o->box, bytes, FI_REMOTE_WRITE | FI_REMOTE_READ, key, &o->box_mr,
                 &mine->box_key);
    if (rc == RMAIB_OK)
        mine->box_wid = o->wid = rmaib_ofi_amo_win_add(o, want);
    return rc;
}

/* Ranks that picked different providers (RMAIB_OFI_PROVIDER set apart, or a
 * provider missing on some nodes) would exchange names none can use. */
static uint64_t provider_id(void)
{
    const char *name = ofi.info->fabric_attr->prov_name;
    return rmaib_fnv1a(RMAIB_FNV1A_INIT, name, strlen(name)) ^ ofi.info->addr_format;
}

/* Register what the peers reach, and say so in mine: the endpoint's name and the
 * keys, or in status why this rank cannot take part (o missing: out of memory).  Our keys are four in a row from key, the data's first
 * (taken whether or not it registers), so that peer.c keeps one column of them;
 * where every process made the same windows before, one value for all ranks.  wid:
 * the mailbox number wanted, or 0 for any. */
static void win_hello(rmaib_win_t *w, ofi_win_t *o, uint64_t key, uint32_t wid,
                      ofi_hello_t *mine)
{
    const uint64_t remote = FI_REMOTE_READ | FI_REMOTE_WRITE;
    memset(mine, 0, sizeof *mine);
    mine->data_key = key;
    mine->status = RMAIB_OK;
    if (!o)
        mine->status = RMAIB_ERR_NO_MEM;
    else if (!atomic_load(&ofi.up) || ofi.namelen > OFI_NAME_MAX)
        mine->status = RMAIB_ERR_TRANSPORT;
    if (mine->status == RMAIB_OK) {
        mine->provider = provider_id();
        memcpy(mine->name, ofi.name, ofi.namelen);
        mine->namelen = (uint32_t) ofi.namelen;
        mine->data_va = (uint64_t) (uintptr_t) w->base;
        if (w->flavor != RMAIB_FLAVOR_DYNAMIC && w->size > 0)
            mine->status = reg(w->base, w->size, remote, key, &o->data_mr, &mine->data_key);
    }
    if (mine->status == RMAIB_OK) {
        mine->ctrl_va = (uint64_t) (uintptr_t) w->my_ctrl;
        mine->status = reg(w->my_ctrl, rmaib_win_ctrl_size(w), remote, key + 1, &o->ctrl_mr,
                           &mine->ctrl_key);
    }
    if (mine->status == RMAIB_OK && w->flavor == RMAIB_FLAVOR_DYNAMIC)
        mine->status = win_open_ktab(o, mine, key + 2);
    if (mine->status == RMAIB_OK && ofi.amo)
        mine->status = win_open_box(o, w->nranks, mine, key + 3, wid);
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

/* One field of every hello, as peer.c's columns keep them. */
static uint64_t hello_field(const ofi_hello_t *h, int c)
{
    switch (c) {
    case OFI_COL_DATA_VA: return h->data_va & 63;
    case OFI_COL_DATA_RADDR: return wire_addr(h->data_va, h->data_va);
    case OFI_COL_DATA_KEY: return h->data_key;
    case OFI_COL_CTRL_RADDR: return wire_addr(h->ctrl_va, h->ctrl_va);
    case OFI_COL_CTRL_KEY: return h->ctrl_key;
    case OFI_COL_KTAB_RADDR: return wire_addr(h->ktab_va, h->ktab_va);
    case OFI_COL_KTAB_KEY: return h->ktab_key;
    case OFI_COL_BOX_RADDR: return wire_addr(h->box_va, h->box_va);
    case OFI_COL_BOX_KEY: return h->box_key;
    case OFI_COL_BOX_WID: return h->box_wid;
    }
    return 0;
}

/* Each peer's address and keys from its hello, into the columns.  No per-peer
 * record yet, and no connection: each is made at the peer's first access (over
 * tcp;ofi_rxm, a target that computes then accepts within its progress thread's
 * RESCAN_NS, sock_wait.c). */
static int win_peers(rmaib_win_t *w, ofi_win_t *o, const ofi_hello_t *all)
{
    int p = w->nranks, ins = RMAIB_OK;
    uint64_t *v = malloc((size_t) p * sizeof *v);
    if (!v)
        ins = RMAIB_ERR_NO_MEM;
    for (int r = 0; r < p && ins == RMAIB_OK; r++) {
        fi_addr_t fa;
        ins = lookup_addr(all[r].name, all[r].namelen, &fa);
        v[r] = fa;
    }
    for (int c = OFI_COL_AV; c < OFI_COL_N && ins == RMAIB_OK; c++) {
        for (int r = 0; c != OFI_COL_AV && r < p; r++)
            v[r] = hello_field(&all[r], c);
        ins = rmaib_ofi_col_set(o, c, v);
    }
    free(v);
    return ins;
}

/* What a communicator keeps of its first window over the network: the peers'
 * address vector entries, the same for every window of its group. */
typedef struct ofi_dir {
    ofi_col_t av;
} ofi_dir_t;

void rmaib_ofi_dir_free(void *state)
{
    ofi_dir_t *d = state;
    free(d->av.v);
    free(d);
}

static int col_copy(ofi_col_t *to, const ofi_col_t *from, int p)
{
    *to = *from;
    if (!from->v)
        return RMAIB_OK;
    size_t bytes = (size_t) from->width * (size_t) p;
    if (!(to->v = malloc(bytes)))
        return RMAIB_ERR_NO_MEM;
    memcpy(to->v, from->v, bytes);
    return RMAIB_OK;
}

/* Does the window need no exchange (see the top)?  Alike on every rank: the
 * directory and the serial are the group's, and every rank runs one provider. */
static int win_quick(const rmaib_win_t *w)
{
    return w->net_dir && *w->net_dir && w->serial && ofi.chosen_keys
        && (w->flavor == RMAIB_FLAVOR_ALLOCATE || w->flavor == RMAIB_FLAVOR_DYNAMIC);
}

/* A window that exchanges: its registrations and hello, made where the node
 * backend's agreement carries their status, so that the exchange needs no agreement
 * of its own before it. */
static int win_prepare(rmaib_win_t *w)
{
    ofi_hello_t *all = malloc(sizeof *all * (size_t) w->nranks);
    ofi_win_t *o = all ? win_alloc(w) : NULL;
    if (!o) {
        free(all);
        return RMAIB_ERR_NO_MEM;
    }
    o->early_hellos = all;
    win_hello(w, o, atomic_fetch_add_explicit(&ofi.next_key, 4, memory_order_relaxed), 0,
              &all[w->rank]);
    int rc = all[w->rank].status;
    if (rc != RMAIB_OK)
        win_release(o);
    else
        w->ofi = o;
    return rc;
}

int rmaib_ofi_win_early(rmaib_win_t *w)
{
    if (w->ofi) {               /* the node backend's segment again, after a failure */
        win_release(w->ofi);
        w->ofi = NULL;
    }
    if (!win_quick(w))
        return win_prepare(w);
    const ofi_dir_t *d = *w->net_dir;
    ofi_win_t *o = win_alloc(w);
    ofi_hello_t mine;
    win_hello(w, o, 4 * w->serial, (uint32_t) w->serial, &mine);
    int rc = mine.status;
    if (rc == RMAIB_OK && ofi.amo && !mine.box_wid)
        rc = RMAIB_ERR_NO_MEM;  /* (4096 windows with mailboxes at once) */
    /* Every rank's field is ours: the same keys, number, and offsets from 0. */
    for (int c = OFI_COL_AV + 1; rc == RMAIB_OK && c < OFI_COL_N; c++)
        o->col[c] = (ofi_col_t) { .same = hello_field(&mine, c), .base = -1 };
    if (rc == RMAIB_OK)
        rc = col_copy(&o->col[OFI_COL_AV], &d->av, w->nranks);
    if (rc != RMAIB_OK) {
        if (o)
            win_release(o);
        return rc;
    }
    o->amo = ofi.amo;
    w->ofi = o;
    return RMAIB_OK;
}

/* The communicator's first window: its address vector entries for the later ones
 * (*d NULL where the directory has them already or there is none). */
static int dir_make(rmaib_win_t *w, const ofi_win_t *o, ofi_dir_t **d)
{
    *d = NULL;
    if (!w->net_dir || *w->net_dir)
        return RMAIB_OK;
    if (!(*d = calloc(1, sizeof **d)) || col_copy(&(*d)->av, &o->col[OFI_COL_AV], w->nranks)) {
        free(*d);
        *d = NULL;
        return RMAIB_ERR_NO_MEM;
    }
    return RMAIB_OK;
}

int rmaib_ofi_win_init(rmaib_win_t *w)
{
    /* The network is in use exactly when it carries the window's atomics, which
     * every rank of the group decides alike. */
    if (w->atp != &rmaib_ofi_ops)
        return RMAIB_OK;
    if (win_quick(w))           /* set up early, or the node backend failed */
        return w->ofi ? RMAIB_OK : RMAIB_ERR_INTERN;
    int p = w->nranks, rc = RMAIB_OK;
    ofi_win_t *o = w->ofi;
    ofi_dir_t *d = NULL;
    /* Made in win_early, whose agreement said every rank has its hello. */
    if (!o || !o->early_hellos)
        return RMAIB_ERR_INTERN;
    ofi_hello_t mine, *all = o->early_hellos;
    o->early_hellos = NULL;
    w->ofi = NULL;
    mine = all[w->rank];
    rc = rmaib_host_allgather(w->hcomm, &mine, all, sizeof mine);
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].status != RMAIB_OK)
            rc = all[r].status;
    for (int r = 0; rc == RMAIB_OK && r < p; r++)
        if (all[r].provider != all[0].provider) {
            if (w->rank == 0)
                rmaib_host_say("rmaib: rank %d of this window runs another libfabric provider "
                               "than rank 0's %s (or another address format); set "
                               "RMAIB_OFI_PROVIDER alike on every rank", r,
                               ofi.info->fabric_attr->prov_name);
            rc = RMAIB_ERR_TRANSPORT;   /* (every rank sees the same hellos) */
        }
    if (rc != RMAIB_OK)
        goto fn_fail;
    rc = win_choose_amo(w, o, all);
    if (rc != RMAIB_OK)
        goto fn_fail;
    int ins = win_peers(w, o, all);
    if (ins == RMAIB_OK)
        ins = dir_make(w, o, &d);
    /* One more agreement so that no rank keeps a window a peer could not set up. */
    rc = rmaib_host_agree(w->hcomm, p, ins);
    if (rc != RMAIB_OK)
        goto fn_fail;
    if (d)
        *w->net_dir = d;
    free(all);
    w->ofi = o;
    return RMAIB_OK;

  fn_fail:
    if (d)
        rmaib_ofi_dir_free(d);
    if (o)
        win_release(o);
    free(all);
    return rc;
}

void rmaib_ofi_win_fini(rmaib_win_t *w)
{
    ofi_win_t *o = w->ofi;
    if (!o)
        return;
    rmaib_ofi_quiesce(w);                         /* nothing may still credit this window */
    win_release(o);
    w->ofi = NULL;
}

void rmaib_ofi_win_sync(rmaib_win_t *w)
{
    ofi_win_t *o = w->ofi;
    if (o)
        (void) atomic_load_explicit(&o->served, memory_order_acquire);
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
    int rc = reg(base, size, FI_REMOTE_READ | FI_REMOTE_WRITE,
                 atomic_fetch_add_explicit(&ofi.next_key, 1, memory_order_relaxed),
                 &o->attach_mr[t->n], &key);
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
