/*
 * The single-copy path of MPI_Allgather and MPI_Alltoall within a node
 * (src/coll_overlay/cma.c), and of MPI_Allreduce (cma_allreduce.c, from 64 KiB), with RMAIB_COLL_CMA=4096 and RMAIB_VERBOSE=1 from the
 * testlist: blocks around the threshold and of several MiB, out of place and in
 * place, blocking and non-blocking (several in flight, mixed with calls below the
 * threshold), on MPI_COMM_WORLD and on a sub-communicator without rank 0 in
 * reverse order; every byte checked, with a salt per call so that stale data
 * fails.  Each rank catches its stderr and finds the RMAIB_VERBOSE line of the
 * path: single-copy in the shm pass, the window path where the group may not
 * read each other's memory (RMAIB_TEST_CMA_REFUSE=R: rank R acts as if the
 * kernel refused it) or over the network.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "coll_check.h"

#define THRESHOLD 4096

static FILE *logf;
static int refused, shm;

/* Byte i of the block rank `from` sends to rank `to` in the call salted salt. */
static unsigned char byte_of(int from, int to, size_t i, int salt)
{
    return (unsigned char) (from * 31 + to * 7 + i * 13 + (i >> 8) + salt * 101);
}

/* Does the log hold a line containing want?  Read with pread: stderr writes at
 * the file's shared offset, which stdio's seeks on logf might not move. */
static int has_line(const char *want)
{
    static char buf[1 << 16];
    fflush(stderr);
    ssize_t n = pread(fileno(logf), buf, sizeof buf - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    return strstr(buf, want) != NULL;
}

static void new_log(void)
{
    fflush(stderr);
    if (ftruncate(fileno(logf), 0) != 0 || lseek(fileno(logf), 0, SEEK_SET) != 0)
        tap_fail("cannot empty the log");
}

/* One call's buffers: send, receive, and what the receive buffer must hold. */
typedef struct {
    int a2a, in_place, salt;
    size_t n;
    unsigned char *s, *r;
    MPI_Request req;
} call_t;

static void prepare(call_t *c, MPI_Comm comm, int a2a, size_t n, int in_place, int salt)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    *c = (call_t) { .a2a = a2a, .in_place = in_place, .salt = salt, .n = n };
    size_t sn = a2a ? (size_t) p * n : n;
    c->s = malloc(sn + 1);
    c->r = malloc((size_t) p * n + 1);
    for (size_t b = 0; b < (a2a ? (size_t) p : 1); b++)
        for (size_t i = 0; i < n; i++)
            c->s[b * n + i] = byte_of(me, (int) b, i, salt);
    memset(c->r, 0xee, (size_t) p * n);
    if (in_place)
        memcpy(c->r + (a2a ? 0 : (size_t) me * n), c->s, sn);
}

static void start(call_t *c, MPI_Comm comm, int blocking)
{
    const void *sb = c->in_place ? MPI_IN_PLACE : c->s;
    int n = (int) c->n, rc;
    if (c->a2a)
        rc = blocking ? MPI_Alltoall(sb, n, MPI_BYTE, c->r, n, MPI_BYTE, comm)
            : MPI_Ialltoall(sb, n, MPI_BYTE, c->r, n, MPI_BYTE, comm, &c->req);
    else
        rc = blocking ? MPI_Allgather(sb, n, MPI_BYTE, c->r, n, MPI_BYTE, comm)
            : MPI_Iallgather(sb, n, MPI_BYTE, c->r, n, MPI_BYTE, comm, &c->req);
    TAP_CHECK(rc == MPI_SUCCESS, "%s of %zu returned %d", c->a2a ? "alltoall" : "allgather",
              c->n, rc);
}

/* Every byte, then free: 1 if all were right. */
static int check(call_t *c, MPI_Comm comm, const char *what)
{
    int me, p, ok = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    for (int q = 0; q < p && ok; q++)
        for (size_t i = 0; i < c->n; i++)
            if (c->r[(size_t) q * c->n + i] != byte_of(q, c->a2a ? me : 0, i, c->salt)) {
                tap_fail("%s %s of %zu%s on %d ranks: byte %zu of rank %d's block is %d", what,
                         c->a2a ? "alltoall" : "allgather", c->n, c->in_place ? " in place" : "",
                         p, i, q, c->r[(size_t) q * c->n + i]);
                ok = 0;
                break;
            }
    free(c->s);
    free(c->r);
    return ok;
}

static int one(MPI_Comm comm, int a2a, size_t n, int in_place, int salt)
{
    call_t c;
    prepare(&c, comm, a2a, n, in_place, salt);
    start(&c, comm, 1);
    return check(&c, comm, "blocking");
}

/* Does the comm's verbose log name the single-copy path for call (and must it)? */
static void path_is(MPI_Comm comm, const char *call, int single, const char *when)
{
    int p;
    MPI_Comm_size(comm, &p);
#ifdef RMAIB_TEST_NETMOD
    if (p == 1 && strcmp(call, "MPI_Allreduce") == 0)
        return;                 /* MPICH's binding answers a 1-rank allreduce itself */
#endif
    char want[160];
    snprintf(want, sizeof want, "%s on %d ranks served by rmaib, algorithm single-copy", call, p);
    int has = has_line(want);
    TAP_CHECK(has == single, "%s: %s single-copy line (want %s)", when,
              has ? "a" : "no", single ? "one" : "none");
    snprintf(want, sizeof want, "%s on %d ranks served by rmaib", call, p);
    TAP_CHECK(has_line(want), "%s: %s not served by rmaib", when, call);
}

/* Allreduce of n ints, element i of rank q being q * 7 + i + salt: 1 if right. */
static int ar_one(MPI_Comm comm, size_t n, int in_place, int salt, MPI_Request *req, int **keep)
{
    int me, p, ok = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    int *s = malloc(n * sizeof *s + 4), *r = malloc(n * sizeof *r + 4);
    for (size_t i = 0; i < n; i++) {
        s[i] = me * 7 + (int) i + salt;
        r[i] = in_place ? s[i] : -1;
    }
    const void *sb = in_place ? MPI_IN_PLACE : s;
    if (req) {                  /* started: the caller waits, then checks with keep */
        MPI_Iallreduce(sb, r, (int) n, MPI_INT, MPI_SUM, comm, req);
        keep[0] = s;
        keep[1] = r;
        return 1;
    }
    MPI_Allreduce(sb, r, (int) n, MPI_INT, MPI_SUM, comm);
    for (size_t i = 0; i < n && ok; i++)
        if (r[i] != 7 * p * (p - 1) / 2 + p * ((int) i + salt)) {
            tap_fail("allreduce of %zu ints%s on %d ranks: element %zu is %d", n,
                     in_place ? " in place" : "", p, i, r[i]);
            ok = 0;
        }
    free(s);
    free(r);
    return ok;
}

/* Allreduce: the path at 64 KiB, results up to 3 MiB, four non-blocking in flight. */
static void ar_suite(MPI_Comm comm, const char *name, int single)
{
    int p, ok = 1, salt = 3;
    MPI_Comm_size(comm, &p);
    MPI_Comm d;
    MPI_Comm_dup(comm, &d);
    new_log();
    ok &= ar_one(d, 16383, 0, salt++, NULL, NULL);
    path_is(d, "MPI_Allreduce", 0, "allreduce below 64 KiB");
    ok &= ar_one(d, 16384, 1, salt++, NULL, NULL);
    path_is(d, "MPI_Allreduce", single && p > 1, "allreduce at 64 KiB");
    MPI_Comm_free(&d);
    const size_t sizes[] = { 16384 + 3, 262144 + 5, 786432 + 1 };
    for (size_t k = 0; k < 3; k++)
        for (int ip = 0; ip < 2; ip++)
            ok &= ar_one(comm, sizes[k], ip, salt++, NULL, NULL);
    const size_t nb[4] = { 262144, 25, 75000, 17500 };
    MPI_Request req[4];
    int *keep[4][2];
    for (int i = 0; i < 4; i++)
        ar_one(comm, nb[i], i & 1, 40 + i, &req[i], keep[i]);
    for (int i = 3; i >= 0; i--)
        MPI_Wait(&req[i], MPI_STATUS_IGNORE);
    for (int i = 0; i < 4; i++) {
        for (size_t j = 0; j < nb[i] && ok; j++)
            if (keep[i][1][j] != 7 * p * (p - 1) / 2 + p * ((int) j + 40 + i)) {
                tap_fail("iallreduce %d of %zu ints: element %zu is %d", i, nb[i], j, keep[i][1][j]);
                ok = 0;
            }
        free(keep[i][0]);
        free(keep[i][1]);
    }
    TAP_CHECK(ok, "%s: allreduce results", name);
    tap_ok("%s: allreduce path at 64 KiB, 64 KiB to 3 MiB, 4 in flight, on %d ranks", name, p);
}

/* tap_ok's lines: every rank prints the same (rank 0 is not in the sub-communicator). */
static const char *const points[3] = {
    "%s: path chosen at RMAIB_COLL_CMA=4096 on %d ranks",
    "%s: blocking allgather and alltoall, 4095 B to 3 MiB, in place too, on %d ranks",
    "%s: six non-blocking calls in flight on %d ranks",
};

static void suite(MPI_Comm comm, const char *name)
{
    int p, salt = 1, ok = 1;
    MPI_Comm_size(comm, &p);
    int single = p > 1 && shm && !refused;
    size_t big = 3 * 1024 * 1024 + 5, a2a_big = (size_t) 12 * 1024 * 1024 / (size_t) p + 5;
    a2a_big = a2a_big < big ? a2a_big : big;
    const size_t sizes[] = { THRESHOLD + 1, 65536 + 3, big };

    /* The threshold, on a communicator of its own so its log lines are new. */
    MPI_Comm d;
    MPI_Comm_dup(comm, &d);
    new_log();
    for (int a2a = 0; a2a < 2; a2a++) {
        const char *call = a2a ? "MPI_Alltoall" : "MPI_Allgather";
        ok &= one(d, a2a, THRESHOLD - 1, 0, salt++);
        path_is(d, call, 0, "one byte below the threshold");
        ok &= one(d, a2a, THRESHOLD, 0, salt++);
        path_is(d, call, single, "at the threshold");
    }
    MPI_Comm_free(&d);
    tap_ok(points[0], name, p);

    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int a2a = 0; a2a < 2; a2a++)
            for (int ip = 0; ip < 2; ip++)
                ok &= one(comm, a2a, a2a && sizes[k] == big ? a2a_big : sizes[k], ip, salt++);
    /* The same call twice: the schedule is reused, the addresses sent anew. */
    for (int a2a = 0; a2a < 2; a2a++)
        for (int rep = 0; rep < 2; rep++)
            ok &= one(comm, a2a, 70000, 0, 7);
    TAP_CHECK(ok, "%s: blocking results", name);
    tap_ok(points[1], name, p);

    /* Several in flight, single-copy and not, finished in reverse order. */
    call_t c[6];
    const size_t nb[6] = { 8000, 100, 1 << 20, THRESHOLD, 3000, 300000 };
    for (int i = 0; i < 6; i++) {
        prepare(&c[i], comm, i & 1, nb[i], i == 2 || i == 5, salt++);
        start(&c[i], comm, 0);
    }
    for (int i = 5; i >= 0; i--)
        MPI_Wait(&c[i].req, MPI_STATUS_IGNORE);
    for (int i = 0; i < 6; i++)
        ok &= check(&c[i], comm, "non-blocking");
    TAP_CHECK(ok, "%s: non-blocking results", name);
    tap_ok(points[2], name, p);
    ar_suite(comm, name, single);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    const char *e = getenv("RMAIB_TEST_CMA_REFUSE"), *t = getenv("RMAIB_TRANSPORT");
    refused = e && atoi(e) < tap_size;
    shm = t && strcmp(t, "shm") == 0;
    logf = tmpfile();
    int saved = dup(2);
    fflush(stderr);
    dup2(fileno(logf), 2);

    suite(MPI_COMM_WORLD, "world");
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank > 0 ? 0 : MPI_UNDEFINED, -tap_rank, &sub);
    if (sub != MPI_COMM_NULL) {
        int sp;
        MPI_Comm_size(sub, &sp);
        /* Rank R of the sub-communicator refuses: it has one if R < its size. */
        refused = e && atoi(e) < sp;
        suite(sub, "without rank 0");
        MPI_Comm_free(&sub);
    } else {
        for (int i = 0; i < 3; i++)     /* tap_ok is collective over the world */
            tap_ok(points[i], "without rank 0", tap_size - 1);
        tap_ok("%s: allreduce path at 64 KiB, 64 KiB to 3 MiB, 4 in flight, on %d ranks",
               "without rank 0", tap_size - 1);
    }

    fflush(stderr);
    dup2(saved, 2);
    fclose(logf);
    return tap_done();
}
