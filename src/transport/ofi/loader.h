/*
 * libfabric, opened with dlopen by the first window that needs the network: loading
 * Debian's libfabric runs its PSM providers' constructors, which probe for hardware
 * for some 0.2 s, a cost a job within one node must not pay.  The few functions
 * libfabric exports (everything else is an inline call through an ops table) are
 * reached through the pointers below; ofi_impl.h maps their names onto them.
 */
#ifndef RMAIB_OFI_LOADER_H_INCLUDED
#define RMAIB_OFI_LOADER_H_INCLUDED

#include <rdma/fabric.h>

struct rmaib_fi_api {
    int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
                   const struct fi_info *hints, struct fi_info **info);
    void (*freeinfo)(struct fi_info *info);
    struct fi_info *(*dupinfo)(const struct fi_info *info);
    int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
    const char *(*strerror)(int errnum);
    char *(*tostr)(const void *data, enum fi_type datatype);
};

extern struct rmaib_fi_api rmaib_fi __attribute__((visibility("hidden")));

/* Open libfabric (name: a file or soname; NULL: libfabric.so.1, the soname of 1.x
 * and 2.x alike) and resolve the table: 0, or -1 with the reason (the library and
 * dlerror's words) in why.  Idempotent.  Once open it stays open: dlclose runs
 * libfabric's fi_fini, which leaves some of its own allocations behind (LSan sees
 * them), and a later network window would pay the load again. */
int rmaib_fi_load(const char *name, char *why, size_t len) __attribute__((visibility("hidden")));

#ifndef RMAIB_OFI_LOADER_C
#define fi_getinfo(...) rmaib_fi.getinfo(__VA_ARGS__)
#define fi_freeinfo(i) rmaib_fi.freeinfo(i)
#define fi_dupinfo(i) rmaib_fi.dupinfo(i)
#define fi_allocinfo() rmaib_fi.dupinfo(NULL)
#define fi_fabric(...) rmaib_fi.fabric(__VA_ARGS__)
#define fi_strerror(e) rmaib_fi.strerror(e)
#define fi_tostr(...) rmaib_fi.tostr(__VA_ARGS__)
#endif

#endif
