/*
 * The RMAIB_* environment variables, read once into rmaib_config.
 */
#ifndef RMAIB_BASE_CONFIG_H_INCLUDED
#define RMAIB_BASE_CONFIG_H_INCLUDED

typedef struct rmaib_config {
    int verbose;            /* RMAIB_VERBOSE */
    int node_size;          /* RMAIB_NODE_SIZE: 0 = real nodes */
    const char *transport;  /* RMAIB_TRANSPORT: auto, shm, ofi */
    int lock_alg;           /* RMAIB_LOCK: default lock algorithm (RMAIB_LOCKALG_*) */
    int stats;              /* RMAIB_STATS: per-window counters printed at MPI_Win_free */
    const char *ofi_provider; /* RMAIB_OFI_PROVIDER: NULL = the best available */
    const char *ofi_library;  /* RMAIB_OFI_LIBRARY: NULL = libfabric.so.N by the loader's search */
    int async_progress;     /* RMAIB_ASYNC_PROGRESS: -1 auto, 0 off, 1 on */
    int ofi_mr_local;       /* RMAIB_OFI_MR_LOCAL: behave as if the provider wanted FI_MR_LOCAL */
    int ofi_timeout;        /* RMAIB_OFI_TIMEOUT: seconds a post may be refused (0: for ever) */
    int ofi_provider_atomics; /* RMAIB_OFI_ATOMICS=provider: not target-executed */
    int map_user_memory;    /* RMAIB_MAP_USER_MEMORY: MPI_Win_create pages into shared memory */
    int pscw_dense;         /* RMAIB_PSCW_DENSE: largest group with per-rank PSCW words */
} rmaib_config_t;

extern rmaib_config_t rmaib_config;

/* Read the variables into rmaib_config: RMAIB_OK, or RMAIB_ERR_ARG (said through
 * the host) for a value that is not one of those allowed. */
int rmaib_config_load(void);

/* An integer variable, dflt when unset or empty. */
int rmaib_env_int(const char *name, int dflt);

/* The variable's value if it is one of the allowed words (or unset: the first one),
 * else NULL after saying so; allowed ends with NULL. */
const char *rmaib_env_word(const char *name, const char *const *allowed);

#endif
