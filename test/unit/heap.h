/*
 * Heap measurement for the unit tests that assert bytes kept: glibc's mallinfo2,
 * with the per-thread cache off, since it counts chunks parked there as in use and
 * a freed structure would look as if it kept them.
 */
#ifndef RMAIB_TEST_UNIT_HEAP_H
#define RMAIB_TEST_UNIT_HEAP_H

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes of heap in use, mmapped chunks included. */
static inline size_t heap_used(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* Run again (once) with glibc's tcache off; call first thing in main. */
static inline void heap_without_tcache(char **argv)
{
    static const char tun[] = "glibc.malloc.tcache_count=0";
    const char *t = getenv("GLIBC_TUNABLES");
    if (t && strstr(t, tun))
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s%s", t ? t : "", t ? ":" : "", tun);
    setenv("GLIBC_TUNABLES", buf, 1);
    execv("/proc/self/exe", argv);
    perror("re-exec without tcache");   /* and go on, figures noisier */
}

#endif
