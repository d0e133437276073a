/*
 * MPIX_Get_notify_local beyond the contiguous read of an allocated window, many in
 * flight at once from every rank (over ofi each returns with its reads posted):
 *  - a dynamic window of two regions attached back to back, reads of 8 B to 600 KB
 *    that end in, cross, or start at the regions' seam (cut in two there);
 *  - derived datatypes on both sides (a vector of int triples read into a vector of
 *    another stride, up to 6,000 blocks; and into a contiguous buffer);
 * Each read has its own counter: when MPIX_Win_notify_waitsome hands it over, its
 * bytes are all in place, its count is exactly one, and after MPI_Win_flush_local_all
 * every counter is still zero: one notification per read, after its last piece.
 * With RMAIB_OFI_MR_LOCAL=1 each piece goes through the bounce ring (a testlist line).
 */
#include "notify_windows.h"

enum { NREADS = 12, HALF = 640000 };

/* Read k of the dynamic case: its length and where it starts in the peer's buffer. */
static size_t dyn_len(int k)
{
    static const size_t len[] = { 8, 64, 4096, 65536 + 8, 300000, 600000 };
    return len[k % 6];
}

static size_t dyn_off(int k)
{
    size_t n = dyn_len(k);
    return k % 3 == 0 ? HALF - n : k % 3 == 1 ? HALF - n / 2 : HALF;   /* end, cross, start */
}

/* Wait for every per-read counter once, checking each read as it is handed over. */
static void consume(MPI_Win win, int (*ok)(int k), const char *what)
{
    int landed = 0;
    for (int k = 0; k < NREADS; k++)
        landed += counter(win, k) != 0;
    if (me == 0)        /* not a check: how many had completed when the calls returned */
        printf("# %s: %d of %d reads complete right after posting\n", what, landed, NREADS);
    for (int left = NREADS; left > 0; left--) {
        int idx = -1;
        MPI_Count v = 0;
        MPIX_Win_notify_waitsome(win, 0, NREADS, &idx);
        MPIX_Win_reset_notify_value(win, idx, &v);
        TAP_CHECK(idx >= 0 && idx < NREADS && v == 1, "%s: waitsome gave %d, count %lld", what,
                  idx, (long long) v);
        if (idx >= 0 && idx < NREADS)
            TAP_CHECK(ok(idx), "%s: read %d: counter grew before its data", what, idx);
    }
    MPI_Win_flush_local_all(win);
    for (int k = 0; k < NREADS; k++)
        TAP_CHECK(counter(win, k) == 0, "%s: counter %d is %lld after its reset", what, k,
                  (long long) counter(win, k));
}

static unsigned char *dyn_dst[NREADS];

static int dyn_ok(int k)
{
    int t = (me + k) % np;
    for (size_t i = 0; i < dyn_len(k); i++)
        if (dyn_dst[k][i] != bpat(t, 0, (long) (dyn_off(k) + i)))
            return 0;
    return 1;
}

static void dynamic_window(void)
{
    MPI_Win win;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_RMAIB_INFO_MAX_NOTIFY, "16");
    MPI_Win_create_dynamic(info, MPI_COMM_WORLD, &win);
    MPI_Info_free(&info);
    unsigned char *buf = malloc(2 * HALF);
    for (long i = 0; i < 2 * HALF; i++)
        buf[i] = bpat(me, 0, i);
    MPI_Win_attach(win, buf, HALF);
    MPI_Win_attach(win, buf + HALF, HALF);
    MPIX_Win_set_num_notify(win, MPI_INFO_NULL, NREADS);
    MPI_Aint mine, *addr = malloc((size_t) np * sizeof *addr);
    MPI_Get_address(buf, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < NREADS; k++) {
        int t = (me + k) % np, n = (int) dyn_len(k);
        dyn_dst[k] = malloc(dyn_len(k));
        memset(dyn_dst[k], SENT_BYTE, dyn_len(k));
        int rc = MPIX_Get_notify_local(dyn_dst[k], n, MPI_BYTE, t, addr[t] + (MPI_Aint) dyn_off(k),
                                       n, MPI_BYTE, k, win);
        TAP_CHECK(rc == MPI_SUCCESS, "dynamic read %d returned %d", k, rc);
    }
    consume(win, dyn_ok, "dynamic");
    MPI_Win_unlock_all(win);
    tap_ok("MPI_Win_create_dynamic: %d reads in flight across two regions' seam, each whole "
           "when its one notification comes", NREADS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NREADS; k++)
        free(dyn_dst[k]);
    MPI_Win_detach(win, buf + HALF);
    MPI_Win_detach(win, buf);
    MPI_Win_free(&win);
    free(addr);
    free(buf);
}

/* The derived case: read k takes blocks(k) int triples at stride 5 from its target
 * (starting at int k), into triples at stride 4 (even k) or packed (odd k). */
static int *vec_dst[NREADS];

static int blocks(int k)
{
    static const int b[] = { 1, 7, 300, 6000 };
    return b[k % 4];
}

static int vec_ok(int k)
{
    int t = (me + k) % np, ostride = k % 2 ? 3 : 4;
    for (int b = 0; b < blocks(k); b++)
        for (int j = 0; j < 3; j++)
            if (vec_dst[k][b * ostride + j] != pat(t, 0, (k + 5 * b + j) / 64, k + 5 * b + j))
                return 0;
    return 1;
}

static void derived_types(void)
{
    const int wints = 5 * 6000 + NREADS;
    MPI_Win win;
    int *base = (int *) notify_win(0, (size_t) wints * sizeof(int), NREADS, NREADS, &win);
    for (int i = 0; i < wints; i++)
        base[i] = pat(me, 0, i / 64, i);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Datatype ttype[NREADS], otype[NREADS];
    MPI_Win_lock_all(0, win);
    for (int k = 0; k < NREADS; k++) {
        int t = (me + k) % np, ostride = k % 2 ? 3 : 4;
        MPI_Type_vector(blocks(k), 3, 5, MPI_INT, &ttype[k]);
        MPI_Type_vector(blocks(k), 3, ostride, MPI_INT, &otype[k]);
        MPI_Type_commit(&ttype[k]);
        MPI_Type_commit(&otype[k]);
        vec_dst[k] = malloc((size_t) blocks(k) * 4 * sizeof(int));
        fill_int(vec_dst[k], (size_t) blocks(k) * 4, SENT_INT);
        int rc = MPIX_Get_notify_local(vec_dst[k], 1, otype[k], t, k * (MPI_Aint) sizeof(int), 1,
                                       ttype[k], k, win);
        TAP_CHECK(rc == MPI_SUCCESS, "derived read %d returned %d", k, rc);
    }
    consume(win, vec_ok, "derived");
    MPI_Win_unlock_all(win);
    tap_ok("vector types on both sides: %d reads of up to 6000 blocks in flight, each whole "
           "when its one notification comes", NREADS);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < NREADS; k++) {
        free(vec_dst[k]);
        MPI_Type_free(&ttype[k]);
        MPI_Type_free(&otype[k]);
    }
    notify_win_free(0, (unsigned char *) base, &win);
}

int main(int argc, char **argv)
{
    notify_init(&argc, &argv);
    dynamic_window();
    derived_types();
    return tap_done();
}
