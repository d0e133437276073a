/*
 * ofi_floor: the provider's own round trip, under rmaib's ofi backend.
 *
 * Two figures.  writedata_rtt is the application-level round trip below; write_dc
 * is one 8-byte fi_writemsg with FI_DELIVERY_COMPLETE, waited for at the origin while
 * the target only polls its completion queue: the provider's acknowledgement of a
 * write in the target's memory, the floor under a put+flush that completes at the
 * target.
 *
 * Two ranks ping-pong an 8-byte fi_inject_writedata on a bare libfabric
 * FI_EP_RDM endpoint opened with the hints rmaib's ofi backend uses, each polling
 * its completion queue (no wait object) for the other's write; MPI only exchanges
 * the endpoint names and memory keys.  An rmaib fetch-and-op or lock acquire over
 * a provider that applies atomics in software is this exchange (a request written
 * into the target's mailbox, the answer written back), so this is the floor under
 * those figures, and what the same-run ratios compare them with: with libfabric
 * 1.17's tcp;ofi_rxm on the 2-core machine the floor alone matched stock MPICH's
 * whole fetch-and-op over TCP.
 *
 * The provider is RMAIB_OFI_PROVIDER's first entry, tcp;ofi_rxm by default;
 * libfabric's own variables choose the interface (FI_TCP_IFACE=lo).
 * Options as every program of the suite (-i, -x, -T, -f csv).
 */
#include "osu_common.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_rma.h>

#define FI_CHECK(call)                                                          \
    do {                                                                        \
        int fi_rc_ = (int) (call);                                              \
        if (fi_rc_ != 0) {                                                      \
            fprintf(stderr, "ofi_floor: %s: %s\n", #call, fi_strerror(-fi_rc_)); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

struct floor_ep {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_cq *cq;
    struct fid_av *av;
    struct fid_ep *ep;
    struct fid_mr *mr;
    fi_addr_t peer;
    uint64_t peer_addr, peer_key;
};

static uint64_t landing[8];     /* the peer writes words 0 and 1; word 4 is a source */

static void open_ep(struct floor_ep *f, const char *prov, int peer)
{
    struct fi_info *hints = fi_allocinfo();
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED
        | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->av_type = FI_AV_TABLE;
    hints->fabric_attr->prov_name = strdup(prov);
    FI_CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &f->info));
    fi_freeinfo(hints);

    FI_CHECK(fi_fabric(f->info->fabric_attr, &f->fabric, NULL));
    FI_CHECK(fi_domain(f->fabric, f->info, &f->domain, NULL));
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE };
    FI_CHECK(fi_cq_open(f->domain, &cq_attr, &f->cq, NULL));
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE };
    FI_CHECK(fi_av_open(f->domain, &av_attr, &f->av, NULL));
    FI_CHECK(fi_endpoint(f->domain, f->info, &f->ep, NULL));
    FI_CHECK(fi_ep_bind(f->ep, &f->cq->fid, FI_TRANSMIT | FI_RECV));
    FI_CHECK(fi_ep_bind(f->ep, &f->av->fid, 0));
    FI_CHECK(fi_enable(f->ep));
    FI_CHECK(fi_mr_reg(f->domain, landing, sizeof landing, FI_WRITE | FI_REMOTE_WRITE, 0, 0, 0,
                       &f->mr, NULL));
    if (f->info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        FI_CHECK(fi_mr_bind(f->mr, &f->ep->fid, 0));
        FI_CHECK(fi_mr_enable(f->mr));
    }

    char name[256], peer_name[256];
    size_t len = sizeof name;
    memset(name, 0, sizeof name);
    FI_CHECK(fi_getname(&f->ep->fid, name, &len));
    OSU_CHECK(MPI_Sendrecv(name, sizeof name, MPI_BYTE, peer, 0, peer_name, sizeof peer_name,
                           MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    if (fi_av_insert(f->av, peer_name, 1, &f->peer, 0, NULL) != 1) {
        fprintf(stderr, "ofi_floor: fi_av_insert of the peer's name failed\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    uint64_t mine[2] = { f->info->domain_attr->mr_mode & FI_MR_VIRT_ADDR
                         ? (uint64_t) (uintptr_t) landing : 0, fi_mr_key(f->mr) }, theirs[2];
    OSU_CHECK(MPI_Sendrecv(mine, 2, MPI_UINT64_T, peer, 0, theirs, 2, MPI_UINT64_T, peer, 0,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    f->peer_addr = theirs[0];
    f->peer_key = theirs[1];
}

static void close_ep(struct floor_ep *f)
{
    fi_close(&f->ep->fid);
    fi_close(&f->mr->fid);
    fi_close(&f->av->fid);
    fi_close(&f->cq->fid);
    fi_close(&f->domain->fid);
    fi_close(&f->fabric->fid);
    fi_freeinfo(f->info);
}

/* Wait for the peer's write: its completion carries the data word. */
static void await_write(struct floor_ep *f)
{
    struct fi_cq_data_entry e;
    ssize_t r;
    while ((r = fi_cq_read(f->cq, &e, 1)) == -FI_EAGAIN)
        ;
    if (r != 1) {
        struct fi_cq_err_entry err = { 0 };
        fi_cq_readerr(f->cq, &err, 0);
        fprintf(stderr, "ofi_floor: completion error: %s\n", fi_strerror(err.err));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void send_write(struct floor_ep *f, const uint64_t *v)
{
    ssize_t r;
    while ((r = fi_inject_writedata(f->ep, v, sizeof *v, *v, f->peer, f->peer_addr,
                                    f->peer_key)) == -FI_EAGAIN) {
        struct fi_cq_data_entry e;
        if (fi_cq_read(f->cq, &e, 1) == 1) {
            fprintf(stderr, "ofi_floor: a write arrived out of turn\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    FI_CHECK(r);
}

/* One write the provider acknowledges once it is in the peer's memory; wait for it. */
static void write_delivered(struct floor_ep *f, uint64_t v)
{
    landing[4] = v;
    struct iovec iov = { &landing[4], sizeof v };
    struct fi_rma_iov riov = { f->peer_addr + sizeof(uint64_t), sizeof v, f->peer_key };
    struct fi_msg_rma msg = {
        .msg_iov = &iov, .iov_count = 1, .addr = f->peer, .rma_iov = &riov, .rma_iov_count = 1,
    };
    void *desc = fi_mr_desc(f->mr);
    msg.desc = &desc;
    ssize_t r;
    while ((r = fi_writemsg(f->ep, &msg, FI_COMPLETION | FI_DELIVERY_COMPLETE)) == -FI_EAGAIN)
        ;
    FI_CHECK(r);
    await_write(f);
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    int rank, rc;

    rc = osu_start_pair(&argc, &argv, "ofi_floor", NULL, &o, NULL, NULL, NULL, NULL, &rank);
    if (rc >= 0)
        return rc;
    char prov[128] = "tcp;ofi_rxm";
    const char *env = getenv("RMAIB_OFI_PROVIDER");
    if (env && *env)
        snprintf(prov, sizeof prov, "%.*s", (int) strcspn(env, ","), env);

    struct floor_ep f;
    open_ep(&f, prov, 1 - rank);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));

    int i, n = o.iters, skip = o.skip, capped = o.time_cap > 0;
    double t_first = 0, t0 = 0;
    uint64_t seq = 0;
    OSU_TIMED_LOOP(&o, 1, 1, {
        seq++;
        if (rank == 0) {
            send_write(&f, &seq);
            await_write(&f);
        } else {
            await_write(&f);
            send_write(&f, &seq);
        }
    })
    double us_rtt = (MPI_Wtime() - t0) * 1e6 / n;
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (landing[0] != seq) {
        fprintf(stderr, "ofi_floor: rank %d: the last write left %llu, expected %llu\n", rank,
                (unsigned long long) landing[0], (unsigned long long) seq);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* write_dc: rank 0 alone times its writes; rank 1 polls its completion queue,
     * which moves the provider, until rank 0's closing writedata arrives. */
    double us_dc = 0;
    n = o.iters;
    skip = o.skip;
    seq = 0;
    if (rank == 0) {
        OSU_TIMED_LOOP(&o, 0, 1, {
            seq++;
            write_delivered(&f, seq);
        })
        us_dc = (MPI_Wtime() - t0) * 1e6 / n;
        send_write(&f, &seq);
    } else {
        await_write(&f);
    }
    OSU_CHECK(MPI_Bcast(&seq, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD));
    if (rank == 1 && landing[1] != seq) {
        fprintf(stderr, "ofi_floor: the last delivered write left %llu, expected %llu\n",
                (unsigned long long) landing[1], (unsigned long long) seq);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        if (o.csv) {
            osu_csv_header(&o);
            osu_row(&o, "ofi_floor", "writedata_rtt", o.win, 8, "latency", us_rtt, "us");
            osu_row(&o, "ofi_floor", "write_dc", o.win, 8, "latency", us_dc, "us");
        } else {
            printf("# ofi_floor: bare libfabric, %s, 2 ranks, %d iterations\n%-32s%14s\n"
                   "%-32s%14.3f\n%-32s%14.3f\n", f.info->fabric_attr->prov_name, n,
                   "# Figure", "Latency (us)", "writedata round trip, 8 B", us_rtt,
                   "delivery-complete write, 8 B", us_dc);
        }
        fflush(stdout);
    }
    close_ep(&f);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
