/*
 * What holds a page of this process, and what a child of fork sees there (tests of
 * the user memory rmaib moves into shared memory: MPI_Win_create windows and
 * dynamic windows' attached regions).  After tap.h and pattern.h.
 */
#ifndef RMAIB_TEST_PAGES_H_INCLUDED
#define RMAIB_TEST_PAGES_H_INCLUDED

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PAGE 4096

/* What holds addr: 1 rmaib's memfd, 0 private anonymous memory, -1 anything else. */
static inline int mapped_at(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int kind = -1;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long s, e;
        char perms[8], path[256] = "";
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255[^\n]", &s, &e, perms, path) < 3)
            continue;
        if ((uintptr_t) addr < s || (uintptr_t) addr >= e)
            continue;
        kind = strstr(path, "memfd:rmaib-umem") ? 1
            : (!path[0] || strcmp(path, "[heap]") == 0) && perms[3] == 'p' ? 0 : -1;
        break;
    }
    if (f)
        fclose(f);
    return kind;
}

/* Does this run move user memory into shared memory?  Within a node over shm, where
 * RMAIB_MAP_USER_MEMORY does not say no. */
static inline int pages_expect_moves(void)
{
    int node = tap_env_int("RMAIB_NODE_SIZE", 0);
    const char *tp = getenv("RMAIB_TRANSPORT"), *env = getenv("RMAIB_MAP_USER_MEMORY");
    int yes = tap_size > 1 && node != 1 && !(tp && strcmp(tp, "ofi") == 0)
        && !(env && strcmp(env, "0") == 0);
    TAP_DIAG("pages expected to move: %s", yes ? "yes" : "no");
    return yes;
}

/* The rank that puts byte i of an n-byte region (put_stripes). */
static inline int stripe_owner(size_t i, size_t n, int np)
{
    int o = 0;
    while (n * (size_t) (o + 1) / (size_t) np <= i)
        o++;
    return o;
}

/* In an open lock_all epoch: this rank's stripe of every target's n bytes at
 * displacement 0, byte i being bpat(me, t, salt + i), each target flushed. */
static inline void put_stripes(MPI_Win win, unsigned char *src, size_t n, long salt)
{
    int me = tap_rank, np = tap_size;
    size_t lo = n * (size_t) me / (size_t) np, hi = n * (size_t) (me + 1) / (size_t) np;
    for (int t = 0; t < np; t++) {
        for (size_t i = lo; i < hi; i++)
            src[i] = bpat(me, t, salt + (long) i);
        if (hi > lo)
            MPI_Put(src + lo, (int) (hi - lo), MPI_BYTE, t, (MPI_Aint) lo, (int) (hi - lo),
                    MPI_BYTE, win);
        MPI_Win_flush(t, win);
    }
}

static inline char *page_up(char *p)
{
    return (char *) (((uintptr_t) p + PAGE - 1) / PAGE * PAGE);
}

/* fm: two pages of 0x11 in window w at displacement at of every rank.  The left
 * neighbour puts a byte into the second page; a child of fork sees it in private
 * memory, and its writes stay its own; the peers still reach the parent after. */
static inline void fork_after_put(MPI_Win w, char *fm, MPI_Aint at)
{
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
    unsigned char v = (unsigned char) (0x20 + me);
    MPI_Put(&v, 1, MPI_BYTE, right, at + PAGE, 1, MPI_BYTE, w);
    MPI_Win_unlock(right, w);
    MPI_Barrier(MPI_COMM_WORLD);
    pid_t pid = fork();
    if (pid == 0) {
        int ok = (unsigned char) fm[PAGE] == 0x20 + left && fm[0] == 0x11 && mapped_at(fm) == 0;
        memset(fm, 0x77, 2 * PAGE);
        _exit(ok ? 0 : 3);
    }
    int status = -1;
    TAP_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork or waitpid failed");
    TAP_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the child saw the wrong bytes "
              "or shared pages (status %#x)", status);
    TAP_CHECK(fm[0] == 0x11 && (unsigned char) fm[PAGE] == 0x20 + left,
              "the child's writes reached the parent");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, w);
    v = (unsigned char) (0x40 + me);
    MPI_Put(&v, 1, MPI_BYTE, right, at + PAGE + 1, 1, MPI_BYTE, w);
    MPI_Win_unlock(right, w);
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK((unsigned char) fm[PAGE + 1] == 0x40 + left, "put after fork lost");
}

#endif
