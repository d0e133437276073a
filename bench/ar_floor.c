/*
 * The floor of a 2-rank float-sum allreduce within a node: the least data
 * movement any implementation needs, both ranks at once.  Each rank reads the
 * peer's half of the vector with process_vm_readv in 64 KiB chunks and adds it to
 * its own half into rbuf (rbuf = sbuf + peer), then reads the peer's reduced half
 * into the other half of rbuf; a barrier after each half.  Printed per size: the
 * mean time per call, a memcpy of the same bytes, and their ratio.
 *   ar_floor [-i ITERS]  (sizes 1 MiB and 4 MiB; exactly 2 ranks)
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

static void rd(pid_t pid, void *dst, uint64_t addr, size_t n)
{
    struct iovec l = { dst, n }, r = { (void *) (uintptr_t) addr, n };
    if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t) n)
        MPI_Abort(MPI_COMM_WORLD, 1);
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
            fprintf(stderr, "ar_floor: run on exactly 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    static const size_t sizes[] = { 1 << 20, 4 << 20 };
    if (me == 0)
        printf("# ar_floor: bytes, floor us, memcpy us, floor/memcpy\n");
    for (int k = 0; k < 2; k++) {
        size_t bytes = sizes[k], n = bytes / sizeof(float), half = n / 2;
        float *s = malloc(bytes), *r = malloc(bytes), *t = malloc(CHUNK);
        char *m = malloc(bytes);
        for (size_t i = 0; i < n; i++)
            s[i] = (float) (i % 100 + me);
        memset(r, 0, bytes);
        memset(m, 1, bytes);
        uint64_t mine[3] = { (uint64_t) getpid(), (uintptr_t) s, (uintptr_t) r }, all[6];
        MPI_Allgather(mine, 3, MPI_UINT64_T, all, 3, MPI_UINT64_T, MPI_COMM_WORLD);
        pid_t peer = (pid_t) all[3 * (1 - me)];
        size_t first = me ? half : 0, cnt = me ? n - half : half;      /* my half */
        size_t ofirst = me ? 0 : half, ocnt = me ? half : n - half;
        double t0 = 0;
        for (int it = -iters / 10; it < iters; it++) {
            if (it == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            for (size_t o = 0; o < cnt; o += CHUNK / sizeof(float)) {
                size_t c = cnt - o < CHUNK / sizeof(float) ? cnt - o : CHUNK / sizeof(float);
                rd(peer, t, all[3 * (1 - me) + 1] + (first + o) * sizeof(float), c * sizeof(float));
                for (size_t i = 0; i < c; i++)
                    r[first + o + i] = s[first + o + i] + t[i];
            }
            MPI_Barrier(MPI_COMM_WORLD);
            rd(peer, r + ofirst, all[3 * (1 - me) + 2] + ofirst * sizeof(float),
               ocnt * sizeof(float));
            MPI_Barrier(MPI_COMM_WORLD);
        }
        double fl = (MPI_Wtime() - t0) / iters * 1e6;
        double t1 = MPI_Wtime();
        for (int it = 0; it < iters; it++) {
            memcpy(m, r, bytes);
            __asm__ volatile("" ::: "memory");
        }
        double mc = (MPI_Wtime() - t1) / iters * 1e6;
        if (me == 0)
            printf("%zu %.1f %.1f %.2f\n", bytes, fl, mc, fl / mc);
        free(s);
        free(r);
        free(t);
        free(m);
    }
    MPI_Finalize();
    return 0;
}
