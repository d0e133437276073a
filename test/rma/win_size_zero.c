/*
 * Windows of size zero, with every flavor.
 *  - MPI_Win_create where odd ranks expose 0 bytes (some with base NULL, some with a
 *    real pointer): puts to the others land and are read back, a count-0 put to a
 *    zero-size rank succeeds, MPI_WIN_SIZE is 0 there;
 *  - MPI_Win_allocate and MPI_Win_allocate_shared with odd ranks at size 0 (the
 *    base pointer may be anything); shared_query reports size 0 for them and the
 *    contiguous layout chains the others;
 *  - every rank at size 0, for create, allocate and allocate_shared, and a dynamic
 *    window with nothing attached: fence, lock/unlock, lock_all/unlock_all and free
 *    all work.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define N 32

static int me, np;

static MPI_Aint size_of(int rank)
{
    return rank % 2 ? 0 : N * (MPI_Aint) sizeof(int);
}

/* Everyone puts N ints into every nonzero rank, and a count-0 put to every zero rank. */
static void exercise(MPI_Win win, int *base, const char *what)
{
    int *src = malloc((size_t) np * N * sizeof(int));
    if (size_of(me)) {
        self_begin(win, MPI_LOCK_EXCLUSIVE);
        fill_int(base, N, SENT_INT);
        self_end(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int t = 0; t < np; t++) {
        int rc;
        if (size_of(t)) {
            int slot = (N / np) * me, n = N / np;
            for (int j = 0; j < n; j++)
                src[t * N + j] = pat(me, t, 0, j);
            rc = MPI_Put(src + t * N, n, MPI_INT, t, slot, n, MPI_INT, win);
        } else {
            rc = MPI_Put(src, 0, MPI_INT, t, 0, 0, MPI_INT, win);
        }
        TAP_CHECK(rc == MPI_SUCCESS, "%s: put to rank %d (size %ld) returned %d", what, t,
                  (long) size_of(t), rc);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (size_of(me)) {
        self_begin(win, MPI_LOCK_SHARED);
        for (int i = 0; i < N; i++) {
            int o = i / (N / np), want = o < np ? pat(o, me, 0, i % (N / np)) : SENT_INT;
            TAP_CHECK(base[i] == want, "%s: int %d is %#x, want %#x", what, i, (unsigned) base[i],
                      (unsigned) want);
        }
        self_end(win);
    }
    MPI_Aint *asize;
    int flag;
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag);
    TAP_CHECK(flag && *asize == size_of(me), "%s: MPI_WIN_SIZE %ld, want %ld", what,
              flag ? (long) *asize : -1L, (long) size_of(me));
    free(src);
}

/* Every synchronisation call on a window where nobody has memory. */
static void sync_only(MPI_Win win, const char *what)
{
    int rc = MPI_Win_fence(0, win);
    rc |= MPI_Win_fence(0, win);
    rc |= MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (me + 1) % np, 0, win);
    rc |= MPI_Put(NULL, 0, MPI_INT, (me + 1) % np, 0, 0, MPI_INT, win);
    rc |= MPI_Win_unlock((me + 1) % np, win);
    rc |= MPI_Win_lock_all(0, win);
    rc |= MPI_Win_flush_all(win);
    rc |= MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "%s: a synchronisation call failed", what);
    rc = MPI_Win_free(&win);
    TAP_CHECK(rc == MPI_SUCCESS, "%s: free returned %d", what, rc);
    tap_ok("%s: fence, lock, lock_all, count-0 put and free", what);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    me = tap_rank;
    np = tap_size;
    MPI_Win win;
    int *base, dummy[4];

    /* create: rank 1 mod 4 passes NULL, rank 3 mod 4 a real pointer, with size 0 */
    int *mem = malloc(N * sizeof(int));
    base = size_of(me) ? mem : me % 4 == 1 ? NULL : dummy;
    MPI_Win_create(base, size_of(me), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    exercise(win, base, "create, odd ranks size 0");
    MPI_Win_free(&win);
    tap_ok("create with odd ranks at size 0: puts, count-0 puts, MPI_WIN_SIZE");

    MPI_Win_allocate(size_of(me), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    exercise(win, base, "allocate, odd ranks size 0");
    MPI_Win_free(&win);
    tap_ok("allocate with odd ranks at size 0: puts, count-0 puts, MPI_WIN_SIZE");

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nme, nnp;
    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nnp);
    if (nnp == np) {
        MPI_Win_allocate_shared(size_of(me), sizeof(int), MPI_INFO_NULL, node, &base, &win);
        char *prev_end = NULL;
        for (int q = 0; q < np; q++) {
            MPI_Aint qs;
            int qdu;
            char *qb;
            MPI_Win_shared_query(win, q, &qs, &qdu, &qb);
            TAP_CHECK(qs == size_of(q), "shared_query(%d): size %ld, want %ld", q, (long) qs,
                      (long) size_of(q));
            if (qs > 0) {
                TAP_CHECK(prev_end == NULL || qb == prev_end,
                          "rank %d base %p does not follow the previous segment's end %p", q,
                          (void *) qb, (void *) prev_end);
                prev_end = qb + qs;
            }
        }
        exercise(win, base, "allocate_shared, odd ranks size 0");
        MPI_Win_free(&win);
        tap_ok("allocate_shared with odd ranks at size 0: query, puts, MPI_WIN_SIZE");
    } else {
        tap_skip("allocate_shared with odd ranks at size 0", "ranks span several nodes");
    }

    MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    sync_only(win, "create, every rank size 0");
    MPI_Win_allocate(0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    sync_only(win, "allocate, every rank size 0");
    MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, node, &base, &win);
    {
        MPI_Aint qs = -1;
        int qdu;
        void *qb;
        int rc = MPI_Win_shared_query(win, MPI_PROC_NULL, &qs, &qdu, &qb);
        TAP_CHECK(rc == MPI_SUCCESS && qs == 0, "shared_query(MPI_PROC_NULL) with no memory: rc %d size %ld",
                  rc, (long) qs);
    }
    sync_only(win, "allocate_shared, every rank size 0");
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    sync_only(win, "dynamic with nothing attached");

    MPI_Comm_free(&node);
    free(mem);
    return tap_done();
}
