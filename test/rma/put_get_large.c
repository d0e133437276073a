/*
 * Large transfers: 4 MiB per operation.
 *  - MPI_Put of 4 MiB into the right neighbour (exclusive lock): every 8-byte word
 *    carries (origin, target, index); the 4 KiB guards on both sides are untouched;
 *  - MPI_Get of the 4 MiB back;
 *  - under fence, a put with a vector type on both sides (every other word: 2 MiB of
 *    data spread over 4 MiB) rewrites the even words and leaves the odd ones;
 *  - MPI_Rget of 4 MiB in one request under lock_all.
 */
#include "tap.h"
#include "pattern.h"
#include "windows.h"

#define MIB (1024 * 1024)
#define BYTES (4 * MIB)
#define WORDS (BYTES / 8)
#define GUARD 4096

static uint64_t wpat(int o, int t, int gen, size_t i)
{
    return ((uint64_t) (o + 1) << 56) | ((uint64_t) (t + 1) << 48) | ((uint64_t) gen << 40) | i;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, right = (me + 1) % np, left = (me + np - 1) % np;
    unsigned char *base;
    MPI_Win win;
    MPI_Win_allocate(BYTES + 2 * GUARD, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    self_begin(win, MPI_LOCK_EXCLUSIVE);
    memset(base, SENT_BYTE, BYTES + 2 * GUARD);
    self_end(win);
    uint64_t *src = malloc(BYTES), *got = malloc(BYTES), *data = (uint64_t *) (base + GUARD);
    for (size_t i = 0; i < WORDS; i++)
        src[i] = wpat(me, right, 0, i);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
    int rc = MPI_Put(src, WORDS, MPI_UINT64_T, right, GUARD, WORDS, MPI_UINT64_T, win);
    MPI_Win_unlock(right, win);
    TAP_CHECK(rc == MPI_SUCCESS, "put returned %d", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    self_begin(win, MPI_LOCK_SHARED);
    for (size_t i = 0; i < WORDS; i++)
        if (data[i] != wpat(left, me, 0, i)) {
            TAP_CHECK(0, "word %zu is %#llx, want %#llx", i, (unsigned long long) data[i],
                      (unsigned long long) wpat(left, me, 0, i));
            break;
        }
    TAP_CHECK(find_not_byte(base, GUARD, SENT_BYTE) < 0, "guard before the data written");
    TAP_CHECK(find_not_byte(base + GUARD + BYTES, GUARD, SENT_BYTE) < 0, "guard after the data written");
    self_end(win);
    tap_ok("4 MiB put: every word in place, guards untouched");

    memset(got, 0, BYTES);
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    rc = MPI_Get(got, BYTES, MPI_BYTE, right, GUARD, BYTES, MPI_BYTE, win);
    MPI_Win_unlock(right, win);
    TAP_CHECK(rc == MPI_SUCCESS, "get returned %d", rc);
    TAP_CHECK(memcmp(got, src, BYTES) == 0, "4 MiB get differs from what was put");
    tap_ok("4 MiB get reads back what was put");

    MPI_Datatype every_other;
    MPI_Type_vector(WORDS / 2, 1, 2, MPI_UINT64_T, &every_other);
    MPI_Type_commit(&every_other);
    for (size_t i = 0; i < WORDS; i++)
        src[i] = wpat(me, right, 1, i);
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    rc = MPI_Put(src, 1, every_other, right, GUARD, 1, every_other, win);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    TAP_CHECK(rc == MPI_SUCCESS, "vector put returned %d", rc);
    for (size_t i = 0; i < WORDS; i++) {
        uint64_t want = wpat(left, me, i % 2 ? 0 : 1, i);
        if (data[i] != want) {
            TAP_CHECK(0, "after the vector put, word %zu is %#llx, want %#llx", i,
                      (unsigned long long) data[i], (unsigned long long) want);
            break;
        }
    }
    TAP_CHECK(find_not_byte(base + GUARD + BYTES, GUARD, SENT_BYTE) < 0, "guard after the data written");
    tap_ok("fence: 2 MiB vector put over 4 MiB rewrites the even words only");

    MPI_Request req;
    memset(got, 0, BYTES);
    MPI_Win_lock_all(0, win);
    rc = MPI_Rget(got, WORDS, MPI_UINT64_T, left, GUARD, WORDS, MPI_UINT64_T, win, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Win_unlock_all(win);
    TAP_CHECK(rc == MPI_SUCCESS, "rget returned %d", rc);
    int ll = (left + np - 1) % np;
    for (size_t i = 0; i < WORDS; i++) {
        uint64_t want = wpat(ll, left, i % 2 ? 0 : 1, i);
        if (got[i] != want) {
            TAP_CHECK(0, "rget word %zu is %#llx, want %#llx", i, (unsigned long long) got[i],
                      (unsigned long long) want);
            break;
        }
    }
    tap_ok("4 MiB rget under lock_all");

    MPI_Type_free(&every_other);
    MPI_Win_free(&win);
    free(src);
    free(got);
    return tap_done();
}
