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
#include <stdlib.h>
#include <string.h>
#include "rmaib_win.h"
#include "base/config.h"
#include "rmaib_host.h"

/* Backends in the order their win_init runs: the node backend first, because its
 * segment holds every rank's control block and the memory of allocated windows,
 * which the network backend then registers. */
static const rmaib_tp_ops_t *backends[] = {
    &rmaib_shm_ops,
#ifdef HAVE_OFI
    &rmaib_ofi_ops,
#endif
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

/* For test/unit's simulated host only (sim_scale.c): its counting transport takes
 * the network backend's slot for the rest of the process, before the first window. */
int rmaib_transport_set_net_for_test(const rmaib_tp_ops_t *ops)
{
    for (int b = 0; b < NBACKENDS; b++)
        if (backends[b]->reach == RMAIB_TP_NET) {
            backends[b] = ops;
            return 0;
        }
    return -1;          /* built without a network backend: no slot to take */
}

static const rmaib_tp_ops_t *backend_of(int reach)
{
    for (int b = 0; b < NBACKENDS; b++)
        if (backends[b]->reach == reach)
            return backends[b];
    return NULL;
}

/* The network backend in *net, brought up at the first window that needs it; an
 * error if it cannot start (net_failure says why). */
static int network_backend(const rmaib_tp_ops_t **net)
{
    *net = backend_of(RMAIB_TP_NET);
    if (!*net)
        return RMAIB_ERR_TRANSPORT;
    return (*net)->start ? (*net)->start() : RMAIB_OK;
}

static const char *net_failure(void)
{
    const rmaib_tp_ops_t *net = backend_of(RMAIB_TP_NET);
    if (!net)
        return "rmaib was built without a network backend (configure found no libfabric)";
    return net->failure ? net->failure() : "the network backend failed";
}

/* Does the network backend apply atomics with the target's own CPU atomics?  Then
 * our CPU atomics on a control word we can map (our own, a same-node peer's) meet
 * the network's on that word safely, and need not take a round trip through the
 * network to ourselves.  Every rank decides alike: all run the same provider. */
static int net_atomics_on_cpu(const rmaib_tp_ops_t *net)
{
    return net->atomics_on_cpu && net->atomics_on_cpu();
}

int rmaib_transport_forces_net(void)
{
    return strcmp(rmaib_config.transport, "ofi") == 0;
}

static int needs_net(const rmaib_win_t *w)
{
    return rmaib_transport_forces_net() || w->nnodes > 1;
}

/* A rank whose network failed says why, once per process; every rank must then
 * learn it (the caller's agreement), or the ones whose endpoint works would wait
 * in the window's set-up for the ones whose does not. */
int rmaib_transport_prepare(rmaib_win_t *w)
{
    static int said;
    const rmaib_tp_ops_t *net = NULL;

    if (w->nnodes > 1 && strcmp(rmaib_config.transport, "shm") == 0) {
        if (w->rank == 0)
            rmaib_host_say("rmaib: this window spans %d nodes and RMAIB_TRANSPORT=shm "
                           "cannot reach them all", w->nnodes);
        return RMAIB_ERR_TRANSPORT;     /* (every rank sees the same nodes) */
    }
    if (!needs_net(w))
        return RMAIB_OK;
    int rc = network_backend(&net);
    if (rc == RMAIB_ERR_TRANSPORT && !said) {
        said = 1;
        rmaib_host_say("rmaib: the ofi network backend cannot start: %s; a job within one "
                       "node runs without it with RMAIB_TRANSPORT=shm", net_failure());
    }
    /* (its names carry no host: a remote one would reach nobody, or a local process
     * with the same pid) */
    if (rc == RMAIB_OK && w->nnodes > 1 && net->local_only && net->local_only()) {
        if (w->rank == 0)
            rmaib_host_say("rmaib: this window spans %d nodes and the network provider "
                           "reaches this host only (RMAIB_OFI_PROVIDER)", w->nnodes);
        rc = RMAIB_ERR_TRANSPORT;       /* (every rank sees the same nodes) */
    }
    return rc;
}

void rmaib_transport_assign(rmaib_win_t *w)
{
    int force_net = rmaib_transport_forces_net();
    const rmaib_tp_ops_t *net = needs_net(w) ? backend_of(RMAIB_TP_NET) : NULL;
    const rmaib_tp_ops_t *node = backend_of(RMAIB_TP_NODE);
    w->tp_local = force_net ? net : node;
    w->tp_remote = net;
    w->atp = (w->nnodes > 1 || force_net) ? net : node;
    /* RMAIB_TRANSPORT=ofi: every peer's words through the network, ours too unless
     * the network's atomics are CPU atomics. */
    w->ctrl_cpu = w->atp == node ? RMAIB_CTRL_CPU_ALL
        : !net_atomics_on_cpu(net) ? RMAIB_CTRL_CPU_NONE
        : force_net ? RMAIB_CTRL_CPU_SELF : RMAIB_CTRL_CPU_ALL;
    w->ntps = 0;
    w->tps[w->ntps++] = w->tp_local;
    if (w->nnodes > 1 && net != w->tp_local)
        w->tps[w->ntps++] = net;
}

/* A failure undoes every backend: a later one may have set up early (win_early). */
int rmaib_transport_win_init(rmaib_win_t *w)
{
    for (int b = 0; b < NBACKENDS; b++) {
        int rc = backends[b]->win_init(w);
        if (rc != RMAIB_OK) {
            rmaib_transport_win_fini(w);
            return rc;
        }
    }
    return RMAIB_OK;
}

int rmaib_transport_win_early(rmaib_win_t *w)
{
    const rmaib_tp_ops_t *net = backend_of(RMAIB_TP_NET);
    return net && w->atp == net && net->win_early ? net->win_early(w) : RMAIB_OK;
}

void rmaib_transport_dir_free(void *state)
{
    const rmaib_tp_ops_t *net = backend_of(RMAIB_TP_NET);
    if (state && net && net->dir_free)
        net->dir_free(state);
}

void rmaib_transport_win_fini(rmaib_win_t *w)
{
    for (int b = NBACKENDS - 1; b >= 0; b--)
        backends[b]->win_fini(w);
}

void rmaib_transport_win_sync(rmaib_win_t *w)
{
    for (int b = 0; b < NBACKENDS; b++)
        if (backends[b]->win_sync)
            backends[b]->win_sync(w);
}

/* A backend's process-level hooks are optional: run those that are there. */
#define EACH_BACKEND(hook, ...)                                 \
    for (int b_ = 0; b_ < NBACKENDS; b_++)                      \
        if (backends[b_]->hook)                                 \
            backends[b_]->hook(__VA_ARGS__)

int rmaib_transport_wants_polling(void)
{
    for (int b = 0; b < NBACKENDS; b++)
        if (backends[b]->wants_polling && backends[b]->wants_polling())
            return 1;
    return 0;
}

void rmaib_transport_poll_enter(void)
{
    EACH_BACKEND(poll_enter);
}

void rmaib_transport_poll_leave(void)
{
    EACH_BACKEND(poll_leave);
}

void rmaib_transport_progress(void)
{
    for (int b = 0; b < NBACKENDS; b++)
        backends[b]->progress();
}

int rmaib_transport_attach(rmaib_win_t *w, void *base, size_t size)
{
    for (int b = 0; b < NBACKENDS; b++)
        if (backends[b]->attach) {
            int rc = backends[b]->attach(w, base, size);
            if (rc != RMAIB_OK) {
                while (--b >= 0)
                    if (backends[b]->detach)
                        backends[b]->detach(w, base);
                return rc;
            }
        }
    return RMAIB_OK;
}

void rmaib_transport_detach(rmaib_win_t *w, const void *base)
{
    for (int b = NBACKENDS - 1; b >= 0; b--)
        if (backends[b]->detach)
            backends[b]->detach(w, base);
}

void rmaib_transport_finalize(void)
{
    EACH_BACKEND(finalize);
}

static const rmaib_wait_hooks_t wait_hooks = {
    .progress = rmaib_transport_progress,
    .wants_polling = rmaib_transport_wants_polling,
    .poll_enter = rmaib_transport_poll_enter,
    .poll_leave = rmaib_transport_poll_leave,
};

void rmaib_transport_init(void)
{
    rmaib_wait_init(&wait_hooks);
}
