/*
 * flush_delivers: when MPI_Win_flush, MPI_Win_flush_all or MPI_Win_unlock returns,
 * the origin's puts are in the target's memory, not merely sent.  The target does
 * not call MPI to find out: the origin raises a flag in POSIX shared memory after
 * the call returns, and the target, which waits on that flag with plain loads,
 * compares every byte of the put at once.  A provider that reports a write done
 * when it leaves the origin (libfabric 1.17's net does, whatever FI_DELIVERY_COMPLETE
 * says) fails here: a 4 MiB put is still on its way when the flag is seen.  An 8-byte
 * put goes another way (copied out at once, one message), and a flush that waits
 * only until it is sent fails too: MPICH's ch4:ofi over tcp;ofi_rxm, whose target
 * progresses in a thread, found it missing after MPI_Win_flush in 27 and 61 of 200
 * rounds in two runs.
 *
 * Rank r of the first half is origin to rank r + n/2 (an odd rank out idles), so in
 * the mixed pass (nodes of 2 of 4 ranks) every pair spans two nodes.  Each round the
 * origin puts 4 MiB of a new pattern into its target's window and syncs, the target
 * checks and acknowledges.  All ranks run on one host, which the shared flag needs.
 * Over the network backend the target's side moves in rmaib's progress thread, so
 * the testlist runs this with it on.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include "tap.h"
#include "wait.h"
#include "errcheck.h"

/* Sizes and rounds of each: a long put lands over many reads of the stream, a short one
 * in one; most short ones land in time even where the flush is wrong. */
enum { BYTES = 4 << 20, NSIZE = 2 };
static const size_t size_bytes[NSIZE] = { BYTES, 8 };
static const int size_rounds[NSIZE] = { 12, 200 };
enum { SYNC_FLUSH, SYNC_FLUSH_ALL, SYNC_UNLOCK, NSYNC };
static const char *const sync_name[NSYNC] = { "MPI_Win_flush", "MPI_Win_flush_all",
                                              "MPI_Win_unlock" };

/* Per rank: the round its put was synced (origin) and the round it checked (target). */
typedef struct {
    volatile int synced, checked;
} flag_t;

static flag_t *map_flags(void)
{
    int id = (int) getpid();
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char name[64];
    snprintf(name, sizeof name, "/rmaib_flush_delivers_%d", id);
    size_t bytes = sizeof(flag_t) * (size_t) tap_size;
    int fd = -1;
    if (tap_rank == 0) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t) bytes) != 0) {
            close(fd);
            fd = -1;
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank != 0)
        fd = shm_open(name, O_RDWR, 0600);
    void *p = fd >= 0 ? mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
    if (fd >= 0)
        close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    if (tap_rank == 0)
        shm_unlink(name);
    int ok = p != MAP_FAILED, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        printf("Bail out! cannot share a page through POSIX shared memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Wait with plain loads, no MPI, until *word == want. */
static void await(volatile int *word, int want)
{
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != want)
        poll_pause();
}

static unsigned char pattern(int round, size_t i)
{
    return (unsigned char) (round * 131 + i % 251);
}

/* What every round needs: the window, the page of flags, this rank's part and the
 * buffers the put is made from and checked against. */
typedef struct {
    MPI_Win win;
    unsigned char *base, *src, *want;
    flag_t *flags;
    int origin, target, peer, round;
} pair_t;

/* rounds puts of bytes each, each synced by sync s and checked by the target. */
static void run_rounds(pair_t *c, size_t bytes, int rounds, int s)
{
    int late = 0;
    if (s != SYNC_UNLOCK)
        EXPECT_OK(MPI_Win_lock_all(0, c->win), "MPI_Win_lock_all");
    for (int r = 0; r < rounds; r++) {
        int round = ++c->round;
        if (c->origin) {
            for (size_t i = 0; i < bytes; i++)
                c->src[i] = pattern(round, i);
            if (s == SYNC_UNLOCK)
                EXPECT_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, c->peer, 0, c->win), "MPI_Win_lock");
            EXPECT_OK(MPI_Put(c->src, (int) bytes, MPI_BYTE, c->peer, 0, (int) bytes, MPI_BYTE, c->win),
                 "MPI_Put");
            if (s == SYNC_FLUSH)
                EXPECT_OK(MPI_Win_flush(c->peer, c->win), "MPI_Win_flush");
            else if (s == SYNC_FLUSH_ALL)
                EXPECT_OK(MPI_Win_flush_all(c->win), "MPI_Win_flush_all");
            else
                EXPECT_OK(MPI_Win_unlock(c->peer, c->win), "MPI_Win_unlock");
            __atomic_store_n(&c->flags[tap_rank].synced, round, __ATOMIC_RELEASE);
            await(&c->flags[c->peer].checked, round);
        } else if (c->target) {
            for (size_t i = 0; i < bytes; i++)
                c->want[i] = pattern(round, i);
            await(&c->flags[c->peer].synced, round);
            /* At once: anything still in flight shows as old bytes. */
            if (memcmp(c->base, c->want, bytes) != 0) {
                late++;
                size_t i = 0;
                while (i < bytes && c->base[i] == c->want[i])
                    i++;
                if (i < bytes)
                    TAP_CHECK(0, "round %d after %s: byte %zu is %u, the put wrote %u", round,
                              sync_name[s], i, c->base[i], c->want[i]);
                else    /* the rest landed while we looked */
                    TAP_CHECK(0, "round %d after %s: the put was still landing", round,
                              sync_name[s]);
            }
            __atomic_store_n(&c->flags[tap_rank].checked, round, __ATOMIC_RELEASE);
        }
    }
    if (s != SYNC_UNLOCK)
        EXPECT_OK(MPI_Win_unlock_all(c->win), "MPI_Win_unlock_all");
    TAP_CHECK(late == 0, "%d of %d rounds found the put incomplete after %s", late, rounds,
              sync_name[s]);
    tap_ok("a %s put is in the target's memory when %s returns (%d rounds)",
           bytes == BYTES ? "4 MiB" : "8-byte", sync_name[s], rounds);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    pair_t c = { .flags = map_flags(), .src = malloc(BYTES), .want = malloc(BYTES) };
    EXPECT_OK(MPI_Win_allocate(BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &c.base, &c.win),
         "MPI_Win_allocate");
    memset(c.base, 0, BYTES);
    const int half = tap_size / 2;
    c.origin = tap_rank < half;
    c.target = !c.origin && tap_rank < 2 * half;
    c.peer = c.origin ? tap_rank + half : tap_rank - half;
    MPI_Barrier(MPI_COMM_WORLD);

    for (int z = 0; z < NSIZE; z++)
        for (int s = 0; s < NSYNC; s++)
            run_rounds(&c, size_bytes[z], size_rounds[z], s);

    MPI_Win_free(&c.win);
    munmap(c.flags, sizeof(flag_t) * (size_t) tap_size);
    free(c.src);
    free(c.want);
    return tap_done();
}
