/*
 * libfabric opened at the first network window (see loader.h).  Each function is
 * looked up at the symbol version the build linked against when configure could see
 * it (RMAIB_FI_VER_*), so a newer libfabric hands us the ABI of our headers.
 */
#define _GNU_SOURCE
#define RMAIB_OFI_LOADER_C
#include <dlfcn.h>
#include <stdio.h>
#include "loader.h"

/* libfabric 2.x kept 1.x's soname (its ABI changes are in versioned symbols), so
 * the headers' major version does not name the file (test/unit/fi_loader.c). */
#define FI_SONAME "libfabric.so.1"

struct rmaib_fi_api rmaib_fi;
static void *handle;

static void *lookup(const char *name, const char *version)
{
    void *p = *version ? dlvsym(handle, name, version) : NULL;
    return p ? p : dlsym(handle, name);
}

#ifndef RMAIB_FI_VER_getinfo
#define RMAIB_FI_VER_getinfo ""
#define RMAIB_FI_VER_freeinfo ""
#define RMAIB_FI_VER_dupinfo ""
#define RMAIB_FI_VER_fabric ""
#define RMAIB_FI_VER_strerror ""
#define RMAIB_FI_VER_tostr ""
#endif

#define RESOLVE(f) \
    ((*(void **) &api.f = lookup("fi_" #f, RMAIB_FI_VER_##f)) != NULL || (missing = "fi_" #f, 0))

int rmaib_fi_load(const char *name, char *why, size_t len)
{
    if (handle)
        return 0;
    if (!name)
        name = FI_SONAME;
    /* RTLD_LOCAL: nothing of libfabric's becomes visible to the application. */
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        snprintf(why, len, "cannot load libfabric: %s (install libfabric, Debian's libfabric1, "
                 "or name it in RMAIB_OFI_LIBRARY)", e ? e : name);
        return -1;
    }
    struct rmaib_fi_api api;
    const char *missing = NULL;
    if (RESOLVE(getinfo) && RESOLVE(freeinfo) && RESOLVE(dupinfo) && RESOLVE(fabric)
        && RESOLVE(strerror) && RESOLVE(tostr)) {
        rmaib_fi = api;
        return 0;
    }
    snprintf(why, len, "%s lacks %s", name, missing);
    dlclose(handle);
    handle = NULL;
    return -1;
}
