/*
 * startup: what a job pays before and around its first window.  Each rank times
 * MPI_Init, then (MODE alloc) one MPI_Win_allocate of 4 KiB with a fence and its free;
 * rank 0 prints the slowest rank's figures in ms:
 *     init_ms W  win_ms W
 * MODE none makes no window (win_ms 0).  The network window is MODE alloc run with
 * rmaib's RMAIB_TRANSPORT=ofi (bench/startup.sh sets it): its win_ms is the first
 * network window's cost, libfabric's start-up included.
 * MODE load LIB (no MPI call) prints the ms a dlopen of LIB takes with the MPI
 * library already loaded.
 * MODE fabric [PROVIDER] (no MPI) times libfabric alone, the floor under that: dlopen
 * of libfabric.so.1, fi_getinfo with rmaib's hints for PROVIDER (tcp;ofi_rxm by
 * default), and the fabric, domain, address vector, CQ and enabled endpoint rmaib
 * opens, and prints
 *     load_ms W  getinfo_ms W  endpoint_ms W
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

#ifdef HAVE_OFI
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

/* libfabric by dlopen, as rmaib opens it, through the endpoint rmaib opens: its
 * exported functions by dlsym, the rest through the headers' inline ops. */
static int fabric(const char *prov)
{
    double t0 = now_ms();
    void *h = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    double t1 = now_ms();
    if (!h) {
        fprintf(stderr, "startup: %s\n", dlerror());
        return 1;
    }
    int (*getinfo)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                   struct fi_info **) = dlsym(h, "fi_getinfo");
    struct fi_info *(*dupinfo)(const struct fi_info *) = dlsym(h, "fi_dupinfo");
    int (*open_fabric)(struct fi_fabric_attr *, struct fid_fabric **, void *) =
        dlsym(h, "fi_fabric");
    if (!getinfo || !dupinfo || !open_fabric)
        return 1;
    struct fi_info *hints = dupinfo(NULL), *info = NULL;
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED
        | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    hints->fabric_attr->prov_name = strdup(prov);
    if (getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info) != 0 || !info) {
        fprintf(stderr, "startup: no %s endpoint\n", prov);
        return 1;
    }
    double t2 = now_ms();
    struct fid_fabric *fab;
    struct fid_domain *dom;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_ep *ep;
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_FD };
    if (open_fabric(info->fabric_attr, &fab, NULL) || fi_domain(fab, info, &dom, NULL)
        || fi_av_open(dom, &av_attr, &av, NULL) || fi_cq_open(dom, &cq_attr, &cq, NULL)
        || fi_endpoint(dom, info, &ep, NULL) || fi_ep_bind(ep, &av->fid, 0)
        || fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV) || fi_enable(ep)) {
        fprintf(stderr, "startup: cannot open a %s endpoint\n", prov);
        return 1;
    }
    double t3 = now_ms();
    printf("load_ms %.2f  getinfo_ms %.2f  endpoint_ms %.2f\n", t1 - t0, t2 - t1, t3 - t2);
    return 0;
}
#else
static int fabric(const char *prov)
{
    (void) prov;
    fprintf(stderr, "startup: built without libfabric's headers\n");
    return 1;
}
#endif

/* dlopen of LIB, in a process that has the MPI library loaded already (the
 * program links it): what loading rmaib costs a process, whatever the machine's
 * load does to whole jobs. */
static int load(const char *lib)
{
    double t0 = now_ms();
    void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
    double t1 = now_ms();
    if (!h) {
        fprintf(stderr, "startup: %s\n", dlerror());
        return 1;
    }
    printf("load_ms %.3f\n", t1 - t0);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "none";
    if (strcmp(mode, "load") == 0 && argc > 2)
        return load(argv[2]);
    if (strcmp(mode, "fabric") == 0)
        return fabric(argc > 2 ? argv[2] : "tcp;ofi_rxm");
    double t0 = now_ms();
    MPI_Init(&argc, &argv);
    double t[2] = { now_ms() - t0, 0 }, tmax[2];
    if (strcmp(mode, "alloc") == 0) {
        double t1 = now_ms();
        char *base;
        MPI_Win win;
        MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        MPI_Win_fence(0, win);
        MPI_Win_free(&win);
        t[1] = now_ms() - t1;
    }
    MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("init_ms %.2f  win_ms %.2f\n", tmax[0], tmax[1]);
    MPI_Finalize();
    return 0;
}
