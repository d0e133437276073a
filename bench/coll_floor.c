/*
 * The floors of the 2-rank collectives within a node: the least data movement any
 * implementation needs, both ranks at once, with no synchronisation but a barrier
 * per phase.  For block bytes b (the OSU programs' size):
 *   allreduce (float sum, vector b): read the peer's half in 64 KiB chunks and add
 *     it to ours into rbuf; barrier; read the peer's reduced half; barrier.
 *   allgather: copy our block into rbuf, read the peer's block into rbuf; barrier.
 *   alltoall: copy our block for us into rbuf, read the peer's block for us; barrier.
 * Printed per call and size (1 and 4 MiB): the mean time per call, a memcpy of b
 * bytes, and their ratio, comparable to the OSU programs' per_memcpy.
 *   coll_floor [-i ITERS]  (exactly 2 ranks)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define CHUNK 65536

enum { ALLREDUCE, ALLGATHER, ALLTOALL, NCALLS };
static const char *const names[NCALLS] = { "allreduce", "allgather", "alltoall" };

static void rd(pid_t pid, void *dst, uint64_t addr, size_t n)
{
    struct iovec l = { dst, n }, r = { (void *) (uintptr_t) addr, n };
    if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t) n)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

/* One call's data movement; s, r hold 2 b bytes, peer's at ps, pr. */
static void once(int call, int me, pid_t peer, size_t b, char *s, char *r, float *t,
                 uint64_t ps, uint64_t pr)
{
    size_t half = b / 2, mine = me ? half : 0, theirs = me ? 0 : half;
    switch (call) {
    case ALLREDUCE:
        for (size_t o = 0; o < half; o += CHUNK) {
            size_t c = half - o < CHUNK ? half - o : CHUNK;
            rd(peer, t, ps + mine + o, c);
            const float *a = (const float *) (s + mine + o);
            float *out = (float *) (r + mine + o);
            for (size_t i = 0; i < c / sizeof(float); i++)
                out[i] = a[i] + t[i];
        }
        MPI_Barrier(MPI_COMM_WORLD);
        rd(peer, r + theirs, pr + theirs, half);
        break;
    case ALLGATHER:
        memcpy(r + (size_t) me * b, s, b);
        rd(peer, r + (size_t) (1 - me) * b, ps, b);
        break;
    default:
        memcpy(r + (size_t) me * b, s + (size_t) me * b, b);
        rd(peer, r + (size_t) (1 - me) * b, ps + (size_t) me * b, b);
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int me, p, iters = 200;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc > 2 && !strcmp(argv[1], "-i"))
        iters = atoi(argv[2]);
    if (p != 2) {
        if (me == 0)
            fprintf(stderr, "coll_floor: run on exactly 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    static const size_t sizes[] = { 1 << 20, 4 << 20 };
    if (me == 0)
        printf("# coll_floor: call, bytes, floor us, memcpy us, floor/memcpy\n");
    for (int k = 0; k < 2; k++) {
        size_t b = sizes[k];
        char *s = malloc(2 * b), *r = malloc(2 * b), *m = malloc(b);
        float *t = malloc(CHUNK);
        for (size_t i = 0; i < 2 * b / sizeof(float); i++)
            ((float *) s)[i] = (float) (i % 100 + me);
        memset(r, 0, 2 * b);
        memset(m, 1, b);
        uint64_t mine[3] = { (uint64_t) getpid(), (uintptr_t) s, (uintptr_t) r }, all[6];
        MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
        const uint64_t *pa = all + 3 * (1 - me);
        double t1 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            memcpy(m, s, b);
            __asm__ volatile("" ::: "memory");
        }
        double mc = (MPI_Wtime() - t1) / iters * 1e6;
        for (int call = 0; call < NCALLS; call++) {
            double t0 = 0;
            for (int it = -iters / 10; it < iters; it++) {
                if (it == 0) {
                    MPI_Barrier(MPI_COMM_WORLD);
                    t0 = MPI_Wtime();
                }
                once(call, me, (pid_t) pa[0], b, s, r, t, pa[1], pa[2]);
            }
            double fl = (MPI_Wtime() - t0) / iters * 1e6;
            if (me == 0)
                printf("%s %zu %.1f %.1f %.2f\n", names[call], b, fl, mc, fl / mc);
        }
        free(s);
        free(r);
        free(t);
        free(m);
    }
    MPI_Finalize();
    return 0;
}
