/*
 * lock_mixed: MPI_Win_lock_all (a shared lock on every rank) and exclusive locks
 * exclude each other target by target.
 *
 * Every rank's window holds MARK (rank+1 of an exclusive holder inside, else 0) and
 * READERS (lock_all holders currently accessing this rank, kept with MPI_Fetch_and_op).
 *  - odd ranks are writers: exclusive lock on target t (cycling over all ranks, itself
 *    included), check READERS == 0 and MARK == 0, set MARK with put+flush, hold,
 *    check again, clear MARK, unlock;
 *  - even ranks hold lock_all: add themselves to READERS of every rank, check MARK is
 *    clear everywhere, hold, check again, leave.
 * Then writers and lock_all holders swap roles (a rank alternating between the two
 * kinds of epoch), and finally shared locks run alongside lock_all (no conflict:
 * both must proceed).  Time-bounded; both lock algorithms, and a window whose
 * ranks ask for different ones (they agree on mcs).
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

enum { MARK = 0, READERS = 1 };

static MPI_Win win;
static int64_t *base;
static const int64_t one = 1, minus_one = -1, zero = 0;

static int64_t fetch(int t, int disp)
{
    int64_t v = -1;
    MPI_Fetch_and_op(&zero, &v, MPI_INT64_T, t, disp, MPI_NO_OP, win);
    MPI_Win_flush(t, win);
    return v;
}

static int64_t get_mark(int t)
{
    int64_t v = -1;
    MPI_Get(&v, 1, MPI_INT64_T, t, MARK, 1, MPI_INT64_T, win);
    MPI_Win_flush(t, win);
    return v;
}

static void writer(int t, int lock_type)
{
    int64_t me = tap_rank + 1;
    EXPECT_OK(MPI_Win_lock(lock_type, t, 0, win), "MPI_Win_lock");
    int64_t r = fetch(t, READERS), m = get_mark(t);
    if (lock_type == MPI_LOCK_EXCLUSIVE) {
        TAP_CHECK(r == 0, "exclusive holder of %d found %lld lock_all holders inside", t,
                  (long long) r);
        TAP_CHECK(m == 0, "exclusive holder of %d found MARK %lld", t, (long long) m);
        MPI_Put(&me, 1, MPI_INT64_T, t, MARK, 1, MPI_INT64_T, win);
        MPI_Win_flush(t, win);
        poll_pause();
        r = fetch(t, READERS);
        m = get_mark(t);
        TAP_CHECK(r == 0, "%lld lock_all holders got into %d during an exclusive epoch", t,
                  (long long) r);
        TAP_CHECK(m == me, "MARK at %d changed to %lld during an exclusive epoch", t,
                  (long long) m);
        MPI_Put(&zero, 1, MPI_INT64_T, t, MARK, 1, MPI_INT64_T, win);
    } else {
        TAP_CHECK(m == 0, "shared holder of %d found MARK %lld", t, (long long) m);
        poll_pause();
    }
    EXPECT_OK(MPI_Win_unlock(t, win), "MPI_Win_unlock");
}

/* One lock_all epoch; returns the most lock_all holders seen at one rank. */
static int64_t all_reader(void)
{
    int64_t most = 0, old;
    EXPECT_OK(MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    for (int t = 0; t < tap_size; t++) {
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, READERS, MPI_SUM, win);
        MPI_Win_flush(t, win);
        if (old + 1 > most)
            most = old + 1;
        int64_t m = get_mark(t);
        TAP_CHECK(m == 0, "lock_all holder found exclusive holder %lld inside rank %d",
                  (long long) m - 1, t);
    }
    poll_pause();
    for (int t = 0; t < tap_size; t++) {
        int64_t m = get_mark(t);
        TAP_CHECK(m == 0, "exclusive holder %lld got into rank %d during a lock_all epoch",
                  (long long) m - 1, t);
        MPI_Accumulate(&minus_one, 1, MPI_INT64_T, t, READERS, 1, MPI_INT64_T, MPI_SUM, win);
    }
    EXPECT_OK(MPI_Win_unlock_all(win), "MPI_Win_unlock_all");
    return most;
}

/* Collective: every rank runs `iters` epochs (or until 1 s passes); role(rank, i) says
 * 0 = lock_all, 1 = exclusive writer, 2 = shared lock. */
static void phase(int (*role)(int r, int i), int iters, int *sections, int *most_all)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double end = now_s() + 1.0;
    int n = 0;
    int64_t most = 0;
    for (int i = 0; i < iters && now_s() < end; i++, n++) {
        int t = (tap_rank + i) % tap_size;
        switch (role(tap_rank, i)) {
        case 0: {
            int64_t m = all_reader();
            if (m > most)
                most = m;
            break;
        }
        case 1:
            writer(t, MPI_LOCK_EXCLUSIVE);
            break;
        default:
            writer(t, MPI_LOCK_SHARED);
        }
        sched_yield();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    TAP_CHECK(load64(base + MARK) == 0 && load64(base + READERS) == 0,
              "MARK %lld, READERS %lld at the end", (long long) load64(base + MARK),
              (long long) load64(base + READERS));
    int m = (int) most;
    MPI_Allreduce(&n, sections, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&m, most_all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
}

static int odd_writes(int r, int i)
{
    (void) i;
    return r % 2;
}

static int alternate(int r, int i)
{
    return (r + i) % 2;
}

static int shared_with_all(int r, int i)
{
    (void) i;
    return r % 2 ? 2 : 0;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (int a = 0; a < NLOCK_ALGS; a++) {
        const char *alg = lock_algs[a];
        int n, most;
        win = win_allocate_zeroed(2 * sizeof(int64_t), sizeof(int64_t), alg, &base);

        phase(odd_writes, 40, &n, &most);
        TAP_DIAG("%s: %d epochs, up to %d lock_all holders at one rank", alg, n, most);
        tap_ok("%s: exclusive locks (odd ranks) exclude lock_all (even ranks) per target",
               alg);

        phase(alternate, 40, &n, &most);
        TAP_DIAG("%s: %d epochs, up to %d lock_all holders at one rank", alg, n, most);
        tap_ok("%s: every rank alternates lock_all and exclusive epochs", alg);

        phase(shared_with_all, 40, &n, &most);
        tap_ok("%s: shared locks alongside lock_all", alg);

        MPI_Win_free(&win);
    }

    /* Ranks that ask for different algorithms get one: mcs if any asks. */
    win = win_allocate_zeroed(2 * sizeof(int64_t), sizeof(int64_t),
                              tap_rank == 0 ? "mcs" : "tas", &base);
    MPI_Info used;
    char val[16] = "";
    int flag = 0, agreed;
    MPI_Win_get_info(win, &used);
    MPI_Info_get(used, "rmaib_lock", (int) sizeof val - 1, val, &flag);
    MPI_Info_free(&used);
    int mine = flag && strcmp(val, "mcs") == 0;
    MPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    TAP_CHECK(agreed, "rank %d reports rmaib_lock=%s", tap_rank, flag ? val : "(none)");
    int n, most;
    phase(alternate, 40, &n, &most);
    tap_ok("rank 0 asks for mcs, the others for tas: every rank uses mcs, and "
           "lock_all and exclusive epochs exclude each other");
    MPI_Win_free(&win);
    return tap_done();
}
