/*
 * The registered host table, and what the core builds on it.  Until a host
 * registers, the core runs as a lone process (unit tests, tools): one rank, no
 * collectives needed beyond itself, diagnostics on stderr.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib.h"
#include "rmaib_host.h"

static int alone_allgather(void *hcomm, const void *send, void *recv, size_t bytes)
{
    (void) hcomm;
    memmove(recv, send, bytes);
    return RMAIB_OK;
}

static int alone_allreduce_max(void *hcomm, uint64_t *words, int n)
{
    (void) hcomm;
    (void) words;
    (void) n;
    return RMAIB_OK;
}

static int alone_barrier(void *hcomm)
{
    (void) hcomm;
    return RMAIB_OK;
}

static int alone_world_rank(void)
{
    return 0;
}

static void alone_progress(void)
{
}

static void alone_say(const char *line)
{
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

static int alone_thread_multiple(void)
{
    return 0;
}

static const struct rmaib_host_ops alone = {
    .allgather = alone_allgather,
    .barrier = alone_barrier,
    .allreduce_max = alone_allreduce_max,
    .world_rank = alone_world_rank,
    .progress = alone_progress,
    .say = alone_say,
    .thread_multiple = alone_thread_multiple,
};

const struct rmaib_host_ops *rmaib_host = &alone;
_Thread_local unsigned long rmaib_host_colls;
_Thread_local int rmaib_host_own_thread;

void rmaib_host_register(const struct rmaib_host_ops *ops)
{
    rmaib_host = ops ? ops : &alone;
}

void rmaib_host_say(const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof line, "[%d] ", rmaib_host_world_rank());
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t) n, fmt, ap);
    va_end(ap);
    rmaib_host->say(line);
}

int rmaib_host_agree(void *hcomm, int nranks, int mine)
{
    (void) nranks;
    uint64_t w = (uint64_t) mine;
    int rc = rmaib_host_allreduce_max(hcomm, &w, 1);
    return rc != RMAIB_OK ? rc : (int) w;
}
