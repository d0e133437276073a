/*
 * pscw_epochs: post/start/complete/wait opens and closes exactly the epochs it should,
 * however many, whoever is in the groups.  Unless said otherwise every rank is the
 * origin for its right neighbour and the target of its left one.
 *
 *  - 10,000 epochs back to back (env PSCW_EPOCHS overrides), a put in each; the target
 *    checks after each wait; then 1,000 empty epochs (start/complete with no
 *    operation) and one with data;
 *  - no carry-over: an epoch in which the target posted but the origin issued nothing,
 *    then epochs with data in which the target posts 20 ms late: until it posts, its
 *    word must keep the sentinel it stored (no put landed early on a stale post bit);
 *  - operations issued before the post arrived: the target stores a value, sleeps
 *    50 ms, then posts; the origin starts at once and does a get and a put, which must
 *    see the stored value and land after it.  These two run in pairs of ranks, both
 *    ways round: the origin starts before the target posts, and MPI_Win_start may
 *    block until the post, so no rank may be both in that epoch;
 *  - self in both groups; overlapping groups (every rank origin and target of every
 *    rank at once, and of both neighbours); MPI_GROUP_EMPTY for post and start;
 *  - MPI_Win_test polled (with usleep) until flag = 1 while the origin completes late;
 *  - MPI_MODE_NOCHECK on start, a barrier guaranteeing the post came first (and on the
 *    post too: the standard gives a post NOCHECK exactly when its starts have it);
 *  - simultaneous posts from every other rank into rank 0, which starts with all;
 *  - accumulates in the epoch: MPI_Fetch_and_op and MPI_Accumulate on one word, then
 *    a put to another; after each wait the target checks both (a complete must not
 *    overtake the atomics, which the network may apply after a later write).
 */
#include "tap.h"
#include "windows.h"
#include "wait.h"
#include "errcheck.h"

/* Window words. */
enum { RING = 0, ACC = 1, SELF = 2, MISC = 3, A2A = 4 };     /* A2A + origin: all-to-all slots */

static MPI_Win win;
static int64_t *base;
static int right, left;
static MPI_Group world, g_right, g_left, g_none;

/* The group of two ranks of MPI_COMM_WORLD, or of one if they are the same (with 2
 * ranks left == right, and MPI_Group_incl refuses duplicates). */
static MPI_Group group_of2(int a, int b)
{
    int ranks[2] = { a, b }, n = a == b ? 1 : 2;
    MPI_Group g;
    MPI_Group_incl(world, n, ranks, &g);
    return g;
}

static void many_epochs(int epochs)
{
    int bad = 0;
    for (int e = 1; e <= epochs; e++) {
        int64_t ev = e;
        EXPECT_OK(MPI_Win_post(g_left, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(g_right, 0, win), "MPI_Win_start");
        EXPECT_OK(MPI_Put(&ev, 1, MPI_INT64_T, right, RING, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        if (load64(base + RING) != e && bad++ < 1)
            tap_fail("after the wait closing epoch %d the word holds %lld", e,
                     (long long) load64(base + RING));
    }
    TAP_CHECK(bad == 0, "%d of %d epochs had the wrong value", bad, epochs);
    tap_ok("%d post/start/complete/wait epochs back to back, ring, a put in each", epochs);
}

/* Epochs whose access side issues nothing: the word must not change; then data. */
static void empty_epochs(int n)
{
    int64_t before = load64(base + RING), v = -4242;
    for (int e = 0; e < n; e++) {
        EXPECT_OK(MPI_Win_post(g_left, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(g_right, 0, win), "MPI_Win_start");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        if (load64(base + RING) != before) {
            tap_fail("word changed to %lld in empty epoch %d", (long long) load64(base + RING),
                     e);
            break;
        }
    }
    EXPECT_OK(MPI_Win_post(g_left, 0, win), "MPI_Win_post");
    EXPECT_OK(MPI_Win_start(g_right, 0, win), "MPI_Win_start");
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, RING, 1, MPI_INT64_T, win), "MPI_Put");
    EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
    EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
    TAP_CHECK(load64(base + RING) == -4242, "data epoch after the empty ones left %lld",
              (long long) load64(base + RING));
    tap_ok("%d empty epochs (start/complete with no operation), then one with data", n);
}

/* Pairs (0,1), (2,3), ...: in direction d the first of a pair is the origin of the
 * second (d = 0) or the other way round; with an odd size the last rank sits out.
 * Used where the target posts late: the origin starts first, so origin and target must
 * be different processes (MPI_Win_start may block until the post). */
static int pair_role(int d, int *peer, MPI_Group *g)
{
    int p = tap_rank ^ 1;
    if (p >= tap_size)
        return 0;
    *peer = p;
    MPI_Group_incl(world, 1, &p, g);
    return (tap_rank % 2 == d) ? 'o' : 't';
}

static void no_carry_over(void)
{
    static int64_t v;
    for (int d = 0; d < 2; d++) {
        int peer = -1;
        MPI_Group g;
        int role = pair_role(d, &peer, &g);
        for (int round = 0; round < 3 && role; round++) {
            /* Posted, started, nothing issued. */
            if (role == 'o') {
                EXPECT_OK(MPI_Win_start(g, 0, win), "MPI_Win_start");
                EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
            } else {
                EXPECT_OK(MPI_Win_post(g, 0, win), "MPI_Win_post");
                EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
            }
            /* Then epochs with data, the target posting 20 ms late. */
            for (int e = 0; e < 3; e++) {
                int64_t want = 100 * (d * 3 + round) + e + 1;
                if (role == 'o') {
                    v = want;
                    EXPECT_OK(MPI_Win_start(g, 0, win), "MPI_Win_start");
                    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, peer, MISC, 1, MPI_INT64_T, win),
                         "MPI_Put");
                    EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
                } else {
                    store64(base + MISC, -1);
                    usleep(20000);
                    TAP_CHECK(load64(base + MISC) == -1, "value %lld landed before the "
                              "target posted", (long long) load64(base + MISC));
                    EXPECT_OK(MPI_Win_post(g, 0, win), "MPI_Win_post");
                    EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
                    TAP_CHECK(load64(base + MISC) == want, "late-post epoch: word holds "
                              "%lld, expected %lld", (long long) load64(base + MISC),
                              (long long) want);
                }
            }
        }
        if (role)
            MPI_Group_free(&g);
    }
    tap_ok("no carry-over: after an epoch with nothing issued, puts still wait for the "
           "next post");
}

static void early_ops(void)
{
    static int64_t got, v;
    for (int d = 0; d < 2; d++) {
        int peer = -1;
        MPI_Group g;
        int role = pair_role(d, &peer, &g);
        if (role == 'o') {
            got = -1;
            v = 6000 + tap_rank;
            EXPECT_OK(MPI_Win_start(g, 0, win), "MPI_Win_start");
            /* The target posts only after its 50 ms sleep. */
            EXPECT_OK(MPI_Get(&got, 1, MPI_INT64_T, peer, MISC, 1, MPI_INT64_T, win), "MPI_Get");
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, peer, SELF, 1, MPI_INT64_T, win), "MPI_Put");
            EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
            TAP_CHECK(got == 5000 + peer, "get issued before the post read %lld, expected %d",
                      (long long) got, 5000 + peer);
        } else if (role == 't') {
            store64(base + SELF, -1);
            store64(base + MISC, 5000 + tap_rank);
            usleep(50000);
            TAP_CHECK(load64(base + SELF) == -1, "put landed before the post");
            EXPECT_OK(MPI_Win_post(g, 0, win), "MPI_Win_post");
            EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
            TAP_CHECK(load64(base + SELF) == 6000 + peer, "put issued before the post left "
                      "%lld, expected %d", (long long) load64(base + SELF), 6000 + peer);
        }
        if (role)
            MPI_Group_free(&g);
    }
    tap_ok("get and put issued before the target's post (posted 50 ms late)");
}

static void self_included(int epochs)
{
    MPI_Group pg = group_of2(left, tap_rank), sg = group_of2(right, tap_rank);
    for (int e = 1; e <= epochs; e++) {
        EXPECT_OK(MPI_Win_post(pg, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(sg, 0, win), "MPI_Win_start");
        int64_t v1 = e, v2 = -e;
        EXPECT_OK(MPI_Put(&v1, 1, MPI_INT64_T, right, RING, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Put(&v2, 1, MPI_INT64_T, tap_rank, SELF, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        TAP_CHECK(load64(base + RING) == e && load64(base + SELF) == -e,
                  "epoch %d: neighbour's word %lld, own word %lld", e,
                  (long long) load64(base + RING), (long long) load64(base + SELF));
    }
    MPI_Group_free(&pg);
    MPI_Group_free(&sg);
    tap_ok("self in both groups: %d epochs putting to the neighbour and to oneself", epochs);
}

static void overlapping(int epochs)
{
    for (int e = 1; e <= epochs; e++) {
        EXPECT_OK(MPI_Win_post(world, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(world, 0, win), "MPI_Win_start");
        int64_t v = e * 100 + tap_rank;
        for (int t = 0; t < tap_size; t++)
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, A2A + tap_rank, 1, MPI_INT64_T, win),
                 "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        for (int o = 0; o < tap_size; o++)
            TAP_CHECK(load64(base + A2A + o) == e * 100 + o, "all-to-all epoch %d: slot of "
                      "%d holds %lld", e, o, (long long) load64(base + A2A + o));
    }
    MPI_Group g = group_of2(left, right);
    for (int e = 1; e <= epochs; e++) {
        EXPECT_OK(MPI_Win_post(g, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(g, 0, win), "MPI_Win_start");
        int64_t v = e * 100 + tap_rank + 50;
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, left, A2A + tap_rank, 1, MPI_INT64_T, win), "MPI_Put");
        if (right != left)
            EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, A2A + tap_rank, 1, MPI_INT64_T, win),
                 "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        TAP_CHECK(load64(base + A2A + left) == e * 100 + left + 50 &&
                  load64(base + A2A + right) == e * 100 + right + 50,
                  "neighbour epoch %d: slots hold %lld and %lld", e,
                  (long long) load64(base + A2A + left), (long long) load64(base + A2A + right));
    }
    MPI_Group_free(&g);
    tap_ok("overlapping groups: all-to-all and both-neighbour epochs (%d each)", epochs);
}

static void empty_groups(int epochs)
{
    for (int e = 0; e < epochs; e++) {
        EXPECT_OK(MPI_Win_post(MPI_GROUP_EMPTY, 0, win), "MPI_Win_post(MPI_GROUP_EMPTY)");
        EXPECT_OK(MPI_Win_start(MPI_GROUP_EMPTY, 0, win), "MPI_Win_start(MPI_GROUP_EMPTY)");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
    }
    /* Mixed: only even ranks are targets (of their right neighbours, if odd). */
    int target = tap_rank % 2 == 0 && left % 2 == 1, origin = right % 2 == 0 && tap_rank % 2;
    store64(base + MISC, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_post(target ? g_left : g_none, 0, win), "MPI_Win_post");
    EXPECT_OK(MPI_Win_start(origin ? g_right : g_none, 0, win), "MPI_Win_start");
    static int64_t v777 = 777;
    if (origin)
        EXPECT_OK(MPI_Put(&v777, 1, MPI_INT64_T, right, MISC, 1, MPI_INT64_T, win), "MPI_Put");
    EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
    EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
    TAP_CHECK(load64(base + MISC) == (target ? 777 : 0), "word holds %lld after a mixed "
              "empty/non-empty group epoch", (long long) load64(base + MISC));
    tap_ok("MPI_GROUP_EMPTY for post and start (%d epochs, then mixed with real groups)",
           epochs);
}

static void test_polling(void)
{
    int polls = 0, flag = 0;
    store64(base + MISC, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_OK(MPI_Win_post(g_left, 0, win), "MPI_Win_post");
    EXPECT_OK(MPI_Win_start(g_right, 0, win), "MPI_Win_start");
    static int64_t v = 31337;
    EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, MISC, 1, MPI_INT64_T, win), "MPI_Put");
    usleep(20000);                      /* complete late: test sees flag 0 meanwhile */
    EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
    double t0 = now_s();
    for (;;) {
        EXPECT_OK(MPI_Win_test(win, &flag), "MPI_Win_test");
        if (flag || now_s() - t0 > 30)
            break;
        polls++;
        poll_pause();
    }
    TAP_CHECK(flag, "MPI_Win_test never returned flag = 1 (%d polls)", polls);
    TAP_CHECK(load64(base + MISC) == 31337, "after MPI_Win_test flag = 1 the word holds %lld",
              (long long) load64(base + MISC));
    int most = 0;
    MPI_Allreduce(&polls, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    TAP_DIAG("MPI_Win_test: up to %d polls returned flag = 0", most);
    tap_ok("MPI_Win_test polled until flag = 1, data there");
}

static void nocheck(int epochs)
{
    for (int e = 1; e <= epochs; e++) {
        /* The post is done before anyone starts; NOCHECK must then be on both sides. */
        EXPECT_OK(MPI_Win_post(g_left, MPI_MODE_NOCHECK, win), "MPI_Win_post(NOCHECK)");
        MPI_Barrier(MPI_COMM_WORLD);
        EXPECT_OK(MPI_Win_start(g_right, MPI_MODE_NOCHECK, win), "MPI_Win_start(NOCHECK)");
        int64_t v = 40000 + e;
        EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, right, MISC, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        TAP_CHECK(load64(base + MISC) == 40000 + e, "NOCHECK epoch %d: word holds %lld", e,
                  (long long) load64(base + MISC));
    }
    tap_ok("MPI_MODE_NOCHECK on start and post, post guaranteed first (%d epochs)", epochs);
}

static void many_into_one(int epochs)
{
    /* Every other rank posts to rank 0 at once; rank 0 starts with all of them. */
    int *others = malloc(sizeof(int) * (size_t) tap_size), zero = 0;
    for (int r = 1; r < tap_size; r++)
        others[r - 1] = r;
    MPI_Group g_others, g_zero;
    MPI_Group_incl(world, tap_size - 1, others, &g_others);
    MPI_Group_incl(world, 1, &zero, &g_zero);
    for (int e = 1; e <= epochs; e++) {
        if (tap_rank == 0) {
            EXPECT_OK(MPI_Win_start(g_others, 0, win), "MPI_Win_start");
            int64_t v = e;
            for (int t = 1; t < tap_size; t++)
                EXPECT_OK(MPI_Put(&v, 1, MPI_INT64_T, t, MISC, 1, MPI_INT64_T, win), "MPI_Put");
            EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        } else {
            EXPECT_OK(MPI_Win_post(g_zero, 0, win), "MPI_Win_post");
            EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
            TAP_CHECK(load64(base + MISC) == e, "epoch %d: word holds %lld", e,
                      (long long) load64(base + MISC));
        }
    }
    MPI_Group_free(&g_others);
    MPI_Group_free(&g_zero);
    free(others);
    tap_ok("all other ranks (%d) post into rank 0 at once, rank 0 starts with all "
           "(%d epochs)", tap_size - 1, epochs);
}

static void accumulate_epochs(int epochs)
{
    int64_t sum = load64(base + ACC), bad = 0;       /* every word starts alike */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int e = 1; e <= epochs; e++) {
        int64_t a = e, f = 1000, old = -1, ev = -e;
        EXPECT_OK(MPI_Win_post(g_left, 0, win), "MPI_Win_post");
        EXPECT_OK(MPI_Win_start(g_right, 0, win), "MPI_Win_start");
        EXPECT_OK(MPI_Fetch_and_op(&f, &old, MPI_INT64_T, right, ACC, MPI_SUM, win),
             "MPI_Fetch_and_op");
        EXPECT_OK(MPI_Accumulate(&a, 1, MPI_INT64_T, right, ACC, 1, MPI_INT64_T, MPI_SUM, win),
             "MPI_Accumulate");
        EXPECT_OK(MPI_Put(&ev, 1, MPI_INT64_T, right, RING, 1, MPI_INT64_T, win), "MPI_Put");
        EXPECT_OK(MPI_Win_complete(win), "MPI_Win_complete");
        /* every rank adds the same amounts to its right neighbour's word */
        if (old != sum && bad++ < 1)
            tap_fail("epoch %d: fetch-and-op returned %lld, expected %lld", e, (long long) old,
                     (long long) sum);
        sum += e + 1000;
        EXPECT_OK(MPI_Win_wait(win), "MPI_Win_wait");
        if ((load64(base + ACC) != sum || load64(base + RING) != -e) && bad++ < 1)
            tap_fail("after the wait closing epoch %d: sum %lld (expected %lld), put %lld", e,
                     (long long) load64(base + ACC), (long long) sum,
                     (long long) load64(base + RING));
    }
    TAP_CHECK(bad == 0, "%lld of %d accumulate epochs were wrong", (long long) bad, epochs);
    tap_ok("fetch-and-op and accumulate then a put in each of %d epochs; the target sees "
           "all of them after its wait", epochs);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    right = (tap_rank + 1) % tap_size;
    left = (tap_rank + tap_size - 1) % tap_size;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &right, &g_right);
    MPI_Group_incl(world, 1, &left, &g_left);
    g_none = MPI_GROUP_EMPTY;
    win = win_allocate_zeroed((MPI_Aint) sizeof(int64_t) * (A2A + tap_size), sizeof(int64_t),
                         NULL, &base);

    double t0 = now_s();
    many_epochs(tap_env_int("PSCW_EPOCHS", 10000));
    TAP_DIAG("ring epochs took %.2f s", now_s() - t0);
    empty_epochs(1000);
    MPI_Barrier(MPI_COMM_WORLD);
    no_carry_over();
    MPI_Barrier(MPI_COMM_WORLD);
    early_ops();
    MPI_Barrier(MPI_COMM_WORLD);
    self_included(100);
    overlapping(50);
    empty_groups(100);
    test_polling();
    nocheck(20);
    many_into_one(200);
    accumulate_epochs(500);

    MPI_Win_free(&win);
    MPI_Group_free(&g_right);
    MPI_Group_free(&g_left);
    MPI_Group_free(&world);
    return tap_done();
}
