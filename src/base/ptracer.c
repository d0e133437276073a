/*
 * Cross-memory attach under Yama: which process the node's ranks may be attached by
 * (see ptracer.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "base/ptracer.h"

int rmaib_yama_scope(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int scope = -1;
    if (fscanf(f, "%d", &scope) != 1 || scope < 0 || scope > 3)
        scope = -1;
    fclose(f);
    return scope;
}

/* The parent of pid from /proc/pid/stat, or 0.  The command name (field 2) may hold
 * spaces and parentheses, so the fields are read after its last ')'. */
static int64_t parent_of(int64_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%lld/stat", (long long) pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    char state;
    long long ppid;
    if (!p || sscanf(p + 1, " %c %lld", &state, &ppid) != 2 || ppid < 0)
        return 0;
    return ppid;
}

void rmaib_ancestors(int64_t chain[RMAIB_PTRACER_DEPTH])
{
    int64_t pid = getppid();
    for (int i = 0; i < RMAIB_PTRACER_DEPTH; i++) {
        chain[i] = pid;
        pid = pid > 1 ? parent_of(pid) : 0;
    }
}

static int in_chain(const int64_t *chain, int64_t pid)
{
    for (int i = 0; i < RMAIB_PTRACER_DEPTH; i++)
        if (chain[i] == pid)
            return 1;
    return 0;
}

int rmaib_ptracer_pick(const int64_t mine[RMAIB_PTRACER_DEPTH], const int64_t *chains, int n)
{
    for (int i = 0; i < RMAIB_PTRACER_DEPTH; i++) {
        if (mine[i] <= 1)
            return -1;      /* init, or nothing known: naming it would admit everyone */
        int all = 1;
        for (int c = 0; all && c < n; c++)
            all = in_chain(chains + (size_t) c * RMAIB_PTRACER_DEPTH, mine[i]);
        if (all)
            return i;
    }
    return -1;
}

static pthread_mutex_t allow_lock = PTHREAD_MUTEX_INITIALIZER;
static int allowed = -2;        /* farthest index named so far; -1: anyone; -2: none */

int rmaib_ptracer_allow(const int64_t mine[RMAIB_PTRACER_DEPTH], int idx)
{
    int rc = 0;
    pthread_mutex_lock(&allow_lock);
    if (allowed != -1 && (idx == -1 || idx > allowed)) {
        unsigned long who = idx < 0 ? (unsigned long) PR_SET_PTRACER_ANY
            : (unsigned long) mine[idx];
        rc = prctl(PR_SET_PTRACER, who, 0, 0, 0);
        if (rc == 0)
            allowed = idx;
    }
    pthread_mutex_unlock(&allow_lock);
    return rc;
}
