/*
 * win_create_calls: a communicator's later windows, which rmaib makes with fewer host
 * collectives than its first (win_exchange.c, and over ofi no exchange of keys at
 * all: ofi/win.c), still reach every byte and word of every peer.
 *
 * On a duplicate of MPI_COMM_WORLD, and on the half of it with odd ranks or even ones
 * (a group whose address vector entries do not follow the rank): a first allocated
 * window, then ROUNDS rounds of an allocated and a dynamic window (4 KiB attached),
 * the round's windows all alive at once with the previous round's allocated one.
 * Each window: a put of a pattern to the right neighbour and a get from the left
 * one in a fence epoch, an MPI_SUM accumulate from every rank into every rank, and
 * under an exclusive lock a fetch-and-op on the right neighbour; every byte and
 * value checked.
 *
 * With RMAIB_VERBOSE=1 each window's line says how many host collectives its
 * creation took ("collectives=N"); the counts show as TAP comments, and with
 * EXPECT_FIRST=a and EXPECT_LATER=b a communicator's first window must take exactly
 * a and every later allocated or dynamic one b, on every rank.
 */
#include <fcntl.h>
#include "tap.h"

enum { N = 4096, ROUNDS = 4 };

/* The count on rmaib's window line in what a creation wrote to stderr, or -1. */
static int calls_in(const char *said)
{
    const char *c = strstr(said, "collectives=");
    return c ? atoi(c + strlen("collectives=")) : -1;
}

typedef struct made {
    MPI_Win win;
    unsigned char *base;        /* the window's memory (dynamic: attached) */
    MPI_Aint *addrs;            /* dynamic: each rank's attached address */
    int calls;
} made_t;

/* Create with stderr caught, where RMAIB_VERBOSE makes rmaib say what it took. */
static void make(made_t *m, MPI_Comm comm, int dynamic)
{
    static char said[8192];
    char path[] = "/tmp/rmaib-calls.XXXXXX";
    int fd = mkstemp(path), saved = dup(2), n;
    MPI_Comm_size(comm, &n);
    fflush(stderr);
    dup2(fd, 2);
    int rc;
    m->addrs = NULL;
    if (dynamic) {
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &m->win);
        m->base = malloc(N);
    } else {
        rc = MPI_Win_allocate(N, 1, MPI_INFO_NULL, comm, &m->base, &m->win);
    }
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t got = pread(fd, said, sizeof said - 1, 0);
    said[got > 0 ? got : 0] = 0;
    close(fd);
    unlink(path);
    m->calls = calls_in(said);
    TAP_CHECK(rc == MPI_SUCCESS, "creation failed (%d)", rc);
    if (dynamic && rc == MPI_SUCCESS) {
        MPI_Aint mine;
        MPI_Win_attach(m->win, m->base, N);
        MPI_Get_address(m->base, &mine);
        m->addrs = malloc(sizeof *m->addrs * (size_t) n);
        MPI_Allgather(&mine, 1, MPI_AINT, m->addrs, 1, MPI_AINT, comm);
    }
}

static unsigned char pattern(int from, int seq, int i)
{
    return (unsigned char) (from * 31 + seq * 7 + i * 13 + 1);
}

/* Every kind of access to the neighbours and from everyone, every result checked. */
static void exercise(made_t *m, MPI_Comm comm, int seq)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_Aint at_right = m->addrs ? m->addrs[right] : 0, at_left = m->addrs ? m->addrs[left] : 0;
    static unsigned char src[N], back[N];
    memset(m->base, 0, N);
    for (int i = 0; i < N; i++)
        src[i] = pattern(me, seq, i);
    MPI_Barrier(comm);
    MPI_Win_fence(0, m->win);
    MPI_Put(src, N / 2, MPI_BYTE, right, at_right, N / 2, MPI_BYTE, m->win);
    MPI_Win_fence(0, m->win);
    int bad = -1;
    for (int i = 0; i < N / 2 && bad < 0; i++)
        if (m->base[i] != pattern(left, seq, i))
            bad = i;
    TAP_CHECK(bad < 0, "window %d: byte %d from the left neighbour is %u", seq, bad,
              bad < 0 ? 0 : m->base[bad]);
    memcpy(m->base + N / 2, src + N / 2, N / 2);
    MPI_Win_fence(0, m->win);
    MPI_Get(back, N / 2, MPI_BYTE, left, at_left + N / 2, N / 2, MPI_BYTE, m->win);
    MPI_Win_fence(0, m->win);
    for (int i = 0; i < N / 2 && bad < 0; i++)
        if (back[i] != pattern(left, seq, N / 2 + i))
            bad = i;
    TAP_CHECK(bad < 0, "window %d: got byte %d of the left neighbour as %u", seq, bad,
              bad < 0 ? 0 : back[bad]);

    /* Accumulates from every rank into the first words, then a fetch-and-op. */
    int64_t one[2] = { me + 1, 1 }, *words = (int64_t *) (void *) m->base;
    memset(m->base, 0, 3 * sizeof(int64_t));
    MPI_Win_fence(0, m->win);
    for (int t = 0; t < n; t++)
        MPI_Accumulate(one, 2, MPI_INT64_T, t, m->addrs ? m->addrs[t] : 0, 2, MPI_INT64_T,
                       MPI_SUM, m->win);
    MPI_Win_fence(0, m->win);
    TAP_CHECK(words[0] == (int64_t) n * (n + 1) / 2 && words[1] == n,
              "window %d: accumulated %lld, %lld", seq, (long long) words[0],
              (long long) words[1]);
    MPI_Win_fence(0, m->win);
    int64_t add = 1000 + me, old = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, m->win);
    MPI_Fetch_and_op(&add, &old, MPI_INT64_T, right, at_right + 2 * sizeof(int64_t), MPI_SUM,
                     m->win);
    MPI_Win_unlock(right, m->win);
    TAP_CHECK(old == 0, "window %d: fetch-and-op found %lld", seq, (long long) old);
    MPI_Barrier(comm);
    MPI_Win_lock(MPI_LOCK_SHARED, me, 0, m->win);
    int64_t got = words[2];
    MPI_Win_unlock(me, m->win);
    TAP_CHECK(got == 1000 + left, "window %d: the left neighbour's fetch-and-op left %lld",
              seq, (long long) got);
}

static void unmake(made_t *m)
{
    if (m->addrs)
        MPI_Win_detach(m->win, m->base);
    MPI_Win_free(&m->win);
    if (m->addrs) {
        free(m->base);
        free(m->addrs);
    }
}

/* The counts against EXPECT_FIRST / EXPECT_LATER, and as a comment. */
static void check_calls(const char *what, const made_t *first, const int *later, int nlater)
{
    const char *ef = getenv("EXPECT_FIRST"), *el = getenv("EXPECT_LATER");
    const char *verbose = getenv("RMAIB_VERBOSE");
    if (!verbose || atoi(verbose) < 1)
        return;
    TAP_CHECK(first->calls >= 0, "%s: the first window's line has no count", what);
    if (ef)
        TAP_CHECK(first->calls == atoi(ef), "%s: the first window took %d collectives, "
                  "want %s", what, first->calls, ef);
    int lo = 1 << 30, hi = -1;
    for (int i = 0; i < nlater; i++) {
        lo = later[i] < lo ? later[i] : lo;
        hi = later[i] > hi ? later[i] : hi;
        if (el)
            TAP_CHECK(later[i] == atoi(el), "%s: later window %d took %d collectives, want %s",
                      what, i, later[i], el);
    }
    int mine[3] = { first->calls, -lo, hi }, most[3];
    MPI_Allreduce(mine, most, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (tap_rank == 0)
        printf("# %s: host collectives, first window %d (the most of any rank), later "
               "ones %d..%d\n", what, most[0], -most[1], most[2]);
}

static void run(MPI_Comm comm, const char *what)
{
    made_t first, alloc[ROUNDS], dyn[ROUNDS];
    int later[2 * ROUNDS], nlater = 0, seq = 0;
    make(&first, comm, 0);
    exercise(&first, comm, seq++);
    for (int r = 0; r < ROUNDS; r++) {
        make(&alloc[r], comm, 0);
        make(&dyn[r], comm, 1);
        later[nlater++] = alloc[r].calls;
        later[nlater++] = dyn[r].calls;
        exercise(&alloc[r], comm, seq++);
        exercise(&dyn[r], comm, seq++);
        if (r > 0)
            exercise(&alloc[r - 1], comm, seq++);   /* still right beside the new ones */
        unmake(&dyn[r]);
        if (r > 0)
            unmake(&alloc[r - 1]);
    }
    unmake(&alloc[ROUNDS - 1]);
    exercise(&first, comm, seq++);
    unmake(&first);
    check_calls(what, &first, later, nlater);
    tap_ok("%s: a first window and %d later ones, every byte and value checked", what,
           2 * ROUNDS);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    MPI_Comm world, half;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    run(world, "a duplicate of MPI_COMM_WORLD");
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank % 2, tap_rank, &half);
    run(half, "odd or even ranks");
    MPI_Comm_free(&half);
    MPI_Comm_free(&world);
    return tap_done();
}
