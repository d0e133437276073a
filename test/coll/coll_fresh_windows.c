/*
 * Fresh collective windows back to back: a communicator duplicated, one allreduce
 * on it, freed, FRESH_CALLS times (every result checked).  The last control stores
 * of a window (the acknowledgements, which nobody waits for) must land before the
 * peer frees it: over net and tcp;ofi_rxm a late one was refused by the target's
 * closed region and took the connection down, with the next window's first put and
 * flag, and the target waited for that flag for ever.  Every 8th window moves a
 * vector of many slots first, so that the acknowledgement may queue behind data.
 */
#include <stdlib.h>
#include "coll_check.h"

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int calls = tap_env_int("FRESH_CALLS", 100), p = tap_size;
    size_t big = 100000;
    int *s = malloc(big * sizeof *s), *r = malloc(big * sizeof *r);
    for (int c = 0; c < calls; c++) {
        size_t n = c % 8 == 7 ? big : 5;
        for (size_t i = 0; i < n; i++)
            s[i] = (int) cval(MPI_SUM, tap_rank, i) + c;
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        MPI_Allreduce(s, r, (int) n, MPI_INT, MPI_SUM, d);
        MPI_Comm_free(&d);
        for (size_t i = 0; i < n; i++) {
            int want = c * p;
            for (int q = 0; q < p; q++)
                want += (int) cval(MPI_SUM, q, i);
            TAP_CHECK(r[i] == want, "window %d: element %zu is %d, not %d", c, i, r[i], want);
        }
    }
    tap_ok("%d fresh windows, each freed right after its allreduce", calls);
    free(s);
    free(r);
    return tap_done();
}
