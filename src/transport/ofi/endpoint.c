/*
 * The ofi backend's endpoint: which provider, what it can do (registration modes,
 * ordering, atomics, progress), bringing the endpoint up and tearing it down.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_endpoint.h>
#include "ofi_impl.h"
#include "base/config.h"
#include "base/fault.h"
#include "base/reduce.h"
#include "rmaib_host.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* Is the core provider (the first of "tcp;ofi_rxm") one of names? */
static int core_provider_in(const struct fi_info *info, const char *const *names, size_t count)
{
    const char *name = info->fabric_attr->prov_name;
    size_t n = strcspn(name, ";");
    for (size_t i = 0; i < count; i++)
        if (strlen(names[i]) == n && !strncmp(name, names[i], n))
            return 1;
    return 0;
}

/* Providers whose atomics, where they have any, are the target's CPU atomics.  net
 * (libfabric 1.17's RDM endpoint straight on TCP sockets, no rxm) has none at all:
 * the mailbox carries every one. */
static int software_atomics(const struct fi_info *info)
{
    static const char *const software[] = { "tcp", "sockets", "udp", "shm", "net" };
    return core_provider_in(info, software, sizeof software / sizeof software[0]);
}

/* Writes to a peer land in the order posted, whatever their size, where the CPU
 * places them as it reads them off the one stream connection to that peer.
 * tcp;ofi_rxm reports max_order_waw_size 0 with FI_ORDER_RMA_WAW set: that size
 * bounds the ordering of overlapping bytes on hardware, not the order in which a
 * stream places whole writes.  Taking it at its word cost every PSCW complete
 * after a put a whole round trip (the PSCW complete flushed the put first).  net keeps
 * one connection per peer as rxm does (xnet_rdm_cm.c settles simultaneous
 * connects), and so a single stream. */
static int stream_placed(const struct fi_info *info)
{
    static const char *const stream[] = { "tcp", "sockets", "net" };
    return core_provider_in(info, stream, sizeof stream / sizeof stream[0]);
}

/* A provider that reaches only this host: one that says so (FI_LOCAL_COMM without
 * FI_REMOTE_COMM), or shm and sm2, whose names (fi_shm://pid...) carry no host and
 * which in libfabric 1.17 say neither. */
static int local_only(const struct fi_info *info)
{
    static const char *const local[] = { "shm", "sm2" };
    uint64_t c = info->caps & (FI_LOCAL_COMM | FI_REMOTE_COMM);
    return c == FI_LOCAL_COMM || (c == 0 && core_provider_in(info, local, 2));
}

int rmaib_ofi_local_only(void)
{
    return atomic_load(&ofi.up) && ofi.local_only;
}

int rmaib_ofi_atomics_on_cpu(void)
{
    return atomic_load(&ofi.up) && software_atomics(ofi.info);
}

int rmaib_ofi_wants_polling(void)
{
    return atomic_load_explicit(&ofi.up, memory_order_relaxed) && ofi.manual;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char try_reason[256];

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(try_reason, sizeof try_reason, fmt, ap);
    va_end(ap);
    return RMAIB_ERR_TRANSPORT;
}

void rmaib_ofi_close_fid(void *fidp)
{
    struct fid **f = fidp;
    if (*f)
        fi_close(*f);
    *f = NULL;
}

static void teardown(void)
{
    rmaib_ofi_close_fid(&ofi.pool_mr);   /* bound to the endpoint with FI_MR_ENDPOINT */
    rmaib_ofi_close_fid(&ofi.ep);
    rmaib_ofi_close_fid(&ofi.cq);
    rmaib_ofi_close_fid(&ofi.av);
    rmaib_ofi_close_fid(&ofi.domain);
    rmaib_ofi_close_fid(&ofi.fabric);
    if (ofi.info)
        fi_freeinfo(ofi.info);
    ofi.info = NULL;
    free(ofi.pool);
    ofi.pool = NULL;
    free(ofi.addrs);
    free(ofi.addr_by_name);
    free(ofi.addr_by_inet);
    ofi.addrs = NULL;
    ofi.addr_by_name = ofi.addr_by_inet = NULL;
    ofi.naddrs = ofi.addrs_cap = ofi.addr_slots = 0;
    if (ofi.sock_wait)
        rmaib_sock_wait_close();
    ofi.sock_wait = 0;
}

int rmaib_ofi_map_datatype(rmaib_basic_t b, enum fi_datatype *dt)
{
    switch (b) {
    case RMAIB_BASIC_INT8: *dt = FI_INT8; return 1;
    case RMAIB_BASIC_INT16: *dt = FI_INT16; return 1;
    case RMAIB_BASIC_INT32: *dt = FI_INT32; return 1;
    case RMAIB_BASIC_INT64: *dt = FI_INT64; return 1;
    case RMAIB_BASIC_UINT8: *dt = FI_UINT8; return 1;
    case RMAIB_BASIC_UINT16: *dt = FI_UINT16; return 1;
    case RMAIB_BASIC_UINT32: *dt = FI_UINT32; return 1;
    case RMAIB_BASIC_UINT64: *dt = FI_UINT64; return 1;
    case RMAIB_BASIC_FLOAT: *dt = FI_FLOAT; return 1;
    case RMAIB_BASIC_DOUBLE: *dt = FI_DOUBLE; return 1;
    case RMAIB_BASIC_C_FLOAT_COMPLEX: *dt = FI_FLOAT_COMPLEX; return 1;
    case RMAIB_BASIC_BOOL:      /* 0/1 in one byte: the logical ops give 0/1 back */
    case RMAIB_BASIC_BYTE:
    case RMAIB_BASIC_CHAR: *dt = FI_UINT8; return 1;
    case RMAIB_BASIC_LOGICAL4:  /* 0/1 from the logical ops, as libfabric's are */
    case RMAIB_BASIC_OPAQUE4: *dt = FI_UINT32; return 1;     /* REPLACE/NO_OP only */
    default: return 0;          /* wider than 8 bytes, or a MAXLOC/MINLOC pair */
    }
}

int rmaib_ofi_map_op(rmaib_op_t op, enum fi_op *fop)
{
    switch (op) {
    case RMAIB_OP_SUM: *fop = FI_SUM; return 1;
    case RMAIB_OP_PROD: *fop = FI_PROD; return 1;
    case RMAIB_OP_MAX: *fop = FI_MAX; return 1;
    case RMAIB_OP_MIN: *fop = FI_MIN; return 1;
    case RMAIB_OP_LAND: *fop = FI_LAND; return 1;
    case RMAIB_OP_LOR: *fop = FI_LOR; return 1;
    case RMAIB_OP_LXOR: *fop = FI_LXOR; return 1;
    case RMAIB_OP_BAND: *fop = FI_BAND; return 1;
    case RMAIB_OP_BOR: *fop = FI_BOR; return 1;
    case RMAIB_OP_BXOR: *fop = FI_BXOR; return 1;
    case RMAIB_OP_REPLACE: *fop = FI_ATOMIC_WRITE; return 1;
    case RMAIB_OP_NO_OP: *fop = FI_ATOMIC_READ; return 1;
    default: return 0;          /* MAXLOC, MINLOC */
    }
}

/* Native for type b iff every op MPI allows on b is valid with count >= 1, fetching
 * and not, plus compare-swap where MPI has it: all or nothing per type. */
static void build_atomic_table(void)
{
    for (int b = 1; b < RMAIB_BASIC_COUNT; b++) {
        enum fi_datatype dt;
        size_t nf = POOL_MAX, f = POOL_MAX, c;
        int ok = rmaib_ofi_map_datatype(b, &dt) && rmaib_basic_size(b) <= 8;
        for (int op = RMAIB_OP_SUM; ok && op < RMAIB_OP_COUNT; op++) {
            enum fi_op fop;
            if (rmaib_reduce_valid(b, op) != RMAIB_OK)
                continue;
            if (!rmaib_ofi_map_op(op, &fop)) {
                ok = 0;
                break;
            }
            if (op != RMAIB_OP_NO_OP) {
                c = 0;
                if (fi_atomicvalid(ofi.ep, dt, fop, &c) != 0 || c < 1)
                    ok = 0;
                else if (c < nf)
                    nf = c;
            }
            c = 0;
            if (ok && (fi_fetch_atomicvalid(ofi.ep, dt, fop, &c) != 0 || c < 1))
                ok = 0;
            else if (c < f)
                f = c;
        }
        if (ok && rmaib_cas_valid(b) == RMAIB_OK) {
            c = 0;
            enum fi_datatype u = rmaib_ofi_uint_of_size(rmaib_basic_size(b));
            if (fi_compare_atomicvalid(ofi.ep, u, FI_CSWAP, &c) != 0 || c < 1)
                ok = 0;
        }
        ofi.native[b] = (unsigned char) ok;
        ofi.count_nf[b] = nf;
        ofi.count_f[b] = f;
    }
}

static int valid64(int kind, enum fi_op op)
{
    size_t c = 0;
    int r = kind == 0 ? fi_atomicvalid(ofi.ep, FI_UINT64, op, &c)
        : kind == 1 ? fi_fetch_atomicvalid(ofi.ep, FI_UINT64, op, &c)
        : fi_compare_atomicvalid(ofi.ep, FI_UINT64, op, &c);
    return r == 0 && c >= 1;
}

static struct fi_info *get_info(const char *prov, int dc)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    if (!hints)
        return NULL;
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = 0;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED
        | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->tx_attr->op_flags = dc ? FI_DELIVERY_COMPLETE : 0;
    hints->fabric_attr->prov_name = strdup(prov);
    if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info) != 0)
        info = NULL;
    fi_freeinfo(hints);
    /* The layering asked for, not a lower one the name happens to match. */
    while (info && strcasecmp(info->fabric_attr->prov_name, prov) != 0) {
        struct fi_info *next = info->next;
        info->next = NULL;
        fi_freeinfo(info);
        info = next;
    }
    if (info && info->next) {
        fi_freeinfo(info->next);
        info->next = NULL;
    }
    return info;
}

/* Do peers' operations on us move only inside our calls?  Manual progress, or
 * FI_PROGRESS_CONTROL_UNIFIED (libfabric 1.21 and 2.x: value 3, which the 1.17
 * headers have no name for), which implies it. */
enum { OFI_PROGRESS_CONTROL_UNIFIED = 3 };

static int progress_manual(enum fi_progress p)
{
    return p == FI_PROGRESS_MANUAL || (int) p == OFI_PROGRESS_CONTROL_UNIFIED;
}

static int want_thread(void)
{
    if (rmaib_config.async_progress >= 0)
        return rmaib_config.async_progress;
    /* Default: serve the target side in a thread when peers' requests move only
     * inside our calls, or a target blocked in the host MPI would starve its peers. */
    return ofi.manual;
}

/* Does the domain do 64-bit fetch-add and compare-swap?  Asked before the endpoint
 * exists: the answer decides the progress thread, which the CQ is opened for.  1 or
 * 0; -1 where the domain cannot say (-FI_ENOSYS: opx has atomics but no
 * query_atomic, net has neither), for the endpoint to answer (check_atomics).
 * A yes is checked again on the endpoint (valid64). */
static int domain_atomics64(void)
{
    struct fi_atomic_attr a;
    int add = fi_query_atomic(ofi.domain, FI_UINT64, FI_SUM, &a, FI_FETCH_ATOMIC);
    int cas = fi_query_atomic(ofi.domain, FI_UINT64, FI_CSWAP, &a, FI_COMPARE_ATOMIC);
    if (add == -FI_ENOSYS && cas == -FI_ENOSYS)
        return -1;
    return add == 0 && cas == 0;
}

/* What the provider's info says about registration, sizes and ordering. */
static int read_traits(struct fi_info *info, int dc)
{
    uint64_t mr = info->domain_attr->mr_mode;
    /* Such a provider writes its own state into each operation's context, which here
     * is a tagged pointer (ofi_impl.h), not an fi_context: refused, not corrupted. */
    if (info->mode & (FI_CONTEXT | FI_CONTEXT2))
        return fail("it needs mode %s, an fi_context in every operation's context",
                    info->mode & FI_CONTEXT2 ? "FI_CONTEXT2" : "FI_CONTEXT");
    /* Our iovec arrays live on the caller's stack while the operation is in flight,
     * which FI_ASYNC_IOV (opx) forbids: refused, not read after they are gone. */
    if (info->mode & FI_ASYNC_IOV)
        return fail("it needs mode FI_ASYNC_IOV, iovec arrays kept until completion");
    ofi.mr_local = (mr & FI_MR_LOCAL) != 0 || rmaib_config.ofi_mr_local;
    ofi.virt_addr = (mr & FI_MR_VIRT_ADDR) != 0;
    ofi.prov_key = (mr & FI_MR_PROV_KEY) != 0;
    ofi.mr_endpoint = (mr & FI_MR_ENDPOINT) != 0;
    ofi.chosen_keys = !ofi.prov_key && !ofi.virt_addr && info->domain_attr->mr_key_size >= 4;
    ofi.delivery_complete = dc;
    ofi.local_only = local_only(info);
    ofi.inject_size = info->tx_attr->inject_size;
    ofi.max_msg = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (size_t) 1 << 30;
    if (ofi.max_msg > POOL_MAX)
        ofi.max_msg = POOL_MAX;     /* every piece fits one ring block */
    ofi.iov_max = info->tx_attr->iov_limit ? info->tx_attr->iov_limit : 1;
    ofi.rma_iov_max = info->tx_attr->rma_iov_limit ? info->tx_attr->rma_iov_limit : 1;
    if (ofi.iov_max > BATCH_IOV)
        ofi.iov_max = BATCH_IOV;
    if (ofi.rma_iov_max > BATCH_IOV)
        ofi.rma_iov_max = BATCH_IOV;
    uint64_t order = info->tx_attr->msg_order & info->rx_attr->msg_order;
    ofi.raw_ordered = (order & (FI_ORDER_RMA_RAW | FI_ORDER_RAW)) != 0;
    ofi.atomic_ordered = (order & (FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW))
        == (FI_ORDER_ATOMIC_RAW | FI_ORDER_ATOMIC_WAW);
    ofi.waw_size = !(order & (FI_ORDER_RMA_WAW | FI_ORDER_WAW)) ? 0
        : stream_placed(info) ? SIZE_MAX : info->ep_attr->max_order_waw_size;
    if (!dc && !ofi.raw_ordered)
        return fail("neither FI_DELIVERY_COMPLETE nor read-after-write ordering");
    info->tx_attr->op_flags = dc ? FI_DELIVERY_COMPLETE : 0;
    return RMAIB_OK;
}

static int open_domain(struct fi_info *info)
{
    int r = fi_fabric(info->fabric_attr, &ofi.fabric, NULL);
    if (r == 0)
        r = fi_domain(ofi.fabric, info, &ofi.domain, NULL);
    if (r != 0)
        return fail("cannot open fabric/domain: %s", fi_strerror(-r));
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    r = fi_av_open(ofi.domain, &av_attr, &ofi.av, NULL);
    if (r != 0)
        return fail("fi_av_open: %s", fi_strerror(-r));
    return RMAIB_OK;
}

/* Who applies atomics and who moves peers' requests: decided before the CQ is
 * opened, which the progress thread's way of sleeping chooses the wait object of.
 * *mailbox: the provider could carry the mailbox's traffic; *unknown: the domain
 * cannot say whether it has atomics (check_atomics asks the endpoint). */
static int choose_progress(const struct fi_info *info, int *mailbox, int *unknown)
{
    /* Without atomics of its own, a provider runs on the mailbox alone (see ofi.c),
     * which needs remote CQ data, 32-byte injects and someone reading our CQ. */
    *mailbox = software_atomics(info) && info->domain_attr->cq_data_size >= sizeof(uint64_t)
        && ofi.inject_size >= sizeof(rmaib_amo_req_t);
    int dom = domain_atomics64();
    *unknown = dom < 0;
    ofi.amo_only = dom == 0;
    if (ofi.amo_only && !*mailbox)
        return fail("no 64-bit fetch-add and compare-swap");
    if (ofi.amo_only && rmaib_config.ofi_provider_atomics)
        return fail("no atomics of its own (RMAIB_OFI_ATOMICS=provider)");
    ofi.manual = progress_manual(info->domain_attr->data_progress) || ofi.amo_only;
    ofi.thread = want_thread();

    /* The progress thread sleeps on tcp's sockets, where it can (sock_wait.c), and
     * in the CQ's wait object elsewhere. */
    static const char *const tcp[] = { "tcp" };
    ofi.sock_wait = ofi.thread && core_provider_in(info, tcp, 1)
        && (info->addr_format == FI_SOCKADDR_IN || info->addr_format == FI_SOCKADDR_IN6)
        && rmaib_sock_wait_open() == 0;
    return RMAIB_OK;
}

static int open_cq(void)
{
    struct fi_cq_attr cq_attr = { .size = CQ_SIZE, .format = FI_CQ_FORMAT_DATA,
        .wait_obj = ofi.thread && !ofi.sock_wait ? FI_WAIT_UNSPEC : FI_WAIT_NONE };
    int r = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
    if (r != 0 && cq_attr.wait_obj != FI_WAIT_NONE) {
        cq_attr.wait_obj = FI_WAIT_NONE;
        r = fi_cq_open(ofi.domain, &cq_attr, &ofi.cq, NULL);
    }
    if (r != 0)
        return fail("fi_cq_open: %s", fi_strerror(-r));
    ofi.cq_wait = cq_attr.wait_obj != FI_WAIT_NONE;
    return RMAIB_OK;
}

static int open_endpoint(struct fi_info *info)
{
    int r = fi_endpoint(ofi.domain, info, &ofi.ep, NULL);
    if (r == 0)
        r = fi_ep_bind(ofi.ep, &ofi.av->fid, 0);
    if (r == 0)
        r = fi_ep_bind(ofi.ep, &ofi.cq->fid, FI_TRANSMIT | FI_RECV);
    if (r == 0)
        r = fi_enable(ofi.ep);
    if (r != 0)
        return fail("cannot open the endpoint: %s", fi_strerror(-r));
    ofi.namelen = sizeof ofi.name;
    r = fi_getname(&ofi.ep->fid, ofi.name, &ofi.namelen);
    if (r != 0)
        return fail("fi_getname: %s", fi_strerror(-r));
    return RMAIB_OK;
}

/* The endpoint's atomics, and whether control-word atomics go by the mailbox. */
static int check_atomics(int mailbox, int unknown)
{
    int have = valid64(1, FI_SUM) && valid64(2, FI_CSWAP);
    /* A domain that could not say: the endpoint's answer stands, and without atomics
     * the mailbox serves, where progress is manual anyway (the progress thread and
     * the CQ were chosen for that). */
    if (unknown && !have && mailbox && ofi.manual
        && !rmaib_config.ofi_provider_atomics) {
        ofi.amo_only = 1;
        have = 1;
    }
    if (!ofi.amo_only && !have)
        return fail("no 64-bit fetch-add and compare-swap");
    ofi.have_read = valid64(1, FI_ATOMIC_READ);
    ofi.have_write = valid64(0, FI_ATOMIC_WRITE);
    ofi.have_swap = valid64(1, FI_ATOMIC_WRITE);
    build_atomic_table();
    ofi.amo = ofi.manual && mailbox && !rmaib_config.ofi_provider_atomics;
    return RMAIB_OK;
}

static int open_ring(void)
{
    if (posix_memalign((void **) &ofi.pool, 4096, POOL_BYTES) != 0) {
        ofi.pool = NULL;
        fail("out of memory for the bounce ring");
        return RMAIB_ERR_NO_MEM;
    }
    ofi.head = ofi.tail = 0;
    ofi.pool_desc = NULL;
    if (!ofi.mr_local)
        return RMAIB_OK;
    memset(ofi.pool, 0, POOL_BYTES);        /* FI_MR_ALLOCATED: back every page */
    int r = rmaib_fault(RMAIB_FAULT_MR_REG) ? -FI_ENOMEM
        : fi_mr_reg(ofi.domain, ofi.pool, POOL_BYTES, FI_READ | FI_WRITE, 0,
                    atomic_fetch_add(&ofi.next_key, 1), 0, &ofi.pool_mr, NULL);
    if (r == 0 && ofi.mr_endpoint) {
        r = fi_mr_bind(ofi.pool_mr, &ofi.ep->fid, 0);
        if (r == 0)
            r = fi_mr_enable(ofi.pool_mr);
    }
    if (r != 0) {
        int rc = fail("cannot register the bounce ring: %s", fi_strerror(-r));
        return r == -FI_ENOMEM ? RMAIB_ERR_NO_MEM : rc;
    }
    ofi.pool_desc = fi_mr_desc(ofi.pool_mr);
    return RMAIB_OK;
}

/* Bring up the endpoint on provider prov, or say why not in try_reason; the caller
 * tears down whatever a failed attempt opened. */
static int try_provider(const char *prov)
{
    struct fi_info *info = get_info(prov, 1);
    int dc = info != NULL, mailbox = 0, unknown = 0, rc;
    if (!dc)
        info = get_info(prov, 0);
    if (!info)
        return fail("no FI_EP_RDM endpoint with FI_RMA|FI_ATOMIC");
    ofi.info = info;
    rc = read_traits(info, dc);
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = open_domain(info);
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = choose_progress(info, &mailbox, &unknown);
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = open_cq();
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = open_endpoint(info);
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = check_atomics(mailbox, unknown);
    if (rc != RMAIB_OK)
        goto fn_exit;
    rc = open_ring();
  fn_exit:
    return rc;
}

static void ofi_atexit(void)
{
    rmaib_ofi_finalize();
}

int rmaib_ofi_init(void)
{
    static int atexit_done;
    /* Fabrics first (Slingshot, AWS, Omni-Path, Intel Ethernet, InfiniBand), then
     * the software providers; shm last, as it reaches this host only. */
    static const char *const automatic[] = { "cxi", "efa", "opx", "psm3", "verbs;ofi_rxm",
                                             "tcp;ofi_rxm", "sockets", "shm" };
    int rc = RMAIB_OK;
    if (atomic_load(&ofi.up))
        return RMAIB_OK;
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&ofi.up) || ofi.failed) {
        rc = ofi.failed ? RMAIB_ERR_TRANSPORT : RMAIB_OK;
        goto fn_exit;
    }
    /* RMAIB_OFI_PROVIDER: one name or a comma-separated list, tried in order. */
    char names[512];
    const char *list[16];
    size_t nlist = 0;
    if (rmaib_config.ofi_provider) {
        char *save = NULL;
        snprintf(names, sizeof names, "%s", rmaib_config.ofi_provider);
        for (char *t = strtok_r(names, ",", &save); t && nlist < 16; t = strtok_r(NULL, ",", &save))
            if (*t)
                list[nlist++] = t;
    }
    if (nlist == 0)
        for (size_t i = 0; i < sizeof automatic / sizeof automatic[0]; i++)
            list[nlist++] = automatic[i];
    size_t used = 0;
    ofi.failure[0] = 0;
    /* rxm's bounce buffers, 16 KiB by default, cost 90 MB resident per process at
     * start-up; rmaib's data moves by RMA and needs them only up to rxm's inject
     * size.  At 2 KiB: 18 MB, latency and bandwidth unchanged (docs/scaling.md).
     * A value in the environment stays; libfabric reads it at its first call. */
    setenv("FI_OFI_RXM_BUFFER_SIZE", "2048", 0);
    if (rmaib_fi_load(rmaib_config.ofi_library, ofi.failure, sizeof ofi.failure) != 0) {
        rc = RMAIB_ERR_TRANSPORT;
        ofi.failed = 1;
        goto fn_exit;
    }
    atomic_store(&ofi.next_key, OFI_KEY_LOCAL0);
    rc = RMAIB_ERR_TRANSPORT;
    for (size_t i = 0; i < nlist; i++) {
        try_reason[0] = 0;
        rc = try_provider(list[i]);
        if (rc == RMAIB_OK)
            break;
        teardown();
        used += (size_t) snprintf(ofi.failure + used, used < sizeof ofi.failure ?
                                  sizeof ofi.failure - used : 0, "%s%s: %s", i ? ", " : "",
                                  list[i], try_reason);
        if (used >= sizeof ofi.failure)
            used = sizeof ofi.failure - 1;
        if (rc == RMAIB_ERR_NO_MEM)
            break;
    }
    if (rc != RMAIB_OK) {
        snprintf(ofi.failure + used, sizeof ofi.failure - used, "; set RMAIB_OFI_PROVIDER to "
                 "a provider that offers FI_EP_RDM with FI_RMA|FI_ATOMIC (fi_info -t FI_EP_RDM "
                 "-c 'FI_RMA|FI_ATOMIC')");
        ofi.failed = rc != RMAIB_ERR_NO_MEM;     /* out of memory: the next window tries again */
        goto fn_exit;
    }
    atomic_store(&ofi.up, 1);
    if (!atexit_done) {
        atexit(ofi_atexit);
        atexit_done = 1;
    }
    if (rmaib_config.verbose)
        rmaib_host_say("rmaib: ofi provider %s on %s, mr_mode [%s], %s, progress thread %s, "
                       "control atomics by the %s",
                       ofi.info->fabric_attr->prov_name, ofi.info->domain_attr->name,
                       fi_tostr(&ofi.info->domain_attr->mr_mode, FI_TYPE_MR_MODE),
                       ofi.delivery_complete ? "FI_DELIVERY_COMPLETE" : "trailing reads",
                       !ofi.thread ? "off" : ofi.sock_wait ? "on (sleeps on tcp's sockets)" : "on",
                       ofi.amo_only ? "target (the provider has none)"
                       : ofi.amo ? "target" : "provider");
    if (ofi.thread && rmaib_progress_thread_start() != RMAIB_OK)
        ofi.thread = 0;
  fn_exit:
    pthread_mutex_unlock(&init_lock);
    return rc;
}

const char *rmaib_ofi_failure(void)
{
    return ofi.failure;
}

void rmaib_ofi_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&ofi.up)) {
        if (ofi.thread)
            rmaib_progress_thread_stop();
        atomic_store(&ofi.up, 0);
        teardown();
    }
    ofi.failed = 0;
    pthread_mutex_unlock(&init_lock);
}
