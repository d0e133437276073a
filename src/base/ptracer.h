/*
 * Who may use cross-memory attach (process_vm_readv/writev) on this process.
 *
 * Under Yama's ptrace_scope 1 a process may be attached only by its ancestors, or by
 * a process it names with PR_SET_PTRACER and that process's descendants.  The ranks
 * of a node are descendants of their launcher, so naming the lowest ancestor common
 * to the node's ranks lets them in and leaves the rest of the user's processes out.
 */
#ifndef RMAIB_BASE_PTRACER_H_INCLUDED
#define RMAIB_BASE_PTRACER_H_INCLUDED

#include <stdint.h>

/* How many ancestors of a process are compared: parent, grandparent, ... */
#define RMAIB_PTRACER_DEPTH 4

/* The Yama ptrace scope read from path (the kernel's:
 * /proc/sys/kernel/yama/ptrace_scope): 0-3, or -1 where there is no Yama. */
int rmaib_yama_scope(const char *path);
#define RMAIB_YAMA_SCOPE_PATH "/proc/sys/kernel/yama/ptrace_scope"

/* This process's ancestors, nearest first; 0 past the first process without a
 * readable parent (init's parent is 0 already). */
void rmaib_ancestors(int64_t chain[RMAIB_PTRACER_DEPTH]);

/* The index in mine of the nearest ancestor that is in every chain of chains
 * (n chains of RMAIB_PTRACER_DEPTH each), or -1 if there is none. */
int rmaib_ptracer_pick(const int64_t mine[RMAIB_PTRACER_DEPTH], const int64_t *chains, int n);

/* Let mine[idx] and its descendants attach to this process (idx -1: anyone).  Calls
 * of one process widen the permission, never narrow it: PR_SET_PTRACER names one
 * process, so the farthest ancestor named so far stays.  0, or -1 with errno. */
int rmaib_ptracer_allow(const int64_t mine[RMAIB_PTRACER_DEPTH], int idx);

#endif
