/*
 * The info keys rmaib reads at window creation (see info.h).
 */
#include <string.h>
#include "info.h"
#include "rmaib.h"
#include "mpix_rmaib.h"

/* Is key set to exactly yes? */
static int info_flag(MPI_Info info, const char *key, const char *yes)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    return flag && strcmp(val, yes) == 0;
}

void rmaib_mpi_win_info(MPI_Info info, int *lock_alg, int *noncontig)
{
    *noncontig = 0;
    if (info == MPI_INFO_NULL)
        return;
    *noncontig = info_flag(info, "alloc_shared_noncontig", "true");
    if (info_flag(info, MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_LOCK_MCS))
        *lock_alg = RMAIB_LOCKALG_MCS;
    else if (info_flag(info, MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_LOCK_TAS))
        *lock_alg = RMAIB_LOCKALG_TAS;
}
