/*
 * Who may cross-memory-attach to a rank under Yama (src/base/ptracer.c): the scope
 * file's parsing, the ancestor chain against what the kernel says of a forked
 * child, and the choice of the nearest ancestor common to the node's ranks.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "base/ptracer.h"
#include "unit_tap.h"

static const char *scope_file(const char *text)
{
    static char path[] = "/tmp/rmaib-ptracer-XXXXXX";
    strcpy(path, "/tmp/rmaib-ptracer-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text))
        exit(2);
    close(fd);
    return path;
}

static void check_scope(const char *text, int want)
{
    const char *p = scope_file(text);
    int got = rmaib_yama_scope(p);
    unlink(p);
    tap(got == want, "scope file \"%.*s\" reads as %d (got %d)", (int) strcspn(text, "\n"),
        text, want, got);
}

/* A child's chain starts with its parent (us), then our parent. */
static void check_ancestors(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        exit(2);
    pid_t child = fork();
    if (child == 0) {
        int64_t chain[RMAIB_PTRACER_DEPTH];
        rmaib_ancestors(chain);
        _exit(write(fds[1], chain, sizeof chain) == (ssize_t) sizeof chain ? 0 : 1);
    }
    int64_t chain[RMAIB_PTRACER_DEPTH] = { 0 };
    ssize_t n = read(fds[0], chain, sizeof chain);
    waitpid(child, NULL, 0);
    tap(n == (ssize_t) sizeof chain && chain[0] == getpid(),
        "a child's nearest ancestor is its parent (%lld, want %d)", (long long) chain[0],
        (int) getpid());
    tap(chain[1] == getppid(), "then the parent's parent (%lld, want %d)", (long long) chain[1],
        (int) getppid());
    int zeros_after_init = 1;
    for (int i = 0; i + 1 < RMAIB_PTRACER_DEPTH; i++)
        if (chain[i] == 1 && chain[i + 1] != 0)
            zeros_after_init = 0;
    tap(zeros_after_init, "nothing follows init in the chain");
}

static void check_pick(void)
{
    const int64_t mine[4] = { 100, 50, 1, 0 };
    const int64_t same[3 * 4] = { 100, 50, 1, 0, 100, 50, 1, 0, 100, 50, 1, 0 };
    tap(rmaib_ptracer_pick(mine, same, 3) == 0, "siblings: their parent");
    const int64_t wrapped[2 * 4] = { 100, 50, 1, 0, 200, 100, 50, 1 };
    tap(rmaib_ptracer_pick(mine, wrapped, 2) == 0, "a peer under a wrapper: still our parent");
    const int64_t cousin[2 * 4] = { 100, 50, 1, 0, 300, 50, 1, 0 };
    tap(rmaib_ptracer_pick(mine, cousin, 2) == 1, "a peer of another launcher: the grandparent");
    const int64_t stranger[2 * 4] = { 100, 50, 1, 0, 400, 1, 0, 0 };
    tap(rmaib_ptracer_pick(mine, stranger, 2) == -1, "only init in common: nobody to name");
    const int64_t orphan[4] = { 1, 0, 0, 0 };
    tap(rmaib_ptracer_pick(orphan, orphan, 1) == -1, "a child of init names nobody");
    const int64_t deep[2 * 4] = { 100, 50, 1, 0, 9, 8, 7, 6 };
    tap(rmaib_ptracer_pick(mine, deep, 2) == -1, "a common ancestor out of reach: nobody");
}

int main(void)
{
    check_scope("0\n", 0);
    check_scope("1\n", 1);
    check_scope("3", 3);
    check_scope("7\n", -1);
    check_scope("yes\n", -1);
    check_scope("", -1);
    tap(rmaib_yama_scope("/nonexistent/ptrace_scope") == -1, "no scope file: no Yama");
    check_ancestors();
    check_pick();

    /* The kernel refuses PR_SET_PTRACER where Yama is absent; rmaib never asks then. */
    int64_t chain[RMAIB_PTRACER_DEPTH];
    rmaib_ancestors(chain);
    int yama = rmaib_yama_scope(RMAIB_YAMA_SCOPE_PATH) >= 0;
    errno = 0;
    int rc = rmaib_ptracer_allow(chain, 0);
    tap(yama ? rc == 0 : rc == -1 && errno == EINVAL,
        "PR_SET_PTRACER naming our parent: %s (Yama %s)", rc == 0 ? "taken" : strerror(errno),
        yama ? "present" : "absent");
    printf("1..%d\n", tap_n);
    return tap_bad ? 1 : 0;
}
