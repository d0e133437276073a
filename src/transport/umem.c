/*
 * User memory mapped into shared memory (see umem.h).
 *
 * Only private anonymous read-write memory (unnamed mappings and [heap]) is moved:
 * its pages belong to this process alone, so replacing them with a memfd's, same
 * bytes, at the same address, is invisible to the program.  Anything else (files,
 * shared or huge-page memory, the stack, locked or MADV_DONTFORK pages, which other
 * libraries pin or register) is refused and stays on process_vm_*.
 *
 * fork: the child's mapping of a moved region would share the parent's pages, so a
 * pthread_atfork child handler gives it private copies, as fork gives of private
 * memory.  The copy is taken when fork returns in the child; writes that peers or
 * other threads make to the window during the fork may or may not be in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "umem.h"

struct rmaib_umem {
    char *addr;
    size_t len;
    int fd;             /* the memfd (-1 in a fork's child) */
    int shared;         /* 0 once the memory is private again (a fork's child) */
    unsigned long ino;  /* the memfd's inode, as /proc/self/maps shows it */
    unsigned long dev;
    struct rmaib_umem *next;
};


struct rmaib_umem_hold {
    uintptr_t lo, hi;
    struct rmaib_umem_hold *next;
};

static pthread_mutex_t umem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t umem_once = PTHREAD_ONCE_INIT;
static rmaib_umem_t *umem_list;
static rmaib_umem_hold_t *hold_list;   /* every live window's region */

static int page_is_zero(const char *p, size_t n)
{
    const uint64_t *q = (const uint64_t *) p;
    for (size_t i = 0; i < n / sizeof *q; i++)
        if (q[i])
            return 0;
    return 1;
}

/* A run of data to move: from private memory at addr into the memfd at foff (in),
 * or back (out).  The kernel copies, and the pages the copy fills are made first in
 * one call, not a fault each (which costs 40 us a page in a VM: 10 s a GiB); pages
 * of zeros are not written. */
enum { MOVE_IN, MOVE_MAPPED, MOVE_OUT };

typedef struct move_ctx {
    char *addr;
    int fd, stage;      /* MOVE_*: copying in, mapping in place, copying out */
    off_t foff;
    size_t page;
    int failed;
} move_ctx_t;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  /* Linux 5.14; older kernels refuse it, and fault */
#endif

static int io_all(move_ctx_t *c, size_t off, size_t n)
{
    while (n > 0) {
        ssize_t k = c->stage == MOVE_IN ? pwrite(c->fd, c->addr + off, n, c->foff + (off_t) off)
            : pread(c->fd, c->addr + off, n, c->foff + (off_t) off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        off += (size_t) k;
        n -= (size_t) k;
    }
    return 0;
}

static void move_run(move_ctx_t *c, size_t off, size_t n)
{
    if (c->stage != MOVE_IN) {
        (void) madvise(c->addr + off, n, MADV_POPULATE_WRITE);
        if (c->stage == MOVE_OUT)
            c->failed |= io_all(c, off, n);
        return;
    }
    (void) fallocate(c->fd, 0, c->foff + (off_t) off, (off_t) n);
    for (size_t p = off, first = off; p <= off + n; p += c->page) {
        if (p < off + n && !page_is_zero(c->addr + p, c->page))
            continue;
        if (p > first)
            c->failed |= io_all(c, first, p - first);
        first = p + c->page;
    }
}

/* Pass to move_run the runs of [addr, addr + len) that hold data, so that memory
 * never touched costs nothing: copying in, the pages this process has touched
 * (present or swapped in /proc/self/pagemap); else the memfd's data extents
 * (SEEK_DATA), which hold the pages only peers wrote too.  All of it where neither
 * answers.  Only system calls a fork's child may make. */
static void data_runs(size_t len, move_ctx_t *c)
{
    size_t page = c->page;
    if (c->stage != MOVE_IN) {
        off_t end = c->foff + (off_t) len, d = c->foff, h;
        while (d < end && (d = lseek(c->fd, d, SEEK_DATA)) >= 0 && d < end) {
            h = lseek(c->fd, d, SEEK_HOLE);
            if (h < 0 || h > end)
                h = end;
            move_run(c, (size_t) (d - c->foff), (size_t) (h - d));
            d = h;
        }
        if (d < 0 && errno != ENXIO)    /* (ENXIO: no data after d) */
            move_run(c, 0, len);
        return;
    }
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pm < 0) {
        move_run(c, 0, len);
        return;
    }
    uint64_t ent[512];
    size_t npages = len / page, first = 0, in = 0, i = 0;
    while (i < npages) {
        size_t k = npages - i < 512 ? npages - i : 512;
        off_t at = (off_t) (((uintptr_t) c->addr / page + i) * sizeof ent[0]);
        if (pread(pm, ent, k * sizeof ent[0], at) != (ssize_t) (k * sizeof ent[0])) {
            size_t from = in ? first : i;
            move_run(c, from * page, len - from * page);
            close(pm);
            return;
        }
        for (size_t j = 0; j < k; j++, i++) {
            int has = (ent[j] >> 62) != 0;     /* bit 63 present, 62 swapped */
            if (has && !in)
                first = i;
            else if (!has && in)
                move_run(c, first * page, (i - first) * page);
            in = has;
        }
    }
    if (in)
        move_run(c, first * page, (npages - first) * page);
    close(pm);
}

enum { UMEM_CHUNK = 64 << 20 };  /* moved at a time: what the move holds twice */

/* Replace [addr, addr + len) by a new mapping holding the same bytes: of the memfd
 * from offset foff, shared (in), or private anonymous memory (out, filled from the
 * memfd, whose bytes stay).  A chunk at a time; returns the bytes replaced (len, or
 * up to the chunk that failed: it and those after it are as they were).
 * mmap(MAP_FIXED), not mremap: UCX's memory hooks (MPICH ch4:ucx) take mremap's
 * MREMAP_FIXED address away, and they must see the old pages go. */
static size_t replace(char *addr, size_t len, int fd, off_t foff, int in)
{
    int prot = PROT_READ | PROT_WRITE;
    for (size_t off = 0; off < len; off += UMEM_CHUNK) {
        size_t n = len - off < UMEM_CHUNK ? len - off : UMEM_CHUNK;
        move_ctx_t c = { addr + off, fd, MOVE_IN, foff + (off_t) off,
                         (size_t) sysconf(_SC_PAGESIZE), 0 };
        if (in)
            data_runs(n, &c);
        if (c.failed)
            return off;
        void *m = in ? mmap(c.addr, n, prot, MAP_SHARED | MAP_FIXED, fd, c.foff)
            : mmap(c.addr, n, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (m == MAP_FAILED)
            return off;
        c.stage = in ? MOVE_MAPPED : MOVE_OUT;
        data_runs(n, &c);
    }
    return len;
}

/* Make private again the parts of u's range still mapped from its memfd at their
 * own offset.  The program may have unmapped some (MPICH's test3 frees a window's
 * memory before the window), and something else may live there since: left alone.
 * Reads /proc/self/maps with read(2) into the stack, as a fork's child may. */
static void restore(rmaib_umem_t *u)
{
    char buf[4096], line[512];
    size_t ll = 0;
    ssize_t n;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    uintptr_t lo = (uintptr_t) u->addr, hi = lo + u->len;
    if (fd < 0)
        return;
    /* Collect first, change after: the file's view moves under changes. */
    struct { uintptr_t s, e; } parts[64];
    int np = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (ll < sizeof line - 1)
                    line[ll++] = buf[i];
                continue;
            }
            line[ll] = 0;
            ll = 0;
            unsigned long s, e, off, ino;
            if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &s, &e, &off, &ino) != 4)
                continue;
            if (s < hi && e > lo && ino == u->ino && off == s - lo && np < 64) {
                parts[np].s = s > lo ? s : lo;
                parts[np++].e = e < hi ? e : hi;
            }
        }
    close(fd);
    for (int i = 0; i < np; i++)
        (void) replace((char *) parts[i].s, parts[i].e - parts[i].s, u->fd,
                       (off_t) (parts[i].s - lo), 0);
}

static void atfork_prepare(void)
{
    pthread_mutex_lock(&umem_lock);
}

static void atfork_parent(void)
{
    pthread_mutex_unlock(&umem_lock);
}

/* The child gets private copies of every moved region, and none of the memfds. */
static void atfork_child(void)
{
    for (rmaib_umem_t *u = umem_list; u; u = u->next)
        if (u->shared) {
            restore(u);
            u->shared = 0;
            if (u->fd >= 0)
                close(u->fd);
            u->fd = -1;
        }
    pthread_mutex_unlock(&umem_lock);
}

static void umem_init(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Do the VmFlags say the pages are locked, huge, pinned or special?  Two-letter
 * mnemonics of proc(5). */
static const char *bad_vmflag(const char *flags)
{
    static const char *const bad[][2] = {
        { "lo", "locked" }, { "ht", "hugetlb" }, { "dc", "MADV_DONTFORK (registered?)" },
        { "wf", "MADV_WIPEONFORK" }, { "io", "I/O memory" }, { "pf", "PFN-mapped" },
        { "mm", "mixed-mapped" }, { "sh", "shared" }, { "gd", "a stack" },
        { "uw", "userfaultfd-registered" }, { "um", "userfaultfd-registered" },
    };
    for (const char *p = flags; *p;) {
        while (*p == ' ')
            p++;
        for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
            if (strncmp(p, bad[i][0], 2) == 0 && (p[2] == ' ' || p[2] == '\n' || !p[2]))
                return bad[i][1];
        while (*p && *p != ' ')
            p++;
    }
    return NULL;
}

/* Are [lo, hi) wholly private anonymous read-write pages that nothing pins?  0, or
 * -1 with why[] said.  From /proc/self/smaps: its header lines are those of
 * /proc/self/maps, followed by the mapping's fields (Locked:, VmFlags:). */
static int check_pages(uintptr_t lo, uintptr_t hi, char *why, size_t whylen)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) {
        snprintf(why, whylen, "cannot read /proc/self/smaps");
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    uintptr_t covered = lo;
    int in = 0, bad = 0;
    while (!bad && covered < hi && getline(&line, &cap, f) > 0) {
        if ((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f')) {
            unsigned long s, e, ino;
            char perms[8] = "", path[256] = "";
            if (sscanf(line, "%lx-%lx %7s %*s %*s %lu %255[^\n]", &s, &e, perms, &ino, path) < 4) {
                snprintf(why, whylen, "cannot parse /proc/self/smaps");
                bad = 1;
                break;
            }
            in = s < hi && e > lo;
            if (!in)
                continue;
            char *p = path;
            while (*p == ' ')
                p++;
            if (s > covered)
                snprintf(why, whylen, "%#lx is not mapped", (unsigned long) covered), bad = 1;
            else if (strstr(p, "/memfd:rmaib"))
                snprintf(why, whylen, "the pages are in rmaib's shared memory already "
                         "(another window's?)"), bad = 1;
            else if (strcmp(perms, "rw-p") != 0)
                snprintf(why, whylen, "the pages are %s, not private read-write", perms), bad = 1;
            else if (ino != 0 || (*p && strcmp(p, "[heap]") != 0))
                snprintf(why, whylen, "the pages are not anonymous memory (%s)",
                         *p ? p : "a file"), bad = 1;
            covered = e;
        } else if (in && strncmp(line, "Locked:", 7) == 0 && strtoul(line + 7, NULL, 10) > 0) {
            snprintf(why, whylen, "the pages are locked");
            bad = 1;
        } else if (in && strncmp(line, "VmFlags:", 8) == 0) {
            const char *what = bad_vmflag(line + 8);
            if (what)
                snprintf(why, whylen, "the pages are %s", what), bad = 1;
        }
    }
    /* The last mapping's fields follow its header: read them too. */
    while (!bad && in && getline(&line, &cap, f) > 0
           && !((line[0] >= '0' && line[0] <= '9') || (line[0] >= 'a' && line[0] <= 'f'))) {
        if (strncmp(line, "Locked:", 7) == 0 && strtoul(line + 7, NULL, 10) > 0)
            snprintf(why, whylen, "the pages are locked"), bad = 1;
        else if (strncmp(line, "VmFlags:", 8) == 0 && bad_vmflag(line + 8))
            snprintf(why, whylen, "the pages are %s", bad_vmflag(line + 8)), bad = 1;
    }
    free(line);
    fclose(f);
    if (!bad && covered < hi) {
        snprintf(why, whylen, "%#lx is not mapped", (unsigned long) covered);
        bad = 1;
    }
    return bad ? -1 : 0;
}

rmaib_umem_hold_t *rmaib_umem_hold(void *base, size_t size)
{
    rmaib_umem_hold_t *h = malloc(sizeof *h);
    if (!h)
        return NULL;
    pthread_mutex_lock(&umem_lock);
    *h = (rmaib_umem_hold_t) { (uintptr_t) base, (uintptr_t) base + size, hold_list };
    hold_list = h;
    pthread_mutex_unlock(&umem_lock);
    return h;
}

void rmaib_umem_unhold(rmaib_umem_hold_t *h)
{
    pthread_mutex_lock(&umem_lock);
    for (rmaib_umem_hold_t **pp = &hold_list; *pp; pp = &(*pp)->next)
        if (*pp == h) {
            *pp = h->next;
            break;
        }
    pthread_mutex_unlock(&umem_lock);
    free(h);
}

/* Does [lo, hi) meet a live window's region? */
static int held(uintptr_t lo, uintptr_t hi)
{
    int yes = 0;
    pthread_mutex_lock(&umem_lock);
    for (rmaib_umem_hold_t *h = hold_list; h && !yes; h = h->next)
        yes = h->lo < hi && lo < h->hi;
    pthread_mutex_unlock(&umem_lock);
    return yes;
}

rmaib_umem_t *rmaib_umem_map(void *base, size_t size, uint64_t *lo, uint64_t *hi, int *fd,
                             char *why, size_t whylen)
{
    size_t page = (size_t) sysconf(_SC_PAGESIZE);
    uintptr_t b = (uintptr_t) base, plo = (b + page - 1) / page * page;
    uintptr_t phi = (b + size) / page * page;
    why[0] = 0;
    if (!base || size < page || phi <= plo)
        return NULL;
    /* Another window's peers may be writing there (through the network too, into
     * pages its registration holds): moving them would lose their writes. */
    if (held(plo, phi)) {
        snprintf(why, whylen, "the pages are another window's memory too");
        return NULL;
    }
    if (check_pages(plo, phi, why, whylen) != 0)
        return NULL;
    rmaib_umem_t *u = malloc(sizeof *u);
    int f = memfd_create("rmaib-umem", MFD_CLOEXEC);
    if (!u || f < 0 || ftruncate(f, (off_t) (phi - plo)) != 0) {
        snprintf(why, whylen, "no memory for a %zu-byte memfd", (size_t) (phi - plo));
        goto fn_fail;
    }
    struct stat st;
    if (fstat(f, &st) != 0) {
        snprintf(why, whylen, "fstat of the memfd failed");
        goto fn_fail;
    }
    *u = (rmaib_umem_t) { (char *) plo, phi - plo, f, 1, (unsigned long) st.st_ino,
                          (unsigned long) st.st_dev, NULL };
    pthread_once(&umem_once, umem_init);
    /* Under the lock, so that a fork sees the region either private or listed. */
    pthread_mutex_lock(&umem_lock);
    size_t moved = replace(u->addr, u->len, f, 0, 1);
    int rc = moved == u->len ? 0 : -1;
    if (rc != 0)        /* the chunks that moved go back */
        (void) replace(u->addr, moved, f, 0, 0);
    if (rc == 0) {
        u->next = umem_list;
        umem_list = u;
    }
    pthread_mutex_unlock(&umem_lock);
    if (rc != 0) {
        snprintf(why, whylen, "mapping the memfd in place failed");
        goto fn_fail;
    }
    *lo = plo - b;
    *hi = phi - b;
    *fd = f;
    return u;

  fn_fail:
    if (f >= 0)
        close(f);
    free(u);
    return NULL;
}

void rmaib_umem_id(const rmaib_umem_t *u, uint64_t *dev, uint64_t *ino)
{
    *dev = u->dev;
    *ino = u->ino;
}

void rmaib_umem_unmap(rmaib_umem_t *u)
{
    if (!u)
        return;
    pthread_mutex_lock(&umem_lock);
    for (rmaib_umem_t **pp = &umem_list; *pp; pp = &(*pp)->next)
        if (*pp == u) {
            *pp = u->next;
            break;
        }
    /* Out of memory for the private copy: the memfd's pages stay, same bytes, shared
     * with nobody once the peers have unmapped them. */
    if (u->shared)
        restore(u);
    pthread_mutex_unlock(&umem_lock);
    if (u->fd >= 0)
        close(u->fd);
    free(u);
}
