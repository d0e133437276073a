/*
 * Process-wide set-up of the core: the RMAIB_* variables, the transports' hooks
 * for every wait, and the host waits that serve the transports (rmaib_poll*).
 */
#include "rma_impl.h"
#include "base/config.h"

static int initialized;

int rmaib_init(void)
{
    if (initialized)
        return RMAIB_OK;
    int rc = rmaib_config_load();
    if (rc != RMAIB_OK)
        return rc;
    rmaib_transport_init();
    initialized = 1;
    return RMAIB_OK;
}

void rmaib_finalize(void)
{
    if (!initialized)
        return;
    rmaib_transport_finalize();
    initialized = 0;
}

int rmaib_poll_wanted(void)
{
    return rmaib_transport_wants_polling();
}

void rmaib_poll_enter(void)
{
    rmaib_transport_poll_enter();
}

void rmaib_poll_leave(void)
{
    rmaib_transport_poll_leave();
}

void rmaib_poll(unsigned *round)
{
    rmaib_poll_round(round);
}
