/*
 * fishim: a stand-in libfabric (RMAIB_OFI_LIBRARY=test/ofi_shim/.libs/libfishim.so)
 * that forwards the six functions rmaib's loader resolves to this machine's
 * libfabric.so.1 and bends what a provider reports, to imitate providers this
 * machine has not (the fabrics issue):
 *   FISHIM_MODE=FI_CONTEXT,FI_CONTEXT2,FI_ASYNC_IOV  mode bits ORed into every
 *       fi_info returned (opx returns FI_ASYNC_IOV whatever the hints say);
 *   FISHIM_NO_QUERY_ATOMIC=1  the domain's query_atomic gives -FI_ENOSYS, as opx's,
 *       which has atomics but no query_atomic;
 *   FISHIM_AS=NAME  a request for provider NAME (efa, cxi...) is served by
 *       tcp;ofi_rxm under that name, so the choice among providers can be seen;
 *   FISHIM_EAGAIN_AFTER=N  after N RMA and atomic posts, every later one says
 *       -FI_EAGAIN, as to a peer that stopped answering (only in the rank
 *       FISHIM_EAGAIN_RANK, default 0, of PMI_RANK);
 *   FISHIM_PROGRESS_UNIFIED=1  every fi_info says data progress
 *       FI_PROGRESS_CONTROL_UNIFIED (3: libfabric 1.21 and 2.x, which 1.17 has no
 *       name for), which implies manual progress; the provider gets its own
 *       value back when a domain or endpoint is opened.
 * Everything else is the real provider's (its ops tables come back from fi_fabric).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

static struct {
    void *h;
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **);
    void (*freeinfo)(struct fi_info *);
    struct fi_info *(*dupinfo)(const struct fi_info *);
    int (*fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *);
    const char *(*strerror)(int);
    char *(*tostr)(const void *, enum fi_type);
} real;

static void load(void)
{
    if (real.h)
        return;
    real.h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!real.h)
        abort();
    *(void **) &real.getinfo = dlsym(real.h, "fi_getinfo");
    *(void **) &real.freeinfo = dlsym(real.h, "fi_freeinfo");
    *(void **) &real.dupinfo = dlsym(real.h, "fi_dupinfo");
    *(void **) &real.fabric = dlsym(real.h, "fi_fabric");
    *(void **) &real.strerror = dlsym(real.h, "fi_strerror");
    *(void **) &real.tostr = dlsym(real.h, "fi_tostr");
}

static uint64_t env_mode(void)
{
    static const struct { const char *name; uint64_t bit; } bits[] = {
        { "FI_CONTEXT", FI_CONTEXT }, { "FI_CONTEXT2", FI_CONTEXT2 },
        { "FI_ASYNC_IOV", FI_ASYNC_IOV },
    };
    const char *e = getenv("FISHIM_MODE");
    char buf[256], *save = NULL;
    uint64_t m = 0;
    snprintf(buf, sizeof buf, "%s", e ? e : "");
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
        for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
            if (!strcmp(t, bits[i].name))
                m |= bits[i].bit;
    return m;
}

enum { PROGRESS_CONTROL_UNIFIED = 3 };
static enum fi_progress real_progress = FI_PROGRESS_MANUAL;

int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
               const struct fi_info *hints, struct fi_info **info)
{
    load();
    const char *as = getenv("FISHIM_AS");
    int rc;
    if (as && *as && hints && hints->fabric_attr && hints->fabric_attr->prov_name
        && !strcmp(hints->fabric_attr->prov_name, as)) {
        struct fi_info *h = real.dupinfo(hints);
        if (!h)
            return -FI_ENOMEM;
        free(h->fabric_attr->prov_name);
        h->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
        rc = real.getinfo(version, node, service, flags, h, info);
        real.freeinfo(h);
        for (struct fi_info *i = rc == 0 ? *info : NULL; i; i = i->next) {
            free(i->fabric_attr->prov_name);
            i->fabric_attr->prov_name = strdup(as);
        }
    } else {
        rc = real.getinfo(version, node, service, flags, hints, info);
    }
    const char *u = getenv("FISHIM_PROGRESS_UNIFIED");
    for (struct fi_info *i = rc == 0 ? *info : NULL; i; i = i->next) {
        i->mode |= env_mode();
        if (u && *u == '1' && i->domain_attr) {
            real_progress = i->domain_attr->data_progress;
            i->domain_attr->data_progress = (enum fi_progress) PROGRESS_CONTROL_UNIFIED;
        }
    }
    return rc;
}

/* FISHIM_PROGRESS_UNIFIED: the provider's own progress model, for its own calls. */
static enum fi_progress unbend(struct fi_info *info)
{
    enum fi_progress was = info->domain_attr->data_progress;
    if ((int) was == PROGRESS_CONTROL_UNIFIED)
        info->domain_attr->data_progress = real_progress;
    return was;
}

void fi_freeinfo(struct fi_info *info)
{
    load();
    real.freeinfo(info);
}

struct fi_info *fi_dupinfo(const struct fi_info *info)
{
    load();
    return real.dupinfo(info);
}

const char *fi_strerror(int errnum)
{
    load();
    return real.strerror(errnum);
}

char *fi_tostr(const void *data, enum fi_type datatype)
{
    load();
    return real.tostr(data, datatype);
}

/* The domain's ops, copied with query_atomic (and endpoint) replaced; and the
 * fabric's, with the domain call replaced to install them (one fabric and domain
 * per process). */
static struct fi_ops_domain dom_ops;
static struct fi_ops_fabric fab_ops;
static int (*real_domain)(struct fid_fabric *, struct fi_info *, struct fid_domain **, void *);
static int (*real_endpoint)(struct fid_domain *, struct fi_info *, struct fid_ep **, void *);

/* FISHIM_AS: an info named so goes to the real provider under its own name. */
static char *real_name(struct fi_fabric_attr *a)
{
    const char *as = getenv("FISHIM_AS");
    char *was = a ? a->prov_name : NULL;
    if (as && *as && was && !strcmp(was, as))
        a->prov_name = (char *) "tcp;ofi_rxm";
    return was;
}

/* FISHIM_EAGAIN_AFTER: the endpoint's RMA and atomic posts, through copies of its
 * ops tables, counted; -1 where this rank does not stall. */
static struct fi_ops_rma rma_ops, *real_rma;
static struct fi_ops_atomic atomic_ops, *real_atomic;
static long posts_left = -1;

static int stalled(void)
{
    if (posts_left < 0)
        return 0;
    if (posts_left == 0)
        return 1;
    posts_left--;
    return 0;
}

static ssize_t st_read(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src,
                       uint64_t addr, uint64_t key, void *context)
{
    return stalled() ? -FI_EAGAIN : real_rma->read(ep, buf, len, desc, src, addr, key, context);
}

static ssize_t st_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg, uint64_t flags)
{
    return stalled() ? -FI_EAGAIN : real_rma->readmsg(ep, msg, flags);
}

static ssize_t st_write(struct fid_ep *ep, const void *buf, size_t len, void *desc,
                        fi_addr_t dest, uint64_t addr, uint64_t key, void *context)
{
    return stalled() ? -FI_EAGAIN : real_rma->write(ep, buf, len, desc, dest, addr, key, context);
}

static ssize_t st_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg, uint64_t flags)
{
    return stalled() ? -FI_EAGAIN : real_rma->writemsg(ep, msg, flags);
}

static ssize_t st_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest,
                         uint64_t addr, uint64_t key)
{
    return stalled() ? -FI_EAGAIN : real_rma->inject(ep, buf, len, dest, addr, key);
}

static ssize_t st_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
                             fi_addr_t dest, uint64_t addr, uint64_t key)
{
    return stalled() ? -FI_EAGAIN : real_rma->injectdata(ep, buf, len, data, dest, addr, key);
}

static ssize_t st_atomic(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                         fi_addr_t dest, uint64_t addr, uint64_t key, enum fi_datatype dt,
                         enum fi_op op, void *context)
{
    return stalled() ? -FI_EAGAIN
        : real_atomic->write(ep, buf, count, desc, dest, addr, key, dt, op, context);
}

static ssize_t st_fetch(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                        void *res, void *res_desc, fi_addr_t dest, uint64_t addr, uint64_t key,
                        enum fi_datatype dt, enum fi_op op, void *context)
{
    return stalled() ? -FI_EAGAIN : real_atomic->readwrite(ep, buf, count, desc, res, res_desc,
                                                           dest, addr, key, dt, op, context);
}

static ssize_t st_compare(struct fid_ep *ep, const void *buf, size_t count, void *desc,
                          const void *compare, void *compare_desc, void *res, void *res_desc,
                          fi_addr_t dest, uint64_t addr, uint64_t key, enum fi_datatype dt,
                          enum fi_op op, void *context)
{
    return stalled() ? -FI_EAGAIN
        : real_atomic->compwrite(ep, buf, count, desc, compare, compare_desc, res, res_desc,
                                 dest, addr, key, dt, op, context);
}

static void stall_ops(struct fid_ep *ep)
{
    const char *after = getenv("FISHIM_EAGAIN_AFTER"), *who = getenv("FISHIM_EAGAIN_RANK");
    const char *me = getenv("PMI_RANK");
    if (!after || !*after || atoi(me ? me : "0") != atoi(who ? who : "0") || real_rma)
        return;         /* (rmaib's endpoint is the first; a provider may make more) */
    posts_left = atol(after);
    real_rma = ep->rma;
    rma_ops = *real_rma;
    rma_ops.read = st_read;
    rma_ops.readmsg = st_readmsg;
    rma_ops.write = st_write;
    rma_ops.writemsg = st_writemsg;
    rma_ops.inject = st_inject;
    rma_ops.injectdata = st_injectdata;
    ep->rma = &rma_ops;
    real_atomic = ep->atomic;
    atomic_ops = *real_atomic;
    atomic_ops.write = st_atomic;
    atomic_ops.readwrite = st_fetch;
    atomic_ops.compwrite = st_compare;
    ep->atomic = &atomic_ops;
}

static int shim_endpoint(struct fid_domain *d, struct fi_info *info, struct fid_ep **ep,
                         void *ctx)
{
    char *was = real_name(info->fabric_attr);
    enum fi_progress progress = unbend(info);
    int rc = real_endpoint(d, info, ep, ctx);
    info->fabric_attr->prov_name = was;
    info->domain_attr->data_progress = progress;
    if (rc == 0)
        stall_ops(*ep);
    return rc;
}

static int no_query_atomic(struct fid_domain *d, enum fi_datatype t, enum fi_op op,
                           struct fi_atomic_attr *attr, uint64_t flags)
{
    (void) d, (void) t, (void) op, (void) attr, (void) flags;
    return -FI_ENOSYS;
}

static int shim_domain(struct fid_fabric *f, struct fi_info *info, struct fid_domain **d,
                       void *ctx)
{
    const char *e = getenv("FISHIM_NO_QUERY_ATOMIC");
    char *was = real_name(info->fabric_attr);
    enum fi_progress progress = unbend(info);
    int rc = real_domain(f, info, d, ctx);
    info->fabric_attr->prov_name = was;
    info->domain_attr->data_progress = progress;
    if (rc == 0) {
        size_t n = (*d)->ops->size < sizeof dom_ops ? (*d)->ops->size : sizeof dom_ops;
        memcpy(&dom_ops, (*d)->ops, n);
        if (e && *e == '1')
            dom_ops.query_atomic = no_query_atomic;
        real_endpoint = dom_ops.endpoint;
        dom_ops.endpoint = shim_endpoint;
        (*d)->ops = &dom_ops;
    }
    return rc;
}

int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)
{
    load();
    char *was = real_name(attr);
    int rc = real.fabric(attr, fabric, context);
    attr->prov_name = was;
    if (rc == 0) {
        size_t n = (*fabric)->ops->size < sizeof fab_ops ? (*fabric)->ops->size : sizeof fab_ops;
        memcpy(&fab_ops, (*fabric)->ops, n);
        real_domain = fab_ops.domain;
        fab_ops.domain = shim_domain;
        (*fabric)->ops = &fab_ops;
    }
    return rc;
}
