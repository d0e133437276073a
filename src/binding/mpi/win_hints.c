/*
 * The standard window hints (no_locks, accumulate_ordering, accumulate_ops,
 * same_size, same_disp_unit, alloc_shared_noncontig) as MPI_Win_get_info reports
 * them.  Open MPI 4.1 reports none of them, and MPICH 4.0.2 reports accumulate_ordering
 * "rar,raw,war,waw" as "rar" on an allocated window, so rmaib records each window's
 * (MPI's defaults, then the creation info, then every MPI_Win_set_info) and reports
 * those over the host's.  rmaib honours them all by
 * doing more than they ask (accumulates always complete in program order, any op
 * mix is atomic), so the values are the user's, as MPICH reports them.
 */
#include <string.h>
#include "handles.h"

static const struct {
    const char *key, *dflt;
    int shared_only;
} hints[] = {
    { "no_locks", "false", 0 },
    { "accumulate_ordering", "rar,raw,war,waw", 0 },
    { "accumulate_ops", "same_op_no_op", 0 },
    { "same_size", "false", 0 },
    { "same_disp_unit", "false", 0 },
    { "alloc_shared_noncontig", "false", 1 },
};
enum { NHINTS = sizeof hints / sizeof hints[0] };

static int applies(const rmaib_mpi_win_t *bw, int i)
{
    return !hints[i].shared_only || bw->attr_flavor == MPI_WIN_FLAVOR_SHARED;
}

void rmaib_mpi_win_hints_record(rmaib_mpi_win_t *bw, MPI_Info info)
{
    char val[MPI_MAX_INFO_VAL + 1];
    if (bw->hints == MPI_INFO_NULL) {
        if (PMPI_Info_create(&bw->hints) != MPI_SUCCESS) {
            bw->hints = MPI_INFO_NULL;
            return;
        }
        for (int i = 0; i < NHINTS; i++)
            if (applies(bw, i))
                PMPI_Info_set(bw->hints, hints[i].key, hints[i].dflt);
    }
    for (int i = 0; info != MPI_INFO_NULL && i < NHINTS; i++) {
        int flag = 0;
        if (applies(bw, i) && PMPI_Info_get(info, hints[i].key, MPI_MAX_INFO_VAL, val, &flag)
            == MPI_SUCCESS && flag)
            PMPI_Info_set(bw->hints, hints[i].key, val);
    }
}

void rmaib_mpi_win_hints_add(const rmaib_mpi_win_t *bw, MPI_Info info_used)
{
    char val[MPI_MAX_INFO_VAL + 1];
    for (int i = 0; bw->hints != MPI_INFO_NULL && i < NHINTS; i++) {
        int flag = 0;
        if (PMPI_Info_get(bw->hints, hints[i].key, MPI_MAX_INFO_VAL, val, &flag) == MPI_SUCCESS
            && flag)
            PMPI_Info_set(info_used, hints[i].key, val);
    }
}

void rmaib_mpi_win_hints_free(rmaib_mpi_win_t *bw)
{
    if (bw->hints != MPI_INFO_NULL)
        PMPI_Info_free(&bw->hints);
}
