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

/* A count of decimal digits only, at most limit; -1 if unset or not a count. */
static int info_count(MPI_Info info, const char *key, int limit)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
    if (!flag || !val[0] || strspn(val, "0123456789") != strlen(val))
        return -1;
    long long v = 0;
    for (const char *p = val; *p && v <= limit; p++)
        v = v * 10 + (*p - '0');
    return v > limit ? limit : (int) v;
}

void rmaib_mpi_win_info(MPI_Info info, int *lock_alg, int *noncontig, int *max_notify)
{
    *noncontig = 0;
    *max_notify = -1;
    if (info == MPI_INFO_NULL)
        return;
    *noncontig = info_flag(info, "alloc_shared_noncontig", "true");
    *max_notify = info_count(info, MPIX_RMAIB_INFO_MAX_NOTIFY, RMAIB_NOTIFY_LIMIT);
    if (info_flag(info, MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_LOCK_MCS))
        *lock_alg = RMAIB_LOCKALG_MCS;
    else if (info_flag(info, MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_LOCK_TAS))
        *lock_alg = RMAIB_LOCKALG_TAS;
}

int rmaib_mpi_win_info_map_user(MPI_Info info)
{
    return info == MPI_INFO_NULL || !info_flag(info, MPIX_RMAIB_INFO_MAP_USER_MEMORY, "false");
}
