/*
 * Every rank puts to its right neighbour and gets from its left one, in fence epochs,
 * on an MPI_Win_allocate window and on an MPI_Win_create one, and checks every byte
 * after every epoch: the pattern names the origin, the target, the epoch and the
 * index, so a byte from the wrong peer, the wrong epoch or the wrong place fails.
 * Made for many ranks (test/scale/testlist: 64 and 256 on one host, and simulated
 * nodes of 8 where the ring crosses a node every 8th rank over ofi).
 *
 * It also prints, as TAP comments, what a process pays for its windows: resident and
 * proportional memory (VmRSS, and Pss from /proc/self/smaps_rollup, which charges a
 * shared page to each of its mappers in part), mappings and open sockets, before the
 * first window, after each creation and after the epochs (rank 0's, the mean and the
 * largest over the ranks).  Nothing is asserted about them: they are evidence for the
 * scaling rules (a process pays for the peers it touches; connections are made at a
 * peer's first operation), not checks.
 *
 * RING_EPOCHS (default 20) epochs, RING_BYTES (default 4096) bytes a put.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../rma/tap.h"

#define SENT 0xA5

/* A byte for (origin, target, epoch, index); never SENT. */
static unsigned char ring_byte(int o, int t, int e, long i)
{
    unsigned v = (unsigned) (o * 131 + t * 29 + e * 211 + i * 7 + (i >> 8) * 13) % 254u;
    return (unsigned char) (v >= SENT ? v + 1 : v);
}

/* A field of /proc/self/status or smaps_rollup, in kB (-1 if absent). */
static long proc_kb(const char *file, const char *key)
{
    FILE *f = fopen(file, "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            v = strtol(line + n + 1, NULL, 10);
            break;
        }
    fclose(f);
    return v;
}

static long count_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    long n = 0;
    int c;
    if (!f)
        return -1;
    while ((c = getc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

static long count_sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    char path[300], link[64];
    long n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)) != NULL) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(path, link, sizeof link - 1);
        if (k > 0) {
            link[k] = 0;
            n += strncmp(link, "socket:", 7) == 0;
        }
    }
    closedir(d);
    return n;
}

enum { RSS, PSS, MAPS, SOCKS, NFIG };
static const char *const fig_name[NFIG] = { "VmRSS kB", "Pss kB", "mappings", "sockets" };

/* Collective: one comment line with rank 0's figures, the mean and the largest. */
static void report(const char *when)
{
    double mine[NFIG], sum[NFIG], max[NFIG], zero[NFIG];
    mine[RSS] = (double) proc_kb("/proc/self/status", "VmRSS");
    mine[PSS] = (double) proc_kb("/proc/self/smaps_rollup", "Pss");
    mine[MAPS] = (double) count_maps();
    mine[SOCKS] = (double) count_sockets();
    memcpy(zero, mine, sizeof zero);
    MPI_Reduce(mine, sum, NFIG, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(mine, max, NFIG, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (tap_rank != 0)
        return;
    printf("# %s (%d ranks; rank 0 / mean / largest):", when, tap_size);
    for (int k = 0; k < NFIG; k++)
        printf("%s %s %.0f / %.0f / %.0f", k ? ";" : "", fig_name[k], zero[k],
               sum[k] / tap_size, max[k]);
    printf("\n");
    fflush(stdout);
}

/* Epochs of put-right and get-left on w, whose memory (bytes at least 2 * n) is mem:
 * the put lands in [0, n), the get reads the left neighbour's [0, n) after it. */
static void ring_epochs(MPI_Win w, unsigned char *mem, size_t n, int epochs, const char *what)
{
    int p = tap_size, r = tap_rank;
    int right = (r + 1) % p, left = (r + p - 1) % p;
    unsigned char *src = malloc(n), *got = malloc(n);
    long bad_put = -1, bad_get = -1;
    int bad_put_e = -1, bad_get_e = -1;
    memset(mem, SENT, 2 * n);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    for (int e = 0; e < epochs; e++) {
        for (size_t i = 0; i < n; i++)
            src[i] = ring_byte(r, right, e, (long) i);
        memset(got, SENT, n);
        MPI_Put(src, (int) n, MPI_BYTE, right, 0, (int) n, MPI_BYTE, w);
        MPI_Win_fence(0, w);
        /* Every byte from the left neighbour, this epoch; the rest untouched. */
        for (size_t i = 0; i < n && bad_put < 0; i++)
            if (mem[i] != ring_byte(left, r, e, (long) i))
                bad_put = (long) i, bad_put_e = e;
        for (size_t i = n; i < 2 * n && bad_put < 0; i++)
            if (mem[i] != SENT)
                bad_put = (long) i, bad_put_e = e;
        /* Read back what our left neighbour got from its own left one. */
        MPI_Get(got, (int) n, MPI_BYTE, left, 0, (int) n, MPI_BYTE, w);
        MPI_Win_fence(0, w);
        int ll = (left + p - 1) % p;
        for (size_t i = 0; i < n && bad_get < 0; i++)
            if (got[i] != ring_byte(ll, left, e, (long) i))
                bad_get = (long) i, bad_get_e = e;
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w);
    TAP_CHECK(bad_put < 0, "%s: byte %ld after epoch %d's put from rank %d is wrong", what,
              bad_put, bad_put_e, left);
    tap_ok("%s: %d fence epochs, a %zu-byte put to the right neighbour each, every byte "
           "checked", what, epochs, n);
    TAP_CHECK(bad_get < 0, "%s: byte %ld of epoch %d's get from rank %d is wrong", what,
              bad_get, bad_get_e, left);
    tap_ok("%s: the left neighbour's bytes read back with MPI_Get after each epoch", what);
    free(src);
    free(got);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int epochs = tap_env_int("RING_EPOCHS", 20);
    size_t n = (size_t) tap_env_int("RING_BYTES", 4096);
    report("before any window");

    unsigned char *mem;
    MPI_Win wa;
    MPI_Win_allocate((MPI_Aint) (2 * n), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &wa);
    report("after MPI_Win_allocate");
    ring_epochs(wa, mem, n, epochs, "MPI_Win_allocate");
    report("after the epochs on it");

    unsigned char *user = malloc(2 * n);
    MPI_Win wc;
    MPI_Win_create(user, (MPI_Aint) (2 * n), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wc);
    report("after MPI_Win_create as well");
    ring_epochs(wc, user, n, epochs, "MPI_Win_create");
    report("after the epochs on it");

    MPI_Win_free(&wc);
    MPI_Win_free(&wa);
    free(user);
    report("after both were freed");
    return tap_done();
}
