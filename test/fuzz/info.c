/*
 * fuzz info: rmaib_mpi_win_info (src/binding/mpi/info.c), what rmaib reads of a
 * window's creation info, over infos built from the input under a singleton
 * MPI_Init.  The input is a list of entries: a byte that picks the key (rmaib_lock,
 * alloc_shared_noncontig, mpi_assert_max_num_notify, or one spelled by the input), a
 * byte that picks the value (mcs, tas, true, a few counts good and bad, or one
 * spelled by the input, up to MPI_MAX_INFO_VAL bytes), set or deleted.  Checked for
 * every input: the lock algorithm, the noncontig flag and the counter maximum are
 * what the info holds, as MPI_Info_get with a buffer of the value's own length reads
 * it (exactly "mcs" or "tas"; exactly "true"; decimal digits only, capped), and
 * MPI_INFO_NULL asks nothing.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "rmaib.h"
#include "mpix_rmaib.h"
#include "../../src/binding/mpi/info.h"
#include "input.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

/* Up to max bytes of the input, NUL-terminated, none of them NUL; its length
 * first (two bytes, so a value can reach MPI_MAX_INFO_VAL and past it). */
static char *spell(input_t *in, size_t max)
{
    size_t len = (take(in, 1) | take(in, 1) << 8) % (max + 1);
    char *s = malloc(len + 1);
    size_t k = 0;
    for (size_t i = 0; i < len && in->n; i++) {
        char c = (char) take(in, 1);
        if (c)
            s[k++] = c;
    }
    s[k] = '\0';
    return s;
}

/* What the info holds under key, as a fresh string (NULL: not set). */
static char *value_of(MPI_Info info, const char *key)
{
    int len = 0, flag = 0;
    MPI_Info_get_valuelen(info, key, &len, &flag);
    if (!flag)
        return NULL;
    char *v = malloc((size_t) len + 1);
    MPI_Info_get(info, key, len, v, &flag);
    v[len] = '\0';
    return v;
}

/* What mpi_assert_max_num_notify=m should give: digits only, capped; else -1. */
static int want_count(const char *m)
{
    if (!m || !*m)
        return -1;
    for (const char *p = m; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    while (*m == '0' && m[1])
        m++;                    /* leading zeros */
    if (strlen(m) > 9)
        return RMAIB_NOTIFY_LIMIT;
    long v = atol(m);
    return v > RMAIB_NOTIFY_LIMIT ? RMAIB_NOTIFY_LIMIT : (int) v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const words[] = {
        MPIX_RMAIB_LOCK_MCS, MPIX_RMAIB_LOCK_TAS, "true", "0", "1024", "99999999999", "-3", " 7"
    };
    input_t in = { data, size };
    int dflt = take(&in, 1) & 1 ? RMAIB_LOCKALG_MCS : RMAIB_LOCKALG_TAS;
    int lock = dflt, noncontig = 7, max_notify = 7;

    if (take(&in, 1) == 0xff) {
        rmaib_mpi_win_info(MPI_INFO_NULL, &lock, &noncontig, &max_notify);
        CHECK(lock == dflt && noncontig == 0 && max_notify == -1);
        return 0;
    }
    MPI_Info info;
    MPI_Info_create(&info);
    for (int e = 0; e < 16 && in.n; e++) {
        unsigned k = take(&in, 1), v = take(&in, 1);
        char *key = k % 4 == 0 ? strdup(MPIX_RMAIB_INFO_LOCK)
            : k % 4 == 1 ? strdup("alloc_shared_noncontig")
            : k % 8 == 2 ? strdup(MPIX_RMAIB_INFO_MAX_NOTIFY) : spell(&in, MPI_MAX_INFO_KEY);
        if (v == 0xff) {
            MPI_Info_delete(info, key);
        } else {
            char *val = v % 16 < 8 ? strdup(words[v % 8]) : spell(&in, MPI_MAX_INFO_VAL + 2);
            MPI_Info_set(info, key, val);       /* refusals (too long, empty) are fine */
            free(val);
        }
        free(key);
    }

    rmaib_mpi_win_info(info, &lock, &noncontig, &max_notify);
    char *l = value_of(info, MPIX_RMAIB_INFO_LOCK), *nc = value_of(info, "alloc_shared_noncontig");
    char *m = value_of(info, MPIX_RMAIB_INFO_MAX_NOTIFY);
    int want = l && !strcmp(l, MPIX_RMAIB_LOCK_MCS) ? RMAIB_LOCKALG_MCS
        : l && !strcmp(l, MPIX_RMAIB_LOCK_TAS) ? RMAIB_LOCKALG_TAS : dflt;
    CHECK(lock == want);
    CHECK(noncontig == (nc && !strcmp(nc, "true")));
    CHECK(max_notify == want_count(m));
    free(m);
    free(l);
    free(nc);
    MPI_Info_free(&info);
    return 0;
}
