/*
 * epoch_cost: what one synchronisation epoch costs between two ranks, with no
 * data or with one 8-byte put (rank 0 origin, rank 1 target).
 *
 *   fence_empty      both ranks: MPI_Win_fence, repeated             (time per fence)
 *   fence_put8       rank 0: MPI_Put(8 B) + fence; rank 1: fence    (time per epoch)
 *   pscw_put8        rank 0: start, MPI_Put(8 B), complete;
 *                    rank 1: post, wait                             (time per epoch at rank 0)
 *   lock_excl        rank 0: MPI_Win_lock(EXCLUSIVE) + unlock, no op
 *   lock_shared      rank 0: MPI_Win_lock(SHARED) + unlock, no op
 *   lock_all         rank 0: MPI_Win_lock_all + unlock_all, no op
 *   lock_excl_put8   rank 0: lock(EXCLUSIVE), MPI_Put(8 B), unlock
 *
 * -s CASE[,CASE...] picks cases (default all). Each figure is loop time / iterations.
 */
#include "osu_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    E_FENCE_EMPTY, E_FENCE_PUT8, E_PSCW_PUT8, E_LOCK_EXCL, E_LOCK_SHARED, E_LOCK_ALL,
    E_LOCK_EXCL_PUT8, E_COUNT
};
static const char *const case_names[E_COUNT] = {
    "fence_empty", "fence_put8", "pscw_put8", "lock_excl", "lock_shared", "lock_all",
    "lock_excl_put8"
};

static int parse_cases(int opt, const char *arg, void *data)
{
    unsigned *mask = data;
    char buf[256], *tok, *save = NULL;

    if (opt != 's' || strlen(arg) >= sizeof buf)
        return -1;
    strcpy(buf, arg);
    *mask = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int k;
        if (!strcmp(tok, "all")) {
            *mask = (1u << E_COUNT) - 1;
            continue;
        }
        for (k = 0; k < E_COUNT; k++)
            if (!strcmp(tok, case_names[k]))
                break;
        if (k == E_COUNT)
            return -1;
        *mask |= 1u << k;
    }
    return *mask ? 0 : -1;
}

static double run(int which, const osu_opts_t *o, const osu_win_t *w, char *buf, int rank)
{
    MPI_Win win = w->win;
    MPI_Aint disp = w->disp0;
    int skip = o->skip, n = o->iters, capped = o->time_cap > 0, i;
    double t_first = 0, t0 = 0, t1 = 0;
    MPI_Group world, peer;
    int other = 1 - rank;

    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    switch (which) {
    case E_FENCE_EMPTY:
        OSU_CHECK(MPI_Win_fence(0, win));
        OSU_TIMED_LOOP(o, 1, 1, OSU_CHECK(MPI_Win_fence(0, win));)
        t1 = MPI_Wtime();
        break;
    case E_FENCE_PUT8:
        OSU_CHECK(MPI_Win_fence(0, win));
        if (rank == 0) {
            OSU_TIMED_LOOP(o, 1, 1, OSU_CHECK(MPI_Put(buf, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, win));
                           OSU_CHECK(MPI_Win_fence(0, win));)
        } else {
            OSU_TIMED_LOOP(o, 1, 1, OSU_CHECK(MPI_Win_fence(0, win));)
        }
        t1 = MPI_Wtime();
        break;
    case E_PSCW_PUT8:
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &other, &peer);
        if (rank == 0) {
            OSU_TIMED_LOOP(o, 1, 1, OSU_CHECK(MPI_Win_start(peer, 0, win));
                           OSU_CHECK(MPI_Put(buf, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, win));
                           OSU_CHECK(MPI_Win_complete(win));)
        } else {
            OSU_TIMED_LOOP(o, 1, 1, OSU_CHECK(MPI_Win_post(peer, 0, win));
                           OSU_CHECK(MPI_Win_wait(win));)
        }
        t1 = MPI_Wtime();
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
        break;
    default:
        if (rank == 0) {
            if (which == E_LOCK_EXCL) {
                OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
                               OSU_CHECK(MPI_Win_unlock(1, win));)
            } else if (which == E_LOCK_SHARED) {
                OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
                               OSU_CHECK(MPI_Win_unlock(1, win));)
            } else if (which == E_LOCK_ALL) {
                OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock_all(0, win));
                               OSU_CHECK(MPI_Win_unlock_all(win));)
            } else {
                OSU_TIMED_LOOP(o, 0, 1, OSU_CHECK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win));
                               OSU_CHECK(MPI_Put(buf, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, win));
                               OSU_CHECK(MPI_Win_unlock(1, win));)
            }
            t1 = MPI_Wtime();
        }
        break;
    }
    if (which == E_FENCE_EMPTY || which == E_FENCE_PUT8)
        OSU_CHECK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    OSU_CHECK(MPI_Barrier(MPI_COMM_WORLD));
    OSU_CHECK(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return rank == 0 ? (t1 - t0) * 1e6 / n : 0;
}

int main(int argc, char **argv)
{
    osu_opts_t o;
    osu_win_t w;
    char buf[8] = { 0 };
    unsigned cases = (1u << E_COUNT) - 1;
    int rank, rc;

    rc = osu_start_pair(&argc, &argv, "epoch_cost", NULL, &o, "", parse_cases, &cases,
                        "  -s CASES   comma-separated: fence_empty fence_put8 pscw_put8 lock_excl\n"
                        "             lock_shared lock_all lock_excl_put8 all (default all)\n",
                        &rank);
    if (rc >= 0)
        return rc;

    osu_win_create(&w, 4096, o.win, &o, MPI_COMM_WORLD, 1 - rank);
    if (rank == 0) {
        if (o.csv)
            osu_csv_header(&o);
        else
            printf("# Epoch cost, 2 ranks, %s window, %d iterations\n%-20s%20s\n",
                   osu_flavor_name(o.win), o.iters, "# Case", "Time/epoch (us)");
        fflush(stdout);
    }
    for (int k = 0; k < E_COUNT; k++) {
        double us;
        if (!(cases & (1u << k)))
            continue;
        us = run(k, &o, &w, buf, rank);
        if (rank == 0) {
            if (o.csv)
                osu_row(&o, "epoch_cost", case_names[k], o.win, 0, "latency", us, "us");
            else
                printf("%-20s%20.3f\n", case_names[k], us);
            fflush(stdout);
        }
    }
    osu_win_free(&w);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
