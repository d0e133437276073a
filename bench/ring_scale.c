/*
 * ring_scale: what a window costs a process that talks to its two ring neighbours
 * only.  Each rank makes NWIN windows of 4 KiB (MPI_Win_allocate), then in each, under
 * lock_all, puts 8 bytes to rank+1 and rank-1 and flushes; rank 0 prints, over the
 * ranks (max and mean):
 *     np P  rss_kb_per_win MAX MEAN  rss_kb_total MAX MEAN  sockets MAX MEAN
 *          first_us MAX MEAN  create_us MAX  sockets_all MAX MEAN  pss_kb_per_win MAX MEAN
 * after a first window that only fences (it brings the network up).
 * rss_kb_per_win: resident memory grown by windows 2..NWIN and their accesses,
 * divided by NWIN - 1 (the first pays for connections where they are made then);
 * pss_kb_per_win: the same in proportional set size, which counts a page shared by n
 * processes as 1/n in each (resident memory counts it whole in each, and the kernel's
 * fault-around maps up to 16 pages of a shared file already in memory at one fault);
 * sockets: descriptors that are sockets, made since before the first window;
 * sockets_all: all of them at the end, MPI_Init's too (an MPI that connects at
 * start-up makes none later).  first_us: the first put+flush to the right neighbour
 * in the first of the NWIN windows (connection set-up included where it happens then).
 * create_us: the slowest rank's creation of the first window (where connections
 * are made at creation, they are made then).
 * rss_kb_total: resident memory grown from before the first window to the end (the
 * endpoint, connections and all NWIN + 1 windows).  The data is checked.
 * Usage: ring_scale [NWIN]  (default 8)
 */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &res) != 2)
            res = 0;
        fclose(f);
    }
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static long pss_kb(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Pss: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

static int sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    struct dirent *de;
    char path[300], link[64];
    while (d && (de = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
        ssize_t l = readlink(path, link, sizeof link - 1);
        if (l > 0) {
            link[l] = 0;
            n += strncmp(link, "socket:", 7) == 0;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np, nwin = argc > 1 ? atoi(argv[1]) : 8, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (nwin < 1)
        nwin = 1;
    MPI_Win *win = calloc((size_t) nwin, sizeof *win);
    long **mem = calloc((size_t) nwin, sizeof *mem);
    int right = (rank + 1) % np, left = (rank + np - 1) % np;
    MPI_Barrier(MPI_COMM_WORLD);
    int sock0 = sockets();
    long rss_start = rss_kb();
    /* A first window that only fences brings the endpoint up (libfabric's start-up,
     * the bounce ring), which is not what a window costs. */
    MPI_Win warm;
    void *wmem;
    double tw = now_us();
    MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wmem, &warm);
    tw = now_us() - tw;
    MPI_Win_fence(0, warm);
    MPI_Win_fence(0, warm);
    MPI_Barrier(MPI_COMM_WORLD);
    long rss0 = rss_kb(), pss0 = pss_kb();
    double first = 0;
    for (int i = 0; i < nwin; i++) {
        MPI_Win_allocate(4096, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem[i], &win[i]);
        memset(mem[i], 0, 4096);
        MPI_Barrier(MPI_COMM_WORLD);
        long v[2] = { rank * 1000 + i, -(rank * 1000 + i) };
        MPI_Win_lock_all(0, win[i]);
        double t0 = now_us();
        MPI_Put(&v[0], 1, MPI_LONG, right, 0, 1, MPI_LONG, win[i]);
        MPI_Win_flush(right, win[i]);
        if (i == 0)
            first = now_us() - t0;
        MPI_Put(&v[1], 1, MPI_LONG, left, 1, 1, MPI_LONG, win[i]);
        MPI_Win_flush_all(win[i]);
        /* The neighbours' puts are complete once they pass the barrier; the sync is in
         * the epoch, where MPI allows it (MPICH aborts on one after unlock_all). */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Win_sync(win[i]);
        if (mem[i][0] != left * 1000 + i || mem[i][1] != -(right * 1000 + i))
            bad = 1;
        MPI_Win_unlock_all(win[i]);
        if (i == 0 && nwin > 1) {
            rss0 = rss_kb();    /* the neighbours' connections are made by now */
            pss0 = pss_kb();
        }
    }
    long rss1 = rss_kb(), pss1 = pss_kb();
    double per = (double) (rss1 - rss0) / (nwin > 1 ? nwin - 1 : 1);
    double pss_per = (double) (pss1 - pss0) / (nwin > 1 ? nwin - 1 : 1);
    int sock1 = sockets();
    double mine[7] = { per, sock1 - sock0, first, (double) (rss1 - rss_start), tw, sock1,
        pss_per };
    double mx[7], sum[7];
    MPI_Reduce(mine, mx, 7, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, sum, 7, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    int anybad = 0;
    MPI_Reduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("np %d  rss_kb_per_win %.1f %.1f  rss_kb_total %.0f %.0f  sockets %.0f %.1f  "
               "first_us %.0f %.0f  create_us %.0f  sockets_all %.0f %.1f  pss_kb_per_win %.1f %.1f%s\n",
               np, mx[0], sum[0] / np, mx[3], sum[3] / np, mx[1], sum[1] / np, mx[2], sum[2] / np,
               mx[4], mx[5], sum[5] / np, mx[6], sum[6] / np, anybad ? "  DATA WRONG" : "");
    for (int i = 0; i < nwin; i++)
        MPI_Win_free(&win[i]);
    MPI_Win_free(&warm);
    free(win);
    free(mem);
    MPI_Finalize();
    return anybad;
}
