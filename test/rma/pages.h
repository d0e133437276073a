/*
 * What holds a page of this process (tests of the user memory rmaib moves into
 * shared memory: MPI_Win_create windows and dynamic windows' attached regions).
 */
#ifndef RMAIB_TEST_PAGES_H_INCLUDED
#define RMAIB_TEST_PAGES_H_INCLUDED

#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

static inline char *page_up(char *p)
{
    return (char *) (((uintptr_t) p + PAGE - 1) / PAGE * PAGE);
}

#endif
