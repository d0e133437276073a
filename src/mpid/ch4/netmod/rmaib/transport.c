/*
 * Transport choice: which backend moves data to each peer, and which one does every
 * control-block atomic of a window.
 *
 * RMAIB_TRANSPORT=auto uses shm within a node and the network between nodes; shm
 * forces shared memory (and fails for a window that spans nodes); ofi forces the
 * network for every peer.  The atomics rule: a window whose group spans nodes does
 * all its atomics through the network backend, a single-node window all with CPU
 * atomics, so the two kinds never meet on one word.
 */
#include <string.h>
#include "rmaib_win.h"
#include "rmaib_host.h"

/* Backends in the order their win_init runs: shm first, because its segment holds
 * every rank's control block and the memory of allocated windows. */
static const rmaib_tp_ops_t *const backends[] = { &rmaib_shm_ops };
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

static const rmaib_tp_ops_t *network_backend(void)
{
    return NULL;    /* the ofi backend is not built yet */
}

int rmaib_transport_win_init(rmaib_win_t *w)
{
    const char *mode = rmaib_config.transport;
    const rmaib_tp_ops_t *net = network_backend();
    int rc = RMAIB_OK;

    if (strcmp(mode, "ofi") == 0 || (w->nnodes > 1 && strcmp(mode, "shm") != 0)) {
        if (!net)
            rc = RMAIB_ERR_TRANSPORT;
    } else if (w->nnodes > 1) {
        rc = RMAIB_ERR_TRANSPORT;       /* shm forced on a window that spans nodes */
    }
    if (rc != RMAIB_OK) {
        if (w->rank == 0)
            rmaib_host_say("rmaib: no transport reaches every peer of this window "
                           "(%d nodes, RMAIB_TRANSPORT=%s; the ofi backend is not built)",
                           w->nnodes, mode);
        return rc;
    }

    int force_net = strcmp(mode, "ofi") == 0;
    for (int r = 0; r < w->nranks; r++)
        w->peers[r].tp = (!force_net && w->peers[r].node == w->mynode) ? &rmaib_shm_ops : net;
    w->atp = (w->nnodes > 1 || force_net) ? net : &rmaib_shm_ops;

    w->ntps = 0;
    for (int b = 0; b < NBACKENDS; b++) {
        rc = backends[b]->win_init(w);
        if (rc != RMAIB_OK) {
            while (--b >= 0)
                backends[b]->win_fini(w);
            return rc;
        }
        for (int r = 0; r < w->nranks; r++)
            if (w->peers[r].tp == backends[b]) {
                w->tps[w->ntps++] = backends[b];
                break;
            }
    }
    return RMAIB_OK;
}

void rmaib_transport_win_fini(rmaib_win_t *w)
{
    for (int b = NBACKENDS - 1; b >= 0; b--)
        backends[b]->win_fini(w);
}

void rmaib_transport_progress(void)
{
    for (int b = 0; b < NBACKENDS; b++)
        backends[b]->progress();
}
