/*
 * The ofi backend's per-peer state, sized by the peers a process touches: what
 * window creation keeps of every peer's hello, as columns that store nothing per
 * peer where every peer's value is the same, or the same plus its rank (AV indices
 * in rank order), or another column's plus a constant (rmaib's keys, which each
 * rank takes four at a time); and the record of a peer (ofi_peer_t), made at its
 * first access and found through a rank map (rank_map.h).  No provider calls: the unit test
 * (test/unit/ofi_peers) drives it.
 */
#include <stdlib.h>
#include <string.h>
#include "ofi_impl.h"

int rmaib_ofi_col_set(ofi_win_t *o, int c, const uint64_t *v)
{
    ofi_col_t *k = &o->col[c];
    int p = o->nranks, r;
    uint64_t max = 0;
    *k = (ofi_col_t) { .same = p ? v[0] : 0, .base = -1 };
    for (r = 1; r < p && v[r] == v[0]; r++)
        ;
    if (r >= p)
        return RMAIB_OK;
    for (r = 1; r < p && v[r] == v[0] + (uint64_t) r; r++)
        ;
    if (r >= p) {
        k->linear = 1;
        return RMAIB_OK;
    }
    for (int b = 0; b < c; b++) {       /* another column's plus a constant */
        if (!o->col[b].v)
            continue;
        uint64_t d = v[0] - rmaib_ofi_col(o, b, 0);
        for (r = 1; r < p && v[r] - rmaib_ofi_col(o, b, r) == d; r++)
            ;
        if (r >= p) {
            k->same = d;
            k->base = (int8_t) b;
            return RMAIB_OK;
        }
    }
    for (r = 0; r < p; r++)
        max = v[r] > max ? v[r] : max;
    unsigned width = max <= UINT32_MAX ? 4 : 8;
    void *a = malloc((size_t) width * (size_t) p);
    if (!a)
        return RMAIB_ERR_NO_MEM;
    for (r = 0; r < p; r++) {
        if (width == 4)
            ((uint32_t *) a)[r] = (uint32_t) v[r];
        else
            ((uint64_t *) a)[r] = v[r];
    }
    k->width = (uint8_t) width;
    k->v = a;
    return RMAIB_OK;
}

size_t rmaib_ofi_cols_bytes(const ofi_win_t *o)
{
    size_t n = 0;
    for (int c = 0; c < OFI_COL_N; c++)
        n += o->col[c].v ? (size_t) o->col[c].width * (size_t) o->nranks : 0;
    return n;
}

void rmaib_ofi_cols_free(ofi_win_t *o)
{
    for (int c = 0; c < OFI_COL_N; c++) {
        free(o->col[c].v);
        o->col[c].v = NULL;
    }
}

static void peer_init(ofi_win_t *o, ofi_peer_t *p, int r)
{
    p->o = o;
    p->rank = r;
    p->addr = (fi_addr_t) rmaib_ofi_col(o, OFI_COL_AV, r);
    p->data_raddr = rmaib_ofi_col(o, OFI_COL_DATA_RADDR, r);
    p->data_key = rmaib_ofi_col(o, OFI_COL_DATA_KEY, r);
    p->ctrl_raddr = rmaib_ofi_col(o, OFI_COL_CTRL_RADDR, r);
    p->ctrl_key = rmaib_ofi_col(o, OFI_COL_CTRL_KEY, r);
    p->ktab_raddr = rmaib_ofi_col(o, OFI_COL_KTAB_RADDR, r);
    p->ktab_key = rmaib_ofi_col(o, OFI_COL_KTAB_KEY, r);
    p->box_raddr = rmaib_ofi_col(o, OFI_COL_BOX_RADDR, r);
    p->box_key = rmaib_ofi_col(o, OFI_COL_BOX_KEY, r);
    p->box_wid = (uint32_t) rmaib_ofi_col(o, OFI_COL_BOX_WID, r);
    pthread_mutex_init(&p->ktab_lock, NULL);
}

static ofi_peer_amo_t *amo_new(void)
{
    ofi_peer_amo_t *n = calloc(1, sizeof *n);
    if (n) {
        pthread_mutex_init(&n->amo_lock, NULL);
        pthread_mutex_init(&n->send_lock, NULL);
        pthread_mutex_init(&n->stage_lock, NULL);
    }
    return n;
}

static void amo_free(ofi_peer_amo_t *a)
{
    if (!a)
        return;
    pthread_mutex_destroy(&a->amo_lock);
    pthread_mutex_destroy(&a->send_lock);
    pthread_mutex_destroy(&a->stage_lock);
    free(a);
}

/* The first access to peer r from this process: its record, made from the columns,
 * with its mailbox part where the window has mailboxes.  All or nothing, so that an
 * access that fails for memory leaves the window as it was.  Two threads may come
 * at once: open_lock lets one make it, the other finds it. */
ofi_peer_t *rmaib_ofi_peer_open(ofi_win_t *o, int r)
{
    if (r < 0 || r >= o->nranks)
        return NULL;
    pthread_mutex_lock(&o->open_lock);
    ofi_peer_t *p = rmaib_ofi_peer_find(o, r);
    if (!p && (p = calloc(1, sizeof *p)) != NULL) {
        ofi_peer_amo_t *a = o->amo ? amo_new() : NULL;
        peer_init(o, p, r);
        atomic_init(&p->amo, a);
        if ((o->amo && !a) || rmaib_rank_map_insert(&o->pmap, r, p) != RMAIB_OK) {
            amo_free(a);
            pthread_mutex_destroy(&p->ktab_lock);
            free(p);
            p = NULL;
        }
    }
    pthread_mutex_unlock(&o->open_lock);
    return p;
}

/* The part of a peer's record only the mailbox uses: made with the record where the
 * window has mailboxes, else at the first request.  Published with a
 * compare-and-swap: a thread that loses frees its own. */
ofi_peer_amo_t *rmaib_ofi_peer_amo(ofi_peer_t *p)
{
    ofi_peer_amo_t *a = atomic_load_explicit(&p->amo, memory_order_acquire);
    if (a)
        return a;
    ofi_peer_amo_t *n = amo_new();
    if (!n)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&p->amo, &a, n, memory_order_acq_rel,
                                                memory_order_acquire))
        return n;
    amo_free(n);
    return a;
}

static void peer_free(void *arg, void *unused)
{
    ofi_peer_t *p = arg;
    (void) unused;
    amo_free(atomic_load_explicit(&p->amo, memory_order_relaxed));
    pthread_mutex_destroy(&p->ktab_lock);
    free(p->ktab);
    free(p);
}

/* Every record made, and the tables; the window has quiesced. */
void rmaib_ofi_peers_free(ofi_win_t *o)
{
    rmaib_rank_map_foreach(&o->pmap, peer_free, NULL);
    rmaib_rank_map_free(&o->pmap);
    rmaib_ofi_cols_free(o);
}
