/*
 * The simulated host (see sim_host.h): rmaib's host table for a group of P ranks
 * of which only rank `me` is this process.  Every collective is counted; an
 * allgather fills in each virtual rank's contribution.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "rma/rma_impl.h"
#include "sim_host.h"

sim_host_count_t sim_host_count;

static struct {
    int nranks, me, node_size, vary;
    uint64_t salt;              /* keeps made-up keys apart from real ones */
} sim = { 1, 0, 1, 0, 0 };

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double) t.tv_sec + (double) t.tv_nsec * 1e-9;
}

/* splitmix64: distinct, well-spread keys for made-up nodes and hosts. */
static uint64_t mix(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* Is this a window-creation record of ours?  By size, and by the pid in it: the
 * other records the core exchanges (shm's, umem's, agreements) differ in size. */
static int is_hello(const void *send, size_t bytes)
{
    rmaib_win_hello_t h;
    if (bytes != sizeof h)
        return 0;
    memcpy(&h, send, sizeof h);
    return h.pid == (int32_t) getpid() && h.status == RMAIB_OK;
}

/* Virtual rank r's creation record, made from ours: its node's keys (ours on our
 * node), a pid of its own (ours on our node: its memory is ours, process_vm_* must
 * reach it), the size it exposes. */
static void make_hello(rmaib_win_hello_t *h, const rmaib_win_hello_t *mine, int r)
{
    int node = r / sim.node_size, mynode = sim.me / sim.node_size;
    *h = *mine;
    if (node != mynode) {
        h->node_key = mix(sim.salt ^ (uint64_t) node);
        h->host_key = mix(sim.salt ^ (uint64_t) node ^ UINT64_C(0x5151));
        h->pid = (int32_t) (1000000 + r);
    }
    if (sim.vary)
        h->size = mine->size + 8 * (uint64_t) (r % 5);
}

static int sim_allgather(void *hcomm, const void *send, void *recv, size_t bytes)
{
    (void) hcomm;
    double t0 = cpu_now();
    char *out = recv;
    sim_host_count.allgather++;
    sim_host_count.bytes_sent += bytes;
    sim_host_count.bytes_recv += bytes * (uint64_t) sim.nranks;
    if (is_hello(send, bytes)) {
        rmaib_win_hello_t mine;
        memcpy(&mine, send, sizeof mine);
        sim_host_count.hellos++;
        for (int r = 0; r < sim.nranks; r++) {
            rmaib_win_hello_t h;
            if (r == sim.me)
                h = mine;
            else
                make_hello(&h, &mine, r);
            memcpy(out + (size_t) r * bytes, &h, bytes);
        }
    } else {
        for (int r = 0; r < sim.nranks; r++)
            memcpy(out + (size_t) r * bytes, send, bytes);
    }
    sim_host_count.cpu_s += cpu_now() - t0;
    return RMAIB_OK;
}

/* Every virtual rank brings what this one does: the maximum is ours. */
static int sim_allreduce_max(void *hcomm, uint64_t *words, int n)
{
    (void) hcomm;
    (void) words;
    sim_host_count.allreduce++;
    sim_host_count.bytes_sent += (uint64_t) n * sizeof *words;
    sim_host_count.bytes_recv += (uint64_t) n * sizeof *words;
    return RMAIB_OK;
}

static int sim_barrier(void *hcomm)
{
    (void) hcomm;
    sim_host_count.barrier++;
    return RMAIB_OK;
}

static int sim_world_rank(void)
{
    return sim.me;
}

static void sim_progress(void)
{
}

/* Diagnostics as TAP comments. */
static void sim_say(const char *line)
{
    printf("# %s\n", line);
    fflush(stdout);
}

static int sim_thread_multiple(void)
{
    return 0;
}

static const struct rmaib_host_ops sim_ops = {
    .allgather = sim_allgather,
    .barrier = sim_barrier,
    .allreduce_max = sim_allreduce_max,
    .world_rank = sim_world_rank,
    .progress = sim_progress,
    .say = sim_say,
    .thread_multiple = sim_thread_multiple,
};

int sim_host_setup(int nranks, int me, int node_size)
{
    if (nranks < 1 || me < 0 || me >= nranks || node_size < 1 || me % node_size != 0) {
        fprintf(stderr, "sim_host: cannot play rank %d of %d with %d ranks per node "
                "(it must be its node's lowest rank)\n", me, nranks, node_size);
        return -1;
    }
    sim.nranks = nranks;
    sim.me = me;
    sim.node_size = node_size;
    sim.salt = mix((uint64_t) getpid() << 20);
    rmaib_host_register(&sim_ops);
    return 0;
}

void sim_host_vary_sizes(int on)
{
    sim.vary = on;
}

void sim_host_reset(void)
{
    memset(&sim_host_count, 0, sizeof sim_host_count);
}

void *sim_host_comm(void)
{
    return &sim;
}
