/*
 * ofi_floor: the provider's own costs, under rmaib's ofi backend.
 *
 * Two ranks on a bare libfabric FI_EP_RDM endpoint opened with the hints rmaib's
 * ofi backend uses, polling (no wait object); MPI only exchanges the endpoint names
 * and memory keys.  Figures, all of 8 bytes:
 *   writedata_rtt      an fi_inject_writedata each way, each rank polling its
 *                      completion queue for the other's: the exchange rmaib's
 *                      fetch-and-op and lock acquire made over a provider that
 *                      applies atomics in software when both messages carried
 *                      remote CQ data, so the floor the same-run ratios compare
 *                      them with (with libfabric 1.17's tcp;ofi_rxm on the 2-core
 *                      machine it alone matched stock MPICH's whole fetch-and-op
 *                      over TCP);
 *   answer_polled_rtt  the request as above, the answer an fi_inject_write that no
 *                      completion announces, which rank 0 finds by looking at its
 *                      memory while it polls the CQ: rmaib's mailbox exchange;
 *   write_polled_rtt   fi_inject_write both ways, both found by looking: the
 *                      exchange with no completion at all;
 *   write_dc           one fi_writemsg with FI_DELIVERY_COMPLETE, waited for at the
 *                      origin while the target only polls its CQ: the provider's
 *                      acknowledgement of a write in the target's memory, the floor
 *                      under a put+flush that completes at the target.
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

static uint64_t landing[8];     /* the peer writes words 0-3, one per figure; 4 is a source */

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

/* Move the provider once; no completion is due. */
static void progress(struct floor_ep *f)
{
    struct fi_cq_data_entry e;
    if (fi_cq_read(f->cq, &e, 1) == 1) {
        fprintf(stderr, "ofi_floor: a completion arrived where none was due\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* v into the peer's landing[word], with remote CQ data or with none. */
static void send_to(struct floor_ep *f, int word, const uint64_t *v, int with_data)
{
    if (with_data && word == 0) {
        send_write(f, v);
        return;
    }
    uint64_t raddr = f->peer_addr + (uint64_t) word * sizeof *v;
    ssize_t r;
    while ((r = with_data ? fi_inject_writedata(f->ep, v, sizeof *v, *v, f->peer, raddr,
                                                f->peer_key)
                : fi_inject_write(f->ep, v, sizeof *v, f->peer, raddr, f->peer_key))
           == -FI_EAGAIN)
        progress(f);
    FI_CHECK(r);
}

/* The peer's v in landing[word]: announced by a completion, or found by looking. */
static void await_from(struct floor_ep *f, int word, uint64_t v, int with_data)
{
    if (with_data) {
        await_write(f);
        return;
    }
    while (((volatile uint64_t *) landing)[word] != v)
        progress(f);
}

/* A timed ping-pong through landing[word], the request (rank 0 to 1) and the answer
 * with remote CQ data or without; rank 0's microseconds per round trip. */
static double ping_pong(struct floor_ep *f, const osu_opts_t *o, int rank, int word,
                        int request_data, int answer_data)
{
    int i, n = o->iters, skip = o->skip, capped = o->time_cap > 0;
    double t_first = 0, t0 = 0;
    uint64_t seq = 0;
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    OSU_TIMED_LOOP(o, 1, 1, {
        seq++;
        if (rank == 0) {
            send_to(f, word, &seq, request_data);
            await_from(f, word, seq, answer_data);
        } else {
            await_from(f, word, seq, request_data);
            send_to(f, word, &seq, answer_data);
        }
    })
    double us = (MPI_Wtime() - t0) * 1e6 / n;
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (landing[word] != seq) {
        fprintf(stderr, "ofi_floor: rank %d: the last write left %llu, expected %llu\n", rank,
                (unsigned long long) landing[word], (unsigned long long) seq);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return us;
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

    double us_rtt = ping_pong(&f, &o, rank, 0, 1, 1);
    double us_answer = ping_pong(&f, &o, rank, 2, 1, 0);
    double us_polled = ping_pong(&f, &o, rank, 3, 0, 0);

    /* write_dc: rank 0 alone times its writes; rank 1 polls its completion queue,
     * which moves the provider, until rank 0's closing writedata arrives. */
    int i, n = o.iters, skip = o.skip, capped = o.time_cap > 0;
    double t_first = 0, t0 = 0, us_dc = 0;
    uint64_t seq = 0;
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
            osu_row(&o, "ofi_floor", "answer_polled_rtt", o.win, 8, "latency", us_answer, "us");
            osu_row(&o, "ofi_floor", "write_polled_rtt", o.win, 8, "latency", us_polled, "us");
            osu_row(&o, "ofi_floor", "write_dc", o.win, 8, "latency", us_dc, "us");
        } else {
            printf("# ofi_floor: bare libfabric, %s, 2 ranks\n%-40s%14s\n%-40s%14.3f\n"
                   "%-40s%14.3f\n%-40s%14.3f\n%-40s%14.3f\n", f.info->fabric_attr->prov_name,
                   "# Figure", "Latency (us)", "writedata round trip", us_rtt,
                   "round trip, answer found by looking", us_answer,
                   "round trip, both found by looking", us_polled,
                   "delivery-complete write", us_dc);
        }
        fflush(stdout);
    }
    close_ep(&f);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
