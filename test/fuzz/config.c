/*
 * fuzz config: rmaib_config_load (src/base/config.c) over arbitrary values of the
 * RMAIB_* variables.  The input is up to nine values separated by NUL bytes, one
 * per variable below (a missing one is unset, an empty one set empty).  Checked
 * for every input: the load accepts exactly the values rmaib(7) allows (a word
 * variable unset, empty or one of its words), and what it stores is what the
 * variables say.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib.h"
#include "rmaib_host.h"
#include "base/config.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

enum { VERBOSE, NODE_SIZE, STATS, MR_LOCAL, PROVIDER, TRANSPORT, LOCK, ATOMICS, PROGRESS, NVARS };

static const char *const names[NVARS] = {
    "RMAIB_VERBOSE", "RMAIB_NODE_SIZE", "RMAIB_STATS", "RMAIB_OFI_MR_LOCAL",
    "RMAIB_OFI_PROVIDER", "RMAIB_TRANSPORT", "RMAIB_LOCK", "RMAIB_OFI_ATOMICS",
    "RMAIB_ASYNC_PROGRESS",
};

/* A refused value is said through the host: keep the fuzzer's output quiet. */
static void quiet_say(const char *line)
{
    (void) line;
}

static int one_of(const char *v, const char *const *words)
{
    if (!v || !*v)
        return 1;
    for (; *words; words++)
        if (strcmp(v, *words) == 0)
            return 1;
    return 0;
}

static int as_int(const char *v, int dflt)
{
    return v && *v ? atoi(v) : dflt;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const transports[] = { "auto", "shm", "ofi", NULL };
    static const char *const locks[] = { "tas", "mcs", NULL };
    static const char *const atomics[] = { "auto", "provider", NULL };
    static const char *const progress[] = { "auto", "0", "1", NULL };
    static struct rmaib_host_ops quiet;
    if (!quiet.say) {
        quiet = *rmaib_host;
        quiet.say = quiet_say;
        rmaib_host_register(&quiet);
    }

    /* The values, NUL-terminated, in one copy of the input. */
    char *buf = malloc(size + 1);
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char *v[NVARS] = { NULL };
    char *p = buf;
    for (int i = 0; i < NVARS && p <= buf + size; i++) {
        v[i] = p;
        p += strlen(p) + 1;
    }
    for (int i = 0; i < NVARS; i++) {
        if (v[i])
            setenv(names[i], v[i], 1);
        else
            unsetenv(names[i]);
    }

    memset(&rmaib_config, 0xa5, sizeof rmaib_config);
    int rc = rmaib_config_load();
    int valid = one_of(v[TRANSPORT], transports) && one_of(v[LOCK], locks)
        && one_of(v[ATOMICS], atomics) && one_of(v[PROGRESS], progress);
    CHECK(rc == (valid ? RMAIB_OK : RMAIB_ERR_ARG));
    CHECK(rmaib_config.verbose == as_int(v[VERBOSE], 0));
    CHECK(rmaib_config.node_size == as_int(v[NODE_SIZE], 0));
    CHECK(rmaib_config.stats == as_int(v[STATS], 0));
    CHECK(rmaib_config.ofi_mr_local == as_int(v[MR_LOCAL], 0));
    const char *prov = v[PROVIDER] && *v[PROVIDER] ? getenv(names[PROVIDER]) : NULL;
    CHECK(prov == rmaib_config.ofi_provider);
    if (valid) {
        const char *t = v[TRANSPORT] && *v[TRANSPORT] ? v[TRANSPORT] : "auto";
        CHECK(strcmp(rmaib_config.transport, t) == 0);
        CHECK(rmaib_config.lock_alg == (v[LOCK] && strcmp(v[LOCK], "mcs") == 0
                                        ? RMAIB_LOCKALG_MCS : RMAIB_LOCKALG_TAS));
        CHECK(rmaib_config.ofi_provider_atomics == (v[ATOMICS] && strcmp(v[ATOMICS], "provider") == 0));
        const char *a = v[PROGRESS] && *v[PROGRESS] ? v[PROGRESS] : "auto";
        CHECK(rmaib_config.async_progress == (strcmp(a, "auto") == 0 ? -1 : a[0] - '0'));
    }
    free(buf);
    return 0;
}
