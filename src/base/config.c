/*
 * The RMAIB_* environment variables, read once at rmaib_init.
 */
#include <stdlib.h>
#include <string.h>
#include "rmaib.h"
#include "rmaib_host.h"
#include "config.h"

rmaib_config_t rmaib_config;

int rmaib_env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

const char *rmaib_env_word(const char *name, const char *const *allowed)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return allowed[0];
    for (const char *const *a = allowed; *a; a++)
        if (strcmp(v, *a) == 0)
            return *a;
    char list[128] = "";
    for (const char *const *a = allowed; *a; a++) {
        strncat(list, *a, sizeof list - strlen(list) - 1);
        if (a[1])
            strncat(list, ", ", sizeof list - strlen(list) - 1);
    }
    rmaib_host_say("%s=%s is not one of %s", name, v, list);
    return NULL;
}

int rmaib_config_load(void)
{
    static const char *const transports[] = { "auto", "shm", "ofi", NULL };
    static const char *const locks[] = { "tas", "mcs", NULL };
    static const char *const atomics[] = { "auto", "provider", NULL };
    static const char *const progress[] = { "auto", "0", "1", NULL };

    rmaib_config.verbose = rmaib_env_int("RMAIB_VERBOSE", 0);
    rmaib_config.node_size = rmaib_env_int("RMAIB_NODE_SIZE", 0);
    rmaib_config.stats = rmaib_env_int("RMAIB_STATS", 0);
    rmaib_config.ofi_mr_local = rmaib_env_int("RMAIB_OFI_MR_LOCAL", 0);
    rmaib_config.ofi_timeout = rmaib_env_int("RMAIB_OFI_TIMEOUT", 300);
    rmaib_config.map_user_memory = rmaib_env_int("RMAIB_MAP_USER_MEMORY", 1) != 0;
    rmaib_config.pscw_dense = rmaib_env_int("RMAIB_PSCW_DENSE", 64);
    const char *prov = getenv("RMAIB_OFI_PROVIDER");
    rmaib_config.ofi_provider = prov && *prov ? prov : NULL;
    const char *lib = getenv("RMAIB_OFI_LIBRARY");
    rmaib_config.ofi_library = lib && *lib ? lib : NULL;

    const char *t = rmaib_env_word("RMAIB_TRANSPORT", transports);
    const char *l = rmaib_env_word("RMAIB_LOCK", locks);
    const char *a = rmaib_env_word("RMAIB_OFI_ATOMICS", atomics);
    const char *p = rmaib_env_word("RMAIB_ASYNC_PROGRESS", progress);
    if (!t || !l || !a || !p)
        return RMAIB_ERR_ARG;
    rmaib_config.transport = t;
    rmaib_config.lock_alg = strcmp(l, "mcs") == 0 ? RMAIB_LOCKALG_MCS : RMAIB_LOCKALG_TAS;
    rmaib_config.ofi_provider_atomics = strcmp(a, "provider") == 0;
    rmaib_config.async_progress = strcmp(p, "auto") == 0 ? -1 : p[0] - '0';
    return RMAIB_OK;
}
