/*
 * rma_demo: an ordinary MPI one-sided application, used to show rmaib taking
 * over an unchanged binary (examples/run-demo runs it with and without rmaib).
 *
 *   1. stencil    a 1-D diffusion on integers over MPI_Win_allocate windows:
 *                 each step, MPI_Win_fence, MPI_Put of the two boundary cells
 *                 into the neighbours' halo cells, MPI_Win_fence, update.
 *   2. histogram  every rank scatters pseudo-random keys into a histogram spread
 *                 over all ranks: MPI_Win_lock_all, MPI_Accumulate(+1) per key,
 *                 MPI_Win_flush_all, MPI_Win_unlock_all.
 *   3. check      rank 0 reads every rank's cells and bins with MPI_Get under
 *                 MPI_Win_lock_all, prints a checksum of them, and recomputes both
 *                 serially to verify the distributed result.
 *
 * Integer arithmetic only, so the checksum is the same under any MPI and any
 * rank count's reduction order. The RMA phases are timed (max over ranks).
 * Options: -n cells per rank, -t steps, -k keys per rank, -b bins per rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call)                                                             \
    do {                                                                        \
        if ((call) != MPI_SUCCESS) {                                            \
            fprintf(stderr, "rma_demo: %s failed (line %d)\n", #call, __LINE__); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                       \
        }                                                                       \
    } while (0)

static uint64_t mix(uint64_t x)   /* splitmix64 */
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t fnv1a(uint64_t h, const int64_t *v, size_t n)
{
    const unsigned char *p = (const unsigned char *) v;

    for (size_t i = 0; i < n * sizeof *v; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static int64_t initial_cell(long g)
{
    return (int64_t) (mix((uint64_t) g) % 1000);
}

static uint64_t key_of(int rank, long k)
{
    return mix(((uint64_t) rank << 32) ^ (uint64_t) k ^ 0x5eedULL);
}

/* One diffusion step on cells u[1..n] with halos u[0], u[n+1]. */
static void step(int64_t *u, int64_t *tmp, long n)
{
    for (long i = 1; i <= n; i++)
        tmp[i] = (u[i - 1] + 2 * u[i] + u[i + 1]) / 4;
    memcpy(u + 1, tmp + 1, (size_t) n * sizeof *u);
}

int main(int argc, char **argv)
{
    long n = 4096, steps = 100, keys = 20000, bins = 256;
    int rank, nprocs, c, verified = 1;
    int64_t *u, *hist, *tmp, one = 1;
    MPI_Win uwin, hwin;
    double t[3], tmax[3];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    while ((c = getopt(argc, argv, "n:t:k:b:")) != -1) {
        long v = atol(optarg ? optarg : "0");
        if (v < 1) {
            if (rank == 0)
                fprintf(stderr, "usage: rma_demo [-n cells] [-t steps] [-k keys] [-b bins]\n");
            MPI_Finalize();
            return 2;
        }
        if (c == 'n')
            n = v;
        else if (c == 't')
            steps = v;
        else if (c == 'k')
            keys = v;
        else if (c == 'b')
            bins = v;
    }

    CHECK(MPI_Win_allocate((MPI_Aint) ((n + 2) * sizeof *u), sizeof *u, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &u, &uwin));
    CHECK(MPI_Win_allocate((MPI_Aint) (bins * sizeof *hist), sizeof *hist, MPI_INFO_NULL,
                           MPI_COMM_WORLD, &hist, &hwin));
    tmp = malloc((size_t) (n + 2) * sizeof *tmp);
    u[0] = u[n + 1] = 0;
    for (long i = 1; i <= n; i++)
        u[i] = initial_cell((long) rank * n + i - 1);
    memset(hist, 0, (size_t) bins * sizeof *hist);

    /* 1. stencil: halo exchange with fence + put. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t[0] = MPI_Wtime();
    CHECK(MPI_Win_fence(MPI_MODE_NOPRECEDE, uwin));
    for (long s = 0; s < steps; s++) {
        if (rank > 0)           /* my first cell -> left neighbour's right halo */
            CHECK(MPI_Put(&u[1], 1, MPI_INT64_T, rank - 1, n + 1, 1, MPI_INT64_T, uwin));
        if (rank < nprocs - 1)  /* my last cell -> right neighbour's left halo */
            CHECK(MPI_Put(&u[n], 1, MPI_INT64_T, rank + 1, 0, 1, MPI_INT64_T, uwin));
        CHECK(MPI_Win_fence(0, uwin));
        step(u, tmp, n);
        /* Neighbours write only halos, which step() read before this fence. */
        CHECK(MPI_Win_fence(0, uwin));
    }
    CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, uwin));
    t[0] = MPI_Wtime() - t[0];

    /* 2. histogram: accumulate into bins owned by any rank. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t[1] = MPI_Wtime();
    CHECK(MPI_Win_lock_all(0, hwin));
    for (long k = 0; k < keys; k++) {
        uint64_t g = key_of(rank, k) % ((uint64_t) bins * (uint64_t) nprocs);
        CHECK(MPI_Accumulate(&one, 1, MPI_INT64_T, (int) (g / (uint64_t) bins),
                             (MPI_Aint) (g % (uint64_t) bins), 1, MPI_INT64_T, MPI_SUM, hwin));
    }
    CHECK(MPI_Win_flush_all(hwin));
    CHECK(MPI_Win_unlock_all(hwin));
    CHECK(MPI_Barrier(MPI_COMM_WORLD));
    t[1] = MPI_Wtime() - t[1];

    /* 3. check: rank 0 gets everything with MPI_Get. */
    t[2] = MPI_Wtime();
    if (rank == 0) {
        long N = n * nprocs, B = bins * nprocs;
        int64_t *gu = malloc((size_t) N * sizeof *gu), *gh = malloc((size_t) B * sizeof *gh);
        uint64_t sum = 0xcbf29ce484222325ULL;

        CHECK(MPI_Win_lock_all(0, uwin));
        CHECK(MPI_Win_lock_all(0, hwin));
        for (int r = 0; r < nprocs; r++) {
            CHECK(MPI_Get(gu + (long) r * n, (int) n, MPI_INT64_T, r, 1, (int) n, MPI_INT64_T, uwin));
            CHECK(MPI_Get(gh + (long) r * bins, (int) bins, MPI_INT64_T, r, 0, (int) bins,
                          MPI_INT64_T, hwin));
        }
        CHECK(MPI_Win_flush_all(uwin));
        CHECK(MPI_Win_flush_all(hwin));
        CHECK(MPI_Win_unlock_all(hwin));
        CHECK(MPI_Win_unlock_all(uwin));
        t[2] = MPI_Wtime() - t[2];

        sum = fnv1a(sum, gu, (size_t) N);
        sum = fnv1a(sum, gh, (size_t) B);

        /* Serial reference, outside the timed part. */
        {
            int64_t *ru = calloc((size_t) N + 2, sizeof *ru), *rt = malloc(((size_t) N + 2) * sizeof *rt);
            int64_t *rh = calloc((size_t) B, sizeof *rh);
            for (long g = 0; g < N; g++)
                ru[g + 1] = initial_cell(g);
            for (long s = 0; s < steps; s++)
                step(ru, rt, N);
            for (int r = 0; r < nprocs; r++)
                for (long k = 0; k < keys; k++)
                    rh[key_of(r, k) % (uint64_t) B]++;
            verified = !memcmp(ru + 1, gu, (size_t) N * sizeof *gu) &&
                       !memcmp(rh, gh, (size_t) B * sizeof *gh);
            free(ru);
            free(rt);
            free(rh);
        }
        printf("rma_demo: %d ranks, %ld cells/rank, %ld steps, %ld keys/rank, %ld bins/rank\n",
               nprocs, n, steps, keys, bins);
        printf("rma_demo: checksum=%016llx\n", (unsigned long long) sum);
        printf("rma_demo: verified=%s\n", verified ? "yes" : "NO");
        free(gu);
        free(gh);
    } else {
        t[2] = MPI_Wtime() - t[2];
    }
    CHECK(MPI_Reduce(t, tmax, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        printf("rma_demo: stencil   (fence + MPI_Put)            %10.3f ms\n", tmax[0] * 1e3);
        printf("rma_demo: histogram (lock_all + MPI_Accumulate)  %10.3f ms\n", tmax[1] * 1e3);
        printf("rma_demo: check     (lock_all + MPI_Get)         %10.3f ms\n", tmax[2] * 1e3);
        printf("rma_demo: rma_ms=%.3f\n", (tmax[0] + tmax[1] + tmax[2]) * 1e3);
        fflush(stdout);
    }
    CHECK(MPI_Bcast(&verified, 1, MPI_INT, 0, MPI_COMM_WORLD));

    CHECK(MPI_Win_free(&hwin));
    CHECK(MPI_Win_free(&uwin));
    free(tmp);
    MPI_Finalize();
    return verified ? 0 : 1;
}
