/*
 * Windows for the notified-RMA tests (notify_*.c): windows with a given number of
 * notification counters, and counter reads.
 */
#ifndef RMAIB_TEST_NOTIFY_WINDOWS_H
#define RMAIB_TEST_NOTIFY_WINDOWS_H

#include <stdint.h>
#include <stdlib.h>
#include "mpix_rmaib.h"
#include "tap.h"
#include "pattern.h"
#include "errcheck.h"
#include "wait.h"

/* A window of bytes per rank (allocated, or created over malloc'd memory: the two
 * data paths of the shm backend) whose ranks may use max counters, each rank set to
 * num of them (all zero). */
static inline unsigned char *notify_win(int created, size_t bytes, int max, int num, MPI_Win *win)
{
    MPI_Info info;
    char v[32];
    unsigned char *base = NULL;
    MPI_Info_create(&info);
    snprintf(v, sizeof v, "%d", max);
    MPI_Info_set(info, MPIX_RMAIB_INFO_MAX_NOTIFY, v);
    if (created) {
        base = malloc(bytes ? bytes : 1);
        MPI_Win_create(base, (MPI_Aint) bytes, 1, info, MPI_COMM_WORLD, win);
    } else {
        MPI_Win_allocate((MPI_Aint) bytes, 1, info, MPI_COMM_WORLD, &base, win);
    }
    MPI_Info_free(&info);
    int rc = MPIX_Win_set_num_notify(*win, MPI_INFO_NULL, num);
    TAP_CHECK(rc == MPI_SUCCESS, "MPIX_Win_set_num_notify(%d) returned %d", num, rc);
    return base;
}

static inline void notify_win_free(int created, unsigned char *base, MPI_Win *win)
{
    MPI_Win_free(win);
    if (created)
        free(base);
}

static inline MPI_Count counter(MPI_Win win, int idx)
{
    MPI_Count v = -1;
    int rc = MPIX_Win_get_notify_value(win, idx, &v);
    TAP_CHECK(rc == MPI_SUCCESS, "MPIX_Win_get_notify_value(%d) returned %d", idx, rc);
    return v;
}

static int me, np;     /* world rank and size */

static inline void notify_init(int *argc, char ***argv)
{
    tap_init(argc, argv);
    me = tap_rank;
    np = tap_size;
}

static const char *const flavor_name[] = { "MPI_Win_allocate", "MPI_Win_create" };

#endif
