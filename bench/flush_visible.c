/*
 * flush_visible: is an 8-byte put in the target's memory when the origin's
 * MPI_Win_flush, MPI_Win_flush_all or MPI_Win_unlock returns?  MPI says the
 * operation is then complete at the target; a flush that waits only until the
 * write has left the origin is quicker by a round trip, and this program shows
 * which kind a put+flush figure measures.
 *
 * 2 ranks on one host.  Each round the origin puts a new 8-byte pattern, syncs and
 * raises a flag in POSIX shared memory; the target, waiting for the flag with plain
 * loads, compares the window at once.  A put not there yet makes the round "late".
 * A flush that cannot return until the target calls MPI (its progress model) is no
 * fault: when the flag has not come after STALL_NS the target polls MPI
 * (MPI_Iprobe) while it waits, and the round counts as "stalled".
 *
 * Rows: variant flush | flush_all | unlock; metrics "late" and "stalled", each in %
 * of the rounds (-i, default 1000, at most 10000).
 */
#include "osu_common.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum { SYNC_FLUSH, SYNC_FLUSH_ALL, SYNC_UNLOCK, NSYNC };
enum { DEFAULT_ROUNDS = 1000, MAX_ROUNDS = 10000 };
#define STALL_NS 200000ull

static const char *const sync_names[NSYNC] = { "flush", "flush_all", "unlock" };

/* The page both ranks see: the round the origin synced, the round the target checked. */
typedef struct {
    volatile uint64_t synced, checked;
} shared_flags_t;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Rank 0 creates the page under a name made of its pid, rank 1 opens it; the
 * name is unlinked once both have it mapped. */
static shared_flags_t *map_shared_flags(int rank)
{
    int pid = (int) getpid(), fd = -1, ok, all;
    char name[64];
    OSU_CHECK(MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD));
    snprintf(name, sizeof name, "/rmaib_flush_visible_%d", pid);
    if (rank == 0) {
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t) sizeof(shared_flags_t)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank != 0)
        fd = shm_open(name, O_RDWR, 0600);
    void *p = fd < 0 ? MAP_FAILED
                     : mmap(NULL, sizeof(shared_flags_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        shm_unlink(name);
    ok = p != MAP_FAILED;
    OSU_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (!all) {
        if (rank == 0)
            fprintf(stderr, "flush_visible: the two ranks cannot share a page (one host?)\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

/* Wait until *word == want; after STALL_NS, with MPI polled meanwhile.  Returns
 * whether it had to poll. */
static int await(volatile uint64_t *word, uint64_t want)
{
    uint64_t t0 = now_ns();
    int stalled = 0;
    while (__atomic_load_n(word, __ATOMIC_ACQUIRE) != want) {
        if (!stalled && now_ns() - t0 > STALL_NS)
            stalled = 1;
        if (stalled) {
            int flag;
            OSU_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                                 MPI_STATUS_IGNORE));
        }
    }
    return stalled;
}

static uint64_t pattern(uint64_t round)
{
    return 0x9e3779b97f4a7c15ull * (round + 1);
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_win_t w;
    int rank, rc;

    rc = osu_start_pair(&argc, &argv, "flush_visible", NULL, &o, NULL, NULL, NULL, NULL, &rank);
    if (rc >= 0)
        return rc;
    int rounds = o.iters == OSU_LAT_LOOP_SMALL ? DEFAULT_ROUNDS : o.iters;
    if (rounds > MAX_ROUNDS)
        rounds = MAX_ROUNDS;

    shared_flags_t *flags = map_shared_flags(rank);
    osu_win_create(&w, 4096, o.win, &o, MPI_COMM_WORLD, 1 - rank);
    volatile uint64_t *mine = (volatile uint64_t *) w.base;
    if (rank == 0 && o.csv)
        osu_csv_header(&o);
    else if (rank == 0)
        printf("# 8-byte put, then the sync, then a flag in shared memory: rounds whose put\n"
               "# the target did not yet see (late), rounds the sync needed the target in MPI "
               "(stalled)\n%-12s%10s%10s\n", "# Sync", "late %", "stalled %");

    uint64_t round = 0;
    for (int s = 0; s < NSYNC; s++) {
        int late = 0, stalled = 0;
        OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
        if (s != SYNC_UNLOCK)
            OSU_CHECK(MPI_Win_lock_all(0, w.win));
        for (int r = 0; r < rounds; r++) {
            round++;
            if (rank == 0) {
                uint64_t v = pattern(round);
                if (s == SYNC_UNLOCK)
                    OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, w.win));
                OSU_CHECK(MPI_Put(&v, 8, MPI_BYTE, 1, w.disp0, 8, MPI_BYTE, w.win));
                if (s == SYNC_FLUSH)
                    OSU_CHECK(MPI_Win_flush(1, w.win));
                else if (s == SYNC_FLUSH_ALL)
                    OSU_CHECK(MPI_Win_flush_all(w.win));
                else
                    OSU_CHECK(MPI_Win_unlock(1, w.win));
                __atomic_store_n(&flags->synced, round, __ATOMIC_RELEASE);
                await(&flags->checked, round);
            } else {
                stalled += await(&flags->synced, round);
                /* At once: a put still on its way shows as the old pattern. */
                late += *mine != pattern(round);
                __atomic_store_n(&flags->checked, round, __ATOMIC_RELEASE);
            }
        }
        if (s != SYNC_UNLOCK)
            OSU_CHECK(MPI_Win_unlock_all(w.win));
        int counts[2] = { late, stalled };
        if (rank == 1)
            OSU_CHECK(MPI_Send(counts, 2, MPI_INT, 0, 0, MPI_COMM_WORLD));
        else
            OSU_CHECK(MPI_Recv(counts, 2, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (rank == 0) {
            double pl = 100.0 * counts[0] / rounds, ps = 100.0 * counts[1] / rounds;
            if (o.csv) {
                osu_row(&o, "flush_visible", sync_names[s], o.win, 8, "late", pl, "%");
                osu_row(&o, "flush_visible", sync_names[s], o.win, 8, "stalled", ps, "%");
            } else {
                printf("%-12s%10.1f%10.1f\n", sync_names[s], pl, ps);
            }
            fflush(stdout);
        }
    }
    osu_win_free(&w);
    munmap((void *) flags, sizeof(shared_flags_t));
    MPI_Finalize();
    return EXIT_SUCCESS;
}
