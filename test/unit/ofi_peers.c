/*
 * The ofi backend's per-peer state (src/transport/ofi/peer.c), without MPI or a
 * provider, for a window of 10^6 ranks.  Checks that
 *   - a column whose peers all agree, or agree up to their rank, or differ from an
 *     earlier column by one constant stores nothing per peer, and any other keeps 4
 *     bytes a peer (8 where a value needs them), every value read back exact;
 *   - no peer has a record until its first access, which makes exactly one, filled
 *     from the columns; a rank never touched is not found, and 100 touched cost 100
 *     records however many ranks the window has;
 *   - threads making the records of the same ranks at once get one record per rank,
 *     the same for all of them, and one mailbox part per record;
 *   - freeing the window's records leaves none.
 * Prints TAP.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "transport/ofi/ofi_impl.h"
#include "unit_tap.h"

enum { P = 1000000, THREADS = 8, SHARED = 64 };

static ofi_win_t *o;

static uint64_t key_of(int r)
{
    return 1000 + 4 * (uint64_t) ((r * 7919u) % 100003u);      /* no pattern to fold */
}

static void *open_shared(void *arg)
{
    ofi_peer_t **got = arg;
    unsigned seed = (unsigned) (uintptr_t) got;
    for (int k = 0; k < SHARED; k++) {
        int i = (int) ((k * 37u + seed) % SHARED);             /* each its own order */
        got[i] = ofi_peer(o, i * 15601);
        if (got[i])
            got[SHARED + i] = (ofi_peer_t *) rmaib_ofi_peer_amo(got[i]);
    }
    return NULL;
}

int main(void)
{
    o = calloc(1, sizeof *o);
    o->nranks = P;
    pthread_mutex_init(&o->open_lock, NULL);
    uint64_t *v = malloc(P * sizeof *v);

    for (int r = 0; r < P; r++)
        v[r] = 12 + (uint64_t) r;
    tap(rmaib_ofi_col_set(o, OFI_COL_AV, v) == RMAIB_OK && !o->col[OFI_COL_AV].v
        && o->col[OFI_COL_AV].linear, "AV indices in rank order: nothing per peer");
    for (int r = 0; r < P; r++)
        v[r] = 0;
    tap(rmaib_ofi_col_set(o, OFI_COL_DATA_VA, v) == RMAIB_OK && !o->col[OFI_COL_DATA_VA].v,
        "one value for all: nothing per peer");
    for (int r = 0; r < P; r++)
        v[r] = key_of(r);
    tap(rmaib_ofi_col_set(o, OFI_COL_DATA_KEY, v) == RMAIB_OK && o->col[OFI_COL_DATA_KEY].v
        && o->col[OFI_COL_DATA_KEY].width == 4, "keys that differ: 4 bytes a peer");
    for (int r = 0; r < P; r++)
        v[r] = key_of(r) + 1;
    tap(rmaib_ofi_col_set(o, OFI_COL_CTRL_KEY, v) == RMAIB_OK && !o->col[OFI_COL_CTRL_KEY].v
        && o->col[OFI_COL_CTRL_KEY].base == OFI_COL_DATA_KEY,
        "the next key of each: nothing more per peer");
    for (int r = 0; r < P; r++)
        v[r] = (UINT64_C(0x7f00) << 32) + (uint64_t) r * 3 * (uint64_t) (r % 5);
    tap(rmaib_ofi_col_set(o, OFI_COL_BOX_RADDR, v) == RMAIB_OK
        && o->col[OFI_COL_BOX_RADDR].width == 8, "64-bit addresses: 8 bytes a peer");
    int exact = 1;
    for (int r = 0; r < P; r += 997)
        exact &= rmaib_ofi_col(o, OFI_COL_AV, r) == 12 + (uint64_t) r
            && rmaib_ofi_col(o, OFI_COL_DATA_VA, r) == 0
            && rmaib_ofi_col(o, OFI_COL_DATA_KEY, r) == key_of(r)
            && rmaib_ofi_col(o, OFI_COL_CTRL_KEY, r) == key_of(r) + 1
            && rmaib_ofi_col(o, OFI_COL_BOX_RADDR, r) == v[r];
    tap(exact, "every value reads back exact");
    tap(rmaib_ofi_cols_bytes(o) == (size_t) P * 12, "columns: %zu bytes for %d ranks",
        rmaib_ofi_cols_bytes(o), P);

    int none = 1;
    for (int r = 0; r < P; r += 1009)
        none &= rmaib_ofi_peer_find(o, r) == NULL;
    tap(none && o->pmap.count == 0, "no record before a first access");
    ofi_peer_t *p = ofi_peer(o, 424242);
    tap(p && p->rank == 424242 && p->o == o && p->addr == 12 + 424242
        && p->data_key == key_of(424242) && p->ctrl_key == key_of(424242) + 1
        && p->box_raddr == v[424242] && o->pmap.count == 1,
        "the first access makes one record, from the columns");
    tap(ofi_peer(o, 424242) == p && rmaib_ofi_peer_find(o, 424242) == p && o->pmap.count == 1,
        "the next access finds it");
    int found = 1;
    for (int k = 1; k < 100; k++)
        found &= ofi_peer(o, k * 9973) != NULL;
    for (int k = 1; k < 100; k++)
        found &= rmaib_ofi_peer_find(o, k * 9973) != NULL
            && rmaib_ofi_peer_find(o, k * 9973)->rank == k * 9973;
    for (int r = 1; r < P; r += 1013)
        found &= (r % 9973 == 0 && r / 9973 < 100) || r == 424242
            || rmaib_ofi_peer_find(o, r) == NULL;
    tap(found && o->pmap.count == 100, "100 ranks touched: %zu records, the rest none", o->pmap.count);
    tap(ofi_peer(o, P) == NULL && ofi_peer(o, -1) == NULL, "no record outside the group");

    ofi_peer_t *got[THREADS][2 * SHARED];
    pthread_t th[THREADS];
    memset(got, 0, sizeof got);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, open_shared, got[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    int same = 1;
    for (int i = 0; i < SHARED; i++)
        for (int t = 0; t < THREADS; t++)
            same &= got[t][i] && got[t][i] == got[0][i] && got[t][i]->rank == i * 15601
                && got[t][SHARED + i] == got[0][SHARED + i] && got[0][SHARED + i];
    tap(same && o->pmap.count == 100 + SHARED, "%d threads at once: one record a rank (%zu)", THREADS,
        o->pmap.count);

    rmaib_ofi_peers_free(o);
    tap(o->pmap.count == 0 && rmaib_ofi_peer_find(o, 424242) == NULL && rmaib_ofi_cols_bytes(o) == 0,
        "freed: no records, no columns");
    pthread_mutex_destroy(&o->open_lock);
    free(o);
    free(v);
    printf("1..%d\n", tap_n);
    return tap_bad != 0;
}
