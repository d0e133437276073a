/*
 * MPI_Allgather and MPI_Alltoall with the algorithms the testlist forces
 * (RMAIB_COLL_ALLGATHER, RMAIB_COLL_ALLTOALL): blocks from 0 bytes to 1 MiB,
 * out of place and MPI_IN_PLACE, each byte against the rank and offset it came
 * from; and a contiguous derived type against its basic type's bytes.
 */
#include <stdlib.h>
#include "coll_check.h"

static const size_t sizes[] = { 0, 1, 8, 100, 4096, 70000, 1 << 20 };

/* Byte i of the block rank `from` sends to rank `to`. */
static unsigned char byte_of(int from, int to, size_t i)
{
    return (unsigned char) (from * 31 + to * 7 + i * 13 + (i >> 8));
}

static void allgather(size_t n, int in_place)
{
    int me = tap_rank, p = tap_size;
    unsigned char *s = malloc(n + 1), *r = malloc((size_t) p * n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = byte_of(me, 0, i);
    memset(r, 0xee, (size_t) p * n);
    if (in_place)
        memcpy(r + (size_t) me * n, s, n);
    int rc = MPI_Allgather(in_place ? MPI_IN_PLACE : s, (int) n, MPI_BYTE, r, (int) n, MPI_BYTE,
                           MPI_COMM_WORLD);
    TAP_CHECK(rc == MPI_SUCCESS, "allgather of %zu returned %d", n, rc);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < n; i++)
            if (r[(size_t) q * n + i] != byte_of(q, 0, i)) {
                tap_fail("allgather %zu%s: byte %zu of rank %d's block is %d", n,
                         in_place ? " in place" : "", i, q, r[(size_t) q * n + i]);
                q = p;
                break;
            }
    free(s);
    free(r);
}

static void alltoall(size_t n, int in_place)
{
    int me = tap_rank, p = tap_size;
    unsigned char *s = malloc((size_t) p * n + 1), *r = malloc((size_t) p * n + 1);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < n; i++)
            s[(size_t) q * n + i] = byte_of(me, q, i);
    if (in_place)
        memcpy(r, s, (size_t) p * n);
    else
        memset(r, 0xee, (size_t) p * n);
    int rc = MPI_Alltoall(in_place ? MPI_IN_PLACE : s, (int) n, MPI_BYTE, r, (int) n, MPI_BYTE,
                          MPI_COMM_WORLD);
    TAP_CHECK(rc == MPI_SUCCESS, "alltoall of %zu returned %d", n, rc);
    for (int q = 0; q < p; q++)
        for (size_t i = 0; i < n; i++)
            if (r[(size_t) q * n + i] != byte_of(q, me, i)) {
                tap_fail("alltoall %zu%s: byte %zu from rank %d is %d", n,
                         in_place ? " in place" : "", i, q, r[(size_t) q * n + i]);
                q = p;
                break;
            }
    free(s);
    free(r);
}

/* Two doubles as one contiguous type, gathered as MPI_DOUBLE on the receive side. */
static void derived(void)
{
    int me = tap_rank, p = tap_size;
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
    MPI_Type_commit(&pair);
    double s[6], *r = malloc(sizeof(double) * 6 * (size_t) p);
    for (int i = 0; i < 6; i++)
        s[i] = me * 100 + i;
    MPI_Allgather(s, 3, pair, r, 6, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int q = 0; q < p; q++)
        for (int i = 0; i < 6; i++)
            TAP_CHECK(r[q * 6 + i] == q * 100 + i, "derived allgather: rank %d element %d", q, i);
    MPI_Type_free(&pair);
    free(r);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        allgather(sizes[k], 0);
        allgather(sizes[k], 1);
    }
    tap_ok("allgather, blocks of 0 to 1 MiB, out of place and in place");
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        alltoall(sizes[k], 0);
        alltoall(sizes[k], 1);
    }
    tap_ok("alltoall, blocks of 0 to 1 MiB, out of place and in place");
    derived();
    tap_ok("allgather of a contiguous derived type against MPI_DOUBLE");
    return tap_done();
}
