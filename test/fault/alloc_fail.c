/*
 * Allocation failure: rank 0 (FAIL_RANK=r: rank r, say a node-mate rather than
 * the node's lowest rank, which makes its segments) fails the 1st, 2nd, ...
 * allocation, mapping or
 * shared-segment creation that rmaib makes (failinj.c) inside window creation of
 * every flavor, attach, and the first operation of each kind, until the call gets
 * through without meeting one.  Each failed call must return MPI_ERR_NO_MEM through
 * the error handler (MPI_ERRORS_RETURN here) on every rank that takes part, leave
 * that rank with no more descriptors or mappings than before, and the process must
 * go on: the walk ends with a call that succeeds and moves data that is checked.
 * The first window creation of the process also starts the transports (the ofi
 * endpoint in the ofi pass).
 */
#include <dirent.h>
#include <stdio.h>
#include "../rma/tap.h"
#include "../rma/errcheck.h"
#include "failinj.h"

enum { INTS = 256, MAX_STEPS = 400 };

static int victim;      /* the rank whose calls fail */

/* Open descriptors and mappings of this process. */
static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static int count_maps(void)
{
    int n = 0, c;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && (c = getc(f)) != EOF)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

typedef struct walk_ctx {
    int flavor;                 /* for creation */
    MPI_Win win;                /* for operations */
    int *base;
} walk_ctx_t;

/* A step: the call under test; MPI_SUCCESS or its error.  undo() frees what a
 * successful one made (NULL: nothing). */
typedef int (*step_fn)(walk_ctx_t *c);

static int create_win(walk_ctx_t *c)
{
    /* Allocated windows of a size per rank: a later one on the communicator then
     * gathers the sizes after its reduction (win_exchange.c), and that path's
     * allocations are walked too. */
    MPI_Aint bytes = (INTS + (c->flavor < 2 ? tap_rank : 0)) * (MPI_Aint) sizeof(int);
    c->win = MPI_WIN_NULL;
    switch (c->flavor) {
    case 0:
        return MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->base,
                                &c->win);
    case 1:
        return MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->base,
                                       &c->win);
    case 2:
        c->base = calloc(INTS, sizeof(int));
        return MPI_Win_create(c->base, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &c->win);
    default:
        return MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &c->win);
    }
}

static void free_win(walk_ctx_t *c)
{
    if (c->win != MPI_WIN_NULL)
        MPI_Win_free(&c->win);
    if (c->flavor == 2)
        free(c->base);
    c->base = NULL;
}

static const char *flavor_name[] = { "MPI_Win_allocate", "MPI_Win_allocate_shared",
    "MPI_Win_create", "MPI_Win_create_dynamic" };

/* A window that was just made works: a put to the right, a get from oneself. */
static void check_window(walk_ctx_t *c, long n)
{
    if (c->flavor == 3)
        return;
    int v = 1000 + (int) n, got = -1, right = (tap_rank + 1) % tap_size;
    MPI_Win_fence(0, c->win);
    MPI_Put(&v, 1, MPI_INT, right, 0, 1, MPI_INT, c->win);
    MPI_Win_fence(0, c->win);
    MPI_Get(&got, 1, MPI_INT, tap_rank, 0, 1, MPI_INT, c->win);
    MPI_Win_fence(0, c->win);
    TAP_CHECK(got == v, "%s, call %ld: the window read %d, not %d", flavor_name[c->flavor], n,
              got, v);
}

/* One try of a creation with the failing rank's nth call failing: every rank must then see
 * MPI_ERR_NO_MEM, or, where rmaib did without (a cache it builds later, the named
 * segment behind memfd_create), every rank must get a working window.  Whether
 * it met the failure; *recovered: it did, and the window was made all the same. */
static int try_create(walk_ctx_t *c, long n, int *recovered)
{
    const char *name = flavor_name[c->flavor];
    if (tap_rank == victim)
        failinj_arm(FAILINJ_ALL, n);
    int rc = create_win(c);
    int fired = tap_rank == victim ? failinj_disarm() : 0;
    MPI_Bcast(&fired, 1, MPI_INT, victim, MPI_COMM_WORLD);
    int cls = errclass_of(rc), lo, hi;
    MPI_Allreduce(&cls, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&cls, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TAP_CHECK(lo == hi, "%s, call %ld failed: the ranks disagree (%s here)", name, n,
              errclass_name(cls));
    TAP_CHECK(cls == MPI_SUCCESS || (fired && cls == MPI_ERR_NO_MEM), "%s, call %ld%s: %s", name,
              n, fired ? " failed" : "", errclass_name(cls));
    TAP_CHECK((rc == MPI_SUCCESS) == (c->win != MPI_WIN_NULL), "%s, call %ld: %s with%s a window",
              name, n, errclass_name(cls), c->win == MPI_WIN_NULL ? "out" : "");
    *recovered = lo == MPI_SUCCESS && hi == MPI_SUCCESS;
    if (*recovered)
        check_window(c, n);
    free_win(c);
    return fired;
}

/* A peer may connect to us late, a progress thread's first malloc maps its arena,
 * and malloc may map or trim an arena, once each; a leak grows on every try.
 * After a failed try, four more: fail only on growth at each of the last three. */
typedef void (*retry_fn)(walk_ctx_t *c, long n);

static void leak_check(retry_fn again, walk_ctx_t *c, long n, const char *name)
{
    int fds[4], maps[4], fd_grew = 1, map_grew = 1;
    for (int t = 0; t < 4; t++) {
        again(c, n);
        fds[t] = count_fds(), maps[t] = count_maps();
        if (t > 0)
            fd_grew &= fds[t] > fds[t - 1], map_grew &= maps[t] > maps[t - 1];
    }
    TAP_CHECK(tap_rank != victim || (!fd_grew && !map_grew), "%s, call %ld failed: descriptors "
              "%d %d %d %d, mappings %d %d %d %d over four more tries", name, n, fds[0], fds[1],
              fds[2], fds[3], maps[0], maps[1], maps[2], maps[3]);
}

static void retry_create(walk_ctx_t *c, long n)
{
    int rec;
    try_create(c, n, &rec);
}

/* Walk a collective call over the failing rank's calls; a failure must not leak. */
static void walk_create(int flavor)
{
    walk_ctx_t c = { .flavor = flavor };
    int failed = 0, recovered = 0, fired = 1, rec;
    for (long n = 1; fired && n <= MAX_STEPS; n++) {
        fired = try_create(&c, n, &rec);
        if (!fired)
            break;
        rec ? recovered++ : failed++;
        if (rec)
            continue;   /* a window made and used may set up connections for good */
        leak_check(retry_create, &c, n, flavor_name[flavor]);
    }
    TAP_CHECK(!fired, "%s still met an injected failure after %d calls", flavor_name[flavor],
              MAX_STEPS);
    tap_ok("%s: rank %d's allocations failed one at a time: %d gave MPI_ERR_NO_MEM on every "
           "rank, %d were done without, no leaked descriptor or mapping, windows work",
           flavor_name[flavor], victim, failed, recovered);
}

/* The operations, each the first of its kind on a fresh window, to the right. */
static int op_put(walk_ctx_t *c, int t, int *v)
{
    return MPI_Put(v, 1, MPI_INT, t, 1, 1, MPI_INT, c->win);
}

static int op_get(walk_ctx_t *c, int t, int *v)
{
    return MPI_Get(v, 1, MPI_INT, t, 1, 1, MPI_INT, c->win);
}

static int op_acc(walk_ctx_t *c, int t, int *v)
{
    return MPI_Accumulate(v, 1, MPI_INT, t, 2, 1, MPI_INT, MPI_SUM, c->win);
}

static int op_gacc(walk_ctx_t *c, int t, int *v)
{
    int old;
    return MPI_Get_accumulate(v, 1, MPI_INT, &old, 1, MPI_INT, t, 3, 1, MPI_INT, MPI_SUM, c->win);
}

static int op_fop(walk_ctx_t *c, int t, int *v)
{
    int old;
    return MPI_Fetch_and_op(v, &old, MPI_INT, t, 4, MPI_SUM, c->win);
}

static int op_cas(walk_ctx_t *c, int t, int *v)
{
    int old, zero = 0;
    return MPI_Compare_and_swap(v, &zero, &old, MPI_INT, t, 5, c->win);
}

static int op_rput(walk_ctx_t *c, int t, int *v)
{
    MPI_Request r;
    int rc = MPI_Rput(v, 1, MPI_INT, t, 6, 1, MPI_INT, c->win, &r);
    if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    return rc;
}

static int op_attach(walk_ctx_t *c, int t, int *v)
{
    (void) t, (void) v;
    int rc = MPI_Win_attach(c->win, c->base, INTS * sizeof(int));
    if (rc == MPI_SUCCESS)
        MPI_Win_detach(c->win, c->base);
    return rc;
}

/* slot: the target's word that the op leaves at 7 (-1: none), even after its
 * failed tries, which must have had no effect (an accumulate applied twice would
 * leave 14). */
typedef int (*op_fn)(walk_ctx_t *, int, int *);
static const struct { const char *name; op_fn fn; int dynamic, slot; } ops[] = {
    { "MPI_Put", op_put, 0, 1 }, { "MPI_Get", op_get, 0, -1 }, { "MPI_Accumulate", op_acc, 0, 2 },
    { "MPI_Get_accumulate", op_gacc, 0, 3 }, { "MPI_Fetch_and_op", op_fop, 0, 4 },
    { "MPI_Compare_and_swap", op_cas, 0, 5 }, { "MPI_Rput", op_rput, 0, 6 },
    { "MPI_Win_attach", op_attach, 1, -1 },
};

/* The failing rank's try of op k with its nth call failing; whether it met the
 * failure. */
static int cur_op;

static int try_op(walk_ctx_t *c, int k, long n, int *fired)
{
    int v = 7, t = (victim + 1) % tap_size;
    failinj_arm(FAILINJ_ALL, n);
    int rc = ops[k].fn(c, t, &v);
    *fired = failinj_disarm();
    if (rc == MPI_SUCCESS)
        rc = MPI_Win_flush(t, c->win);
    return rc;
}

static void retry_op(walk_ctx_t *c, long n)
{
    int fired;
    try_op(c, cur_op, n, &fired);
}

/* Walk the failing rank's first op of a kind in a lock_all epoch; the others only wait. */
static void walk_op(int k, int flavor)
{
    walk_ctx_t c = { .flavor = flavor };
    int steps = 0, fired = 1, v = 7, t = (victim + 1) % tap_size;
    create_win(&c);
    MPI_Win_set_errhandler(c.win, MPI_ERRORS_RETURN);
    if (ops[k].dynamic)
        c.base = calloc(INTS, sizeof(int));
    else
        memset(c.base, 0, INTS * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, c.win);
    if (tap_rank == victim) {
        for (long n = 1; fired && n <= MAX_STEPS; n++) {
            int rc = try_op(&c, k, n, &fired);
            if (fired) {
                steps++;
                TAP_CHECK(errclass_of(rc) == MPI_ERR_NO_MEM, "%s with call %ld failed: %s, not "
                          "MPI_ERR_NO_MEM", ops[k].name, n, errclass_name(errclass_of(rc)));
                cur_op = k;
                leak_check(retry_op, &c, n, ops[k].name);
            } else {
                TAP_CHECK(rc == MPI_SUCCESS, "%s failed with nothing injected: %s", ops[k].name,
                          errclass_name(errclass_of(rc)));
            }
        }
        TAP_CHECK(!fired, "%s still met an injected failure after %d calls", ops[k].name,
                  MAX_STEPS);
        if (ops[k].slot >= 0) {
            int got = -1;
            MPI_Get(&got, 1, MPI_INT, t, ops[k].slot, 1, MPI_INT, c.win);
            MPI_Win_flush(t, c.win);
            TAP_CHECK(got == v, "%s: the target's word is %d after the walk, not %d", ops[k].name,
                      got, v);
        }
    }
    MPI_Win_unlock_all(c.win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ops[k].dynamic)
        free(c.base);
    free_win(&c);
    tap_ok("first %s: each of its %d allocations failed in turn gives MPI_ERR_NO_MEM and has "
           "no effect, then it works and the window frees", ops[k].name, steps);
}

/* The network's start, inside the first window creation of the process: each of
 * its calls failed in turn fails the creation with MPI_ERR_NO_MEM everywhere, and
 * the next creation starts it again. */
static void walk_start(void)
{
    walk_ctx_t c = { .flavor = 0 };
    int failed = 0, recovered = 0, fired = 1, rec;
    for (long n = 1; fired && n <= MAX_STEPS; n++) {
        if (tap_rank == victim)
            failinj_arm_within(FAILINJ_ALL, n, "rmaib_ofi_init");
        fired = try_create(&c, n, &rec);
        if (fired)
            rec ? recovered++ : failed++;
    }
    if (failed + recovered == 0) {
        tap_skip("the network's start", "no window here starts it");
        return;
    }
    tap_ok("the ofi endpoint's start: rank %d's calls in it failed one at a time: %d gave "
           "MPI_ERR_NO_MEM on every rank, %d were done without, then it started", victim,
           failed, recovered);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    if (!failinj_usable()) {
        if (tap_rank == 0)
            printf("1..0 # SKIP the injector needs an uninstrumented build with librmaib-mpi "
                   "linked\n");
        MPI_Finalize();
        return 0;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (getenv("FAIL_RANK"))
        victim = atoi(getenv("FAIL_RANK")) % tap_size;
    walk_start();       /* first: nothing has started the network yet */
    for (int f = 0; f < 4; f++)
        walk_create(f);
    for (int k = 0; k < (int) (sizeof ops / sizeof ops[0]); k++)
        walk_op(k, ops[k].dynamic ? 3 : 0);
    return tap_done();
}
