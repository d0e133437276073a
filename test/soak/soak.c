/*
 * The soak: RMAIB_SOAK_EPOCHS epochs (default 100000) on one window, each in a
 * synchronisation mode drawn at random (fence, post/start/complete/wait, an
 * exclusive or shared lock, lock_all with a flush), in which every rank does one
 * operation drawn at random (put, get, accumulate, get_accumulate, fetch_and_op,
 * compare_and_swap, rput, rget) to a target drawn at random, all from one seed
 * (RMAIB_SOAK_SEED) that every rank replays.
 *
 * Origin r only ever touches slice r of each target's window, so every rank can
 * keep a model of every window without knowing how the epochs of different
 * origins interleave.  Checks: each value an operation returns (get, the old value
 * of the fetching ones) equals the model's; every 1000th epoch is a fence after
 * which every rank compares every byte of its window with the model; and the
 * resident memory at the end is within RMAIB_SOAK_RSS_MARGIN kB (default 2048) of
 * that after the first 1000 epochs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../rma/tap.h"

enum { SLICE = 64, CHECK_EVERY = 1000 };
enum { M_FENCE, M_PSCW, M_LOCK_EXCL, M_LOCK_SHARED, M_LOCK_ALL, NMODES };
enum { O_PUT, O_GET, O_ACC, O_GACC, O_FOP, O_CAS, O_RPUT, O_RGET, NOPS };
static const char *mode_name[] = { "fence", "pscw", "lock exclusive", "lock shared", "lock_all" };
static const char *op_name[] = { "put", "get", "accumulate", "get_accumulate", "fetch_and_op",
    "compare_and_swap", "rput", "rget" };

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

typedef struct draw {
    int op, target, off, len;
    int val[SLICE];
    int compare;                /* compare_and_swap */
} draw_t;

static long rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

/* model[t * p * SLICE + r * SLICE + i]: target t's window, origin r's slice. */
static int *model;

static int *mslot(int p, int t, int r, int i)
{
    return &model[((size_t) t * (size_t) p + (size_t) r) * SLICE + (size_t) i];
}

/* Origin r's operation of this epoch, drawn alike on every rank. */
static void draw_op(draw_t *d, int mode, int shift, int r, int p)
{
    d->op = (int) (rnd() % NOPS);
    if (mode == M_FENCE || mode == M_PSCW) {        /* request ops are passive-target only */
        if (d->op == O_RPUT)
            d->op = O_PUT;
        if (d->op == O_RGET)
            d->op = O_GET;
    }
    d->target = mode == M_PSCW ? (r + shift) % p : (int) (rnd() % (uint64_t) p);
    int single = d->op == O_FOP || d->op == O_CAS;
    d->len = single ? 1 : 1 + (int) (rnd() % SLICE);
    d->off = (int) (rnd() % (uint64_t) (SLICE - d->len + 1));
    for (int i = 0; i < d->len; i++)
        d->val[i] = (int) (rnd() % 256);
    d->compare = (rnd() & 1) ? *mslot(p, d->target, r, d->off) : -1;
}

/* The model after origin r's operation; old: what a fetching one returns. */
static void apply(const draw_t *d, int r, int p, int *old)
{
    for (int i = 0; i < d->len; i++) {
        int *m = mslot(p, d->target, r, d->off + i);
        old[i] = *m;
        switch (d->op) {
        case O_PUT: case O_RPUT: *m = d->val[i]; break;
        case O_ACC: case O_GACC: case O_FOP: *m += d->val[i]; break;
        case O_CAS: if (*m == d->compare) *m = d->val[i]; break;
        default: break;
        }
    }
}

static int issue(const draw_t *d, int me, MPI_Win win, int *res)
{
    MPI_Aint disp = (MPI_Aint) me * SLICE + d->off;
    MPI_Request req;
    int t = d->target, n = d->len, rc;
    switch (d->op) {
    case O_PUT: return MPI_Put(d->val, n, MPI_INT, t, disp, n, MPI_INT, win);
    case O_GET: return MPI_Get(res, n, MPI_INT, t, disp, n, MPI_INT, win);
    case O_ACC: return MPI_Accumulate(d->val, n, MPI_INT, t, disp, n, MPI_INT, MPI_SUM, win);
    case O_GACC:
        return MPI_Get_accumulate(d->val, n, MPI_INT, res, n, MPI_INT, t, disp, n, MPI_INT,
                                  MPI_SUM, win);
    case O_FOP: return MPI_Fetch_and_op(d->val, res, MPI_INT, t, disp, MPI_SUM, win);
    case O_CAS: return MPI_Compare_and_swap(d->val, &d->compare, res, MPI_INT, t, disp, win);
    case O_RPUT:
        rc = MPI_Rput(d->val, n, MPI_INT, t, disp, n, MPI_INT, win, &req);
        return rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
    default:
        rc = MPI_Rget(res, n, MPI_INT, t, disp, n, MPI_INT, win, &req);
        return rc ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int p = tap_size, me = tap_rank;
    long epochs = tap_env_int("RMAIB_SOAK_EPOCHS", 100000);
    long margin = tap_env_int("RMAIB_SOAK_RSS_MARGIN", 2048);
    uint64_t seed = (uint64_t) tap_env_int("RMAIB_SOAK_SEED", 27);
    int *base, res[SLICE], old[SLICE];
    long counts[NMODES][NOPS] = { { 0 } }, bad_results = 0, bad_bytes = 0;
    long rss_early = -1, rss_end;
    MPI_Win win;
    MPI_Group world;
    draw_t *d = malloc(sizeof *d * (size_t) p);
    model = calloc((size_t) p * (size_t) p * SLICE, sizeof *model);

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Win_allocate((MPI_Aint) p * SLICE * (MPI_Aint) sizeof(int), sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    memset(base, 0, (size_t) p * SLICE * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    rng_state = seed;

    for (long e = 0; e < epochs; e++) {
        int checkpoint = (e + 1) % CHECK_EVERY == 0 || e + 1 == epochs;
        int mode = checkpoint ? M_FENCE : (int) (rnd() % NMODES);
        int shift = 1 + (int) (rnd() % (uint64_t) (p > 1 ? p - 1 : 1));
        for (int r = 0; r < p; r++)
            draw_op(&d[r], mode, shift, r, p);
        const draw_t *mine = &d[me];
        int t = mine->target, rc = MPI_SUCCESS;
        MPI_Group g_to, g_from;

        switch (mode) {
        case M_FENCE:
            MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
            rc = issue(mine, me, win, res);
            MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
            break;
        case M_PSCW: {
            int from = (me - shift % p + p) % p;
            MPI_Group_incl(world, 1, &t, &g_to);
            MPI_Group_incl(world, 1, &from, &g_from);
            MPI_Win_post(g_from, 0, win);
            MPI_Win_start(g_to, 0, win);
            rc = issue(mine, me, win, res);
            MPI_Win_complete(win);
            MPI_Win_wait(win);
            MPI_Group_free(&g_to);
            MPI_Group_free(&g_from);
            break;
        }
        case M_LOCK_EXCL:
        case M_LOCK_SHARED:
            MPI_Win_lock(mode == M_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0, win);
            rc = issue(mine, me, win, res);
            MPI_Win_unlock(t, win);
            break;
        default:
            MPI_Win_lock_all(0, win);
            rc = issue(mine, me, win, res);
            MPI_Win_flush(t, win);
            MPI_Win_unlock_all(win);
            break;
        }
        TAP_CHECK(rc == MPI_SUCCESS, "epoch %ld: %s in %s failed", e, op_name[mine->op],
                  mode_name[mode]);
        counts[mode][mine->op]++;
        for (int r = 0; r < p; r++) {
            apply(&d[r], r, p, old);
            if (r != me || mine->op == O_PUT || mine->op == O_ACC || mine->op == O_RPUT)
                continue;
            for (int i = 0; i < mine->len; i++)
                if (res[i] != old[i] && bad_results++ == 0)
                    tap_fail("epoch %ld: %s in %s to %d returned %d at %d, not %d", e,
                             op_name[mine->op], mode_name[mode], t, res[i], mine->off + i, old[i]);
        }
        if (checkpoint) {       /* after the fence: every byte of my window */
            for (int r = 0; r < p; r++)
                for (int i = 0; i < SLICE; i++)
                    if (base[r * SLICE + i] != *mslot(p, me, r, i) && bad_bytes++ == 0)
                        tap_fail("epoch %ld: window word %d (origin %d) is %d, not %d", e,
                                 r * SLICE + i, r, base[r * SLICE + i], *mslot(p, me, r, i));
            MPI_Barrier(MPI_COMM_WORLD);        /* before anyone writes it again */
            if (e + 1 == CHECK_EVERY)
                rss_early = rss_kb();
        }
    }
    tap_ok("%ld epochs of random modes and operations: every returned value and every window "
           "byte as the model says (%ld values, %ld bytes wrong on rank %d)", epochs, bad_results,
           bad_bytes, me);

    long all[NMODES][NOPS], total[NMODES] = { 0 };
    int missing = 0;
    MPI_Allreduce(counts, all, NMODES * NOPS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int m = 0; m < NMODES; m++)
        for (int o = 0; o < NOPS; o++) {
            total[m] += all[m][o];
            int allowed = m != M_FENCE && m != M_PSCW ? 1 : o != O_RPUT && o != O_RGET;
            missing += allowed && all[m][o] == 0;
        }
    TAP_DIAG("epochs x ranks: fence %ld, pscw %ld, lock exclusive %ld, lock shared %ld, "
             "lock_all %ld", total[0], total[1], total[2], total[3], total[4]);
    if (epochs < 1000) {
        tap_skip("every mode met every operation", "fewer than 1000 epochs");
    } else {
        TAP_CHECK(missing == 0, "%d (mode, operation) pairs never drawn", missing);
        tap_ok("every synchronisation mode met every operation kind it allows");
    }

    rss_end = rss_kb();
    if (rss_early < 0) {
        tap_skip("resident memory", "fewer than 1000 epochs");
    } else {
        TAP_DIAG("resident memory of rank 0: %ld kB after %d epochs, %ld kB after %ld", rss_early,
                 CHECK_EVERY, rss_end, epochs);
        TAP_CHECK(rss_end <= rss_early + margin, "resident memory grew from %ld kB after %d "
                  "epochs to %ld kB", rss_early, CHECK_EVERY, rss_end);
        tap_ok("resident memory at the end within %ld kB of that after %d epochs", margin,
               CHECK_EVERY);
    }
    MPI_Win_free(&win);
    MPI_Group_free(&world);
    free(d);
    free(model);
    return tap_done();
}
