/*
 * An allocation-failure injector, linked into a test program: it defines malloc,
 * calloc, realloc, posix_memalign, mmap, shm_open and memfd_create over the C
 * library's, so that every call of the process goes through it, and fails the Nth
 * one made from rmaib's own code (the caller's address inside librmaib-mpi.so),
 * never one of the host MPI's or libfabric's; fi_mr_reg, which libfabric inlines,
 * through rmaib's rmaib_fault_hook.  failinj_arm(kinds, n) arms it,
 * failinj_disarm() returns whether it fired.  Not for sanitized builds: their
 * runtimes own these symbols (failinj_usable() says 0 there).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <link.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include "failinj.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
int failinj_usable(void) { return 0; }
void failinj_arm(unsigned kinds, long n) { (void) kinds; (void) n; }
void failinj_arm_within(unsigned kinds, long n, const char *fn)
{
    (void) kinds, (void) n, (void) fn;
}
int failinj_disarm(void) { return 0; }
long failinj_seen(void) { return 0; }
#else

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_memalign)(void **, size_t, size_t);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_shm_open)(const char *, int, mode_t);
static int (*real_memfd)(const char *, unsigned);

/* dlsym may allocate before real_calloc is known: a small arena serves it. */
static _Alignas(16) char boot[16384];
static size_t boot_used;
static int resolving;

static uintptr_t rmaib_lo, rmaib_hi;    /* librmaib-mpi.so's code */
static _Atomic unsigned armed_kinds;
static _Atomic long target, seen;
static _Atomic int fired;
static const char *within;              /* count only calls inside this function */

static void resolve(void)
{
    if (real_free || resolving)
        return;
    resolving = 1;
    real_malloc = (void *(*)(size_t)) dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t)) dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t)) dlsym(RTLD_NEXT, "realloc");
    real_memalign = (int (*)(void **, size_t, size_t)) dlsym(RTLD_NEXT, "posix_memalign");
    real_mmap = (void *(*)(void *, size_t, int, int, int, off_t)) dlsym(RTLD_NEXT, "mmap");
    real_shm_open = (int (*)(const char *, int, mode_t)) dlsym(RTLD_NEXT, "shm_open");
    real_memfd = (int (*)(const char *, unsigned)) dlsym(RTLD_NEXT, "memfd_create");
    real_free = (void (*)(void *)) dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

static int find_rmaib(struct dl_phdr_info *info, size_t size, void *data)
{
    (void) size, (void) data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "librmaib-mpi"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            rmaib_lo = info->dlpi_addr + ph->p_vaddr;
            rmaib_hi = rmaib_lo + ph->p_memsz;
        }
    }
    return 1;
}

static int fail_now(unsigned kind, const void *ra);

/* rmaib_fault_hook: fi_mr_reg, which libfabric inlines into rmaib. */
static int mr_hook(int what)
{
    (void) what;
    return fail_now(FAILINJ_MR, __builtin_extract_return_addr(__builtin_return_address(0)));
}

int failinj_usable(void)
{
    if (!rmaib_hi) {
        dl_iterate_phdr(find_rmaib, NULL);
        int (**hook)(int) = (int (**)(int)) dlsym(RTLD_DEFAULT, "rmaib_fault_hook");
        if (hook)
            *hook = mr_hook;
    }
    return rmaib_hi != 0;
}

void failinj_arm(unsigned kinds, long n)
{
    failinj_arm_within(kinds, n, NULL);
}

void failinj_arm_within(unsigned kinds, long n, const char *fn)
{
    failinj_usable();
    within = fn;
    atomic_store(&fired, 0);
    atomic_store(&seen, 0);
    atomic_store(&target, n);
    atomic_store(&armed_kinds, kinds);
}

int failinj_disarm(void)
{
    atomic_store(&armed_kinds, 0);
    return atomic_load(&fired);
}

long failinj_seen(void)
{
    return atomic_load(&seen);
}

/* Is the function named within on the stack?  (Calls from outside rmaib that
 * backtrace and dladdr make return before they get here.) */
static int inside(void)
{
    void *frames[48];
    int k = backtrace(frames, 48);
    for (int i = 0; i < k; i++) {
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        /* (dladdr names the nearest exported symbol below: a static function after
         * it too; its size tells.) */
        if (dladdr1(frames[i], &info, (void **) &sym, RTLD_DL_SYMENT) && sym && info.dli_sname
            && !strcmp(info.dli_sname, within)
            && (uintptr_t) frames[i] < (uintptr_t) info.dli_saddr + sym->st_size)
            return 1;
    }
    return 0;
}

/* Does this call, made from ra, fail? */
static int fail_now(unsigned kind, const void *ra)
{
    if (!(atomic_load_explicit(&armed_kinds, memory_order_relaxed) & kind))
        return 0;
    if ((uintptr_t) ra < rmaib_lo || (uintptr_t) ra >= rmaib_hi)
        return 0;
    if (within && !inside())
        return 0;
    if (atomic_fetch_add(&seen, 1) + 1 != atomic_load(&target))
        return 0;
    atomic_store(&fired, 1);
    if (getenv("RMAIB_FAILINJ_TRACE")) {        /* which call it was, for a failure */
        void *frames[16];
        fprintf(stderr, "failinj: failing call %ld\n", atomic_load(&target));
        int k = backtrace(frames, 16);
        backtrace_symbols_fd(frames, k, 2);
    }
    return 1;
}

#define CALLER __builtin_extract_return_addr(__builtin_return_address(0))

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc) {
        size_t at = (boot_used + 15) & ~(size_t) 15;
        if (at + n > sizeof boot)
            return NULL;
        boot_used = at + n;
        return boot + at;
    }
    if (fail_now(FAILINJ_MALLOC, CALLER)) {
        errno = ENOMEM;
        return NULL;
    }
    return real_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    resolve();
    if (!real_calloc) {
        void *p = malloc(k * n);        /* the arena is zero */
        return p;
    }
    if (fail_now(FAILINJ_MALLOC, CALLER)) {
        errno = ENOMEM;
        return NULL;
    }
    return real_calloc(k, n);
}

void free(void *p)
{
    resolve();
    if ((char *) p >= boot && (char *) p < boot + sizeof boot)
        return;
    if (real_free)
        real_free(p);
}

void *realloc(void *p, size_t n)
{
    resolve();
    if (fail_now(FAILINJ_REALLOC, CALLER)) {
        errno = ENOMEM;
        return NULL;
    }
    return real_realloc(p, n);
}

int posix_memalign(void **p, size_t align, size_t n)
{
    resolve();
    if (fail_now(FAILINJ_MALLOC, CALLER))
        return ENOMEM;
    return real_memalign(p, align, n);
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    resolve();
    if (fail_now(FAILINJ_MMAP, CALLER)) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return real_mmap(addr, len, prot, flags, fd, off);
}

int shm_open(const char *name, int oflag, mode_t mode)
{
    resolve();
    if (fail_now(FAILINJ_SHM, CALLER)) {
        errno = ENOSPC;
        return -1;
    }
    return real_shm_open(name, oflag, mode);
}

int memfd_create(const char *name, unsigned flags)
{
    resolve();
    if (fail_now(FAILINJ_SHM, CALLER)) {
        errno = ENOMEM;
        return -1;
    }
    return real_memfd(name, flags);
}
#endif
