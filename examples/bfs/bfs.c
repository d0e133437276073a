/*
 * The two RMA traversals.  Level by level, each rank sends every other rank the
 * descriptors (vertex u, offset, length) of the slices of its frontier's rows that
 * point there, into the receiver's inbox; the receiver pulls each slice with a read
 * and claims the unreached vertices in it, with parent u.
 *
 * BFS_NOTIFY: the descriptors go with MPIX_Put_notify (the receiver's counter of
 * that sender grows once they are there), the slices with MPIX_Get_notify_local
 * into a ring of slots, one counter each; MPIX_Win_notify_waitsome hands the
 * receiver whatever arrived first, a sender's descriptors or a slice, with no
 * barrier: a rank waits only for the data it consumes.
 * BFS_GET: the same traffic without notification: MPI_Put, MPI_Win_flush_all and a
 * barrier per level for the descriptors, MPI_Get batches + MPI_Win_flush for the
 * slices.
 * Every rank learns every sender's frontier degree from the headers, so all agree
 * that the search is over when none had an edge left.
 * The inbox has two parities: a sender writes level L + 2's descriptors only after
 * every receiver has sent its level L + 1 ones, i.e. finished consuming level L.
 */
#include <stdlib.h>
#include <string.h>
#include "mpix_rmaib.h"
#include "bfs.h"

const char *const bfs_variant_name[BFS_NVARIANTS] = { "notify", "get", "p2p" };

/* One read: adjacency entries [off, off + len) of src, covering (parts of) the
 * slices of ndesc consecutive descriptors in our inbox. */
typedef struct read_job {
    int src, ndesc;
    const int64_t *desc;
    int64_t off, len;
} read_job_t;

typedef struct bfs_state {
    bfs_graph_t *g;
    int64_t *parent, *front, *next, nfront, nnext;
    int64_t *sendbuf;           /* np slots of slot_words */
    read_job_t *queue;
    size_t qhead, qlen, qcap;
    int inflight, nbusy;
    read_job_t slot_job[BFS_INFLIGHT_MAX];
    unsigned char busy[BFS_INFLIGHT_MAX];
    int64_t *slot_buf;          /* inflight x BFS_SLICE_MAX */
    int64_t *arrived;           /* per sender: levels whose descriptors have come */
    int64_t total;              /* frontier degree of every rank at this level */
    int err;
} bfs_state_t;

static void visit(bfs_state_t *st, int64_t w, int64_t u)
{
    int64_t wl = w - st->g->vbase;
    if (st->parent[wl] < 0) {
        st->parent[wl] = u;
        st->next[st->nnext++] = wl;
    }
}

static void consume(bfs_state_t *st, const read_job_t *j, const int64_t *buf)
{
    for (int d = 0; d < j->ndesc; d++) {
        const int64_t *e = j->desc + 3 * d;
        int64_t lo = e[1] > j->off ? e[1] : j->off;
        int64_t hi = e[1] + e[2] < j->off + j->len ? e[1] + e[2] : j->off + j->len;
        for (int64_t k = lo; k < hi; k++)
            visit(st, buf[k - j->off], e[0]);
    }
}

/* Our frontier's slices towards q, into our send slot for q; returns its words. */
static int build_list(bfs_state_t *st, int q, int64_t mydeg)
{
    bfs_graph_t *g = st->g;
    int64_t *s = st->sendbuf + (int64_t) q * g->slot_words, n = 0;
    for (int64_t i = 0; i < st->nfront; i++) {
        int64_t off, len = bfs_slice(g, st->front[i], q, &off);
        if (len > 0) {
            s[2 + 3 * n] = g->vbase + st->front[i];
            s[3 + 3 * n] = off;
            s[4 + 3 * n] = len;
            n++;
        }
    }
    s[0] = n;
    s[1] = mydeg;
    return (int) (2 + 3 * n);
}

/* Our own slices need no traffic. */
static void local_slices(bfs_state_t *st)
{
    bfs_graph_t *g = st->g;
    const int64_t *adj = g->win_base + g->inbox_words;
    for (int64_t i = 0; i < st->nfront; i++) {
        int64_t off, len = bfs_slice(g, st->front[i], g->me, &off);
        for (int64_t k = off; k < off + len; k++)
            visit(st, adj[k], g->vbase + st->front[i]);
    }
}

static int64_t inbox_disp(const bfs_graph_t *g, int level, int sender)
{
    return ((int64_t) (level & 1) * g->np + sender) * g->slot_words;
}

static void push_job(bfs_state_t *st, int src, const int64_t *desc, int ndesc, int64_t off,
                     int64_t len)
{
    if (st->qlen == st->qcap) {
        st->qcap = st->qcap ? 2 * st->qcap : 1024;
        read_job_t *q = realloc(st->queue, st->qcap * sizeof *q);
        if (!q) {
            st->err = 1;
            return;
        }
        st->queue = q;
    }
    st->queue[st->qlen++] = (read_job_t) { src, ndesc, desc, off, len };
}

/* Sender src's descriptors of this level, now in our inbox, become read jobs: a long
 * slice is cut into reads of BFS_SLICE_MAX, and slices at most BFS_GAP apart share
 * one read (the gap is read and skipped), as long as it stays within BFS_SLICE_MAX. */
static void take_list(bfs_state_t *st, int level, int src)
{
    bfs_graph_t *g = st->g;
    const int64_t *s = g->win_base + inbox_disp(g, level, src), *d = s + 2;
    int64_t n = s[0], i = 0;
    st->total += s[1];
    while (i < n && !st->err) {
        int64_t first = i, lo = d[3 * i + 1], hi = lo + d[3 * i + 2];
        i++;
        if (hi - lo > BFS_SLICE_MAX) {
            for (int64_t o = lo; o < hi; o += BFS_SLICE_MAX)
                push_job(st, src, d + 3 * first, 1, o, hi - o < BFS_SLICE_MAX ? hi - o
                         : BFS_SLICE_MAX);
            continue;
        }
        while (i < n && d[3 * i + 1] >= hi && d[3 * i + 1] - hi <= BFS_GAP
               && d[3 * i + 1] + d[3 * i + 2] - lo <= BFS_SLICE_MAX) {
            hi = d[3 * i + 1] + d[3 * i + 2];
            i++;
        }
        push_job(st, src, d + 3 * first, (int) (i - first), lo, hi - lo);
    }
}

static int64_t frontier_degree(const bfs_state_t *st)
{
    int64_t d = 0;
    for (int64_t i = 0; i < st->nfront; i++)
        d += bfs_degree(st->g, st->front[i]);
    return d;
}

/* Start reads into the free slots, each growing our counter np + slot once it is in. */
static void issue_notified(bfs_state_t *st)
{
    bfs_graph_t *g = st->g;
    for (int i = 0; i < st->inflight && st->qhead < st->qlen; i++) {
        if (st->busy[i])
            continue;
        read_job_t *j = &st->queue[st->qhead++];
        st->slot_job[i] = *j;
        st->busy[i] = 1;
        st->nbusy++;
        if (MPIX_Get_notify_local(st->slot_buf + (int64_t) i * BFS_SLICE_MAX, (int) j->len,
                                  MPI_INT64_T, j->src, (MPI_Aint) (g->inbox_words + j->off),
                                  (int) j->len, MPI_INT64_T, g->np + i, g->win) != MPI_SUCCESS)
            st->err = 1;
    }
}

static void level_notify(bfs_state_t *st, int level)
{
    bfs_graph_t *g = st->g;
    int np = g->np, waiting = np - 1;
    int64_t mydeg = frontier_degree(st);
    unsigned char *took = calloc((size_t) np, 1);
    st->total = mydeg;
    if (!took)
        st->err = 1;
    for (int k = 1; k < np; k++) {
        int q = (g->me + k) % np, words = build_list(st, q, mydeg);
        MPI_Aint disp = (MPI_Aint) inbox_disp(g, level, g->me);
        if (MPIX_Put_notify(st->sendbuf + (int64_t) q * g->slot_words, words, MPI_INT64_T, q,
                            disp, words, MPI_INT64_T, g->me, g->win) != MPI_SUCCESS)
            st->err = 1;
    }
    local_slices(st);
    while (!st->err) {
        for (int q = 0; q < np && waiting; q++)
            if (q != g->me && !took[q] && st->arrived[q] > level) {
                MPI_Win_sync(g->win);
                take_list(st, level, q);
                took[q] = 1;
                waiting--;
            }
        issue_notified(st);
        if (!waiting && st->nbusy == 0 && st->qhead == st->qlen)
            break;
        int idx;
        MPI_Count v;
        if (MPIX_Win_notify_waitsome(g->win, 0, np + st->inflight, &idx) != MPI_SUCCESS
            || MPIX_Win_reset_notify_value(g->win, idx, &v) != MPI_SUCCESS) {
            st->err = 1;
        } else if (idx < np) {
            st->arrived[idx] += v;
        } else {
            consume(st, &st->slot_job[idx - np], st->slot_buf + (int64_t) (idx - np) * BFS_SLICE_MAX);
            st->busy[idx - np] = 0;
            st->nbusy--;
        }
    }
    free(took);
}

/* The batch of queued reads from one sender, at most inflight: get, flush, consume. */
static void get_batch(bfs_state_t *st)
{
    bfs_graph_t *g = st->g;
    int src = st->queue[st->qhead].src, n = 0;
    while (n < st->inflight && st->qhead + (size_t) n < st->qlen
           && st->queue[st->qhead + (size_t) n].src == src) {
        const read_job_t *j = &st->queue[st->qhead + (size_t) n];
        if (MPI_Get(st->slot_buf + (int64_t) n * BFS_SLICE_MAX, (int) j->len, MPI_INT64_T, src,
                    (MPI_Aint) (g->inbox_words + j->off), (int) j->len, MPI_INT64_T,
                    g->win) != MPI_SUCCESS)
            st->err = 1;
        n++;
    }
    if (MPI_Win_flush(src, g->win) != MPI_SUCCESS)
        st->err = 1;
    for (int i = 0; i < n; i++)
        consume(st, &st->queue[st->qhead + (size_t) i], st->slot_buf + (int64_t) i * BFS_SLICE_MAX);
    st->qhead += (size_t) n;
}

static void level_get(bfs_state_t *st, int level)
{
    bfs_graph_t *g = st->g;
    int np = g->np;
    int64_t mydeg = frontier_degree(st);
    st->total = mydeg;
    for (int k = 1; k < np; k++) {
        int q = (g->me + k) % np, words = build_list(st, q, mydeg);
        if (MPI_Put(st->sendbuf + (int64_t) q * g->slot_words, words, MPI_INT64_T, q,
                    (MPI_Aint) inbox_disp(g, level, g->me), words, MPI_INT64_T,
                    g->win) != MPI_SUCCESS)
            st->err = 1;
    }
    local_slices(st);
    MPI_Win_flush_all(g->win);
    MPI_Barrier(g->comm);
    MPI_Win_sync(g->win);
    for (int k = 1; k < np; k++)
        take_list(st, level, (g->me + k) % np);
    while (!st->err && st->qhead < st->qlen)
        get_batch(st);
}

static int state_init(bfs_state_t *st, bfs_graph_t *g, int inflight, int64_t *parent)
{
    memset(st, 0, sizeof *st);
    st->g = g;
    st->parent = parent;
    st->inflight = inflight < 1 ? 1 : inflight > BFS_INFLIGHT_MAX ? BFS_INFLIGHT_MAX : inflight;
    st->front = malloc(sizeof(int64_t) * (size_t) (g->nlocal + 1));
    st->next = malloc(sizeof(int64_t) * (size_t) (g->nlocal + 1));
    st->sendbuf = malloc(sizeof(int64_t) * (size_t) (g->np * g->slot_words));
    st->slot_buf = malloc(sizeof(int64_t) * (size_t) st->inflight * BFS_SLICE_MAX);
    st->arrived = calloc((size_t) g->np, sizeof(int64_t));
    return st->front && st->next && st->sendbuf && st->slot_buf && st->arrived ? 0 : -1;
}

static void state_free(bfs_state_t *st)
{
    free(st->front);
    free(st->next);
    free(st->sendbuf);
    free(st->slot_buf);
    free(st->arrived);
    free(st->queue);
}

/* Graph500's m: input edges in the root's component (each appears in two rows). */
static int64_t component_edges(const bfs_graph_t *g, const int64_t *parent)
{
    int64_t mine = 0, all = 0;
    for (int64_t u = 0; u < g->nlocal; u++)
        if (parent[u] >= 0)
            mine += bfs_degree(g, u);
    MPI_Allreduce(&mine, &all, 1, MPI_INT64_T, MPI_SUM, g->comm);
    return all / 2;
}

static int traverse_rma(bfs_graph_t *g, enum bfs_variant v, int64_t root, int inflight,
                        int64_t *parent, int *levels)
{
    bfs_state_t st;
    int rc = state_init(&st, g, inflight, parent), all = 0;
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, g->comm);
    if (all < 0) {
        state_free(&st);
        return -1;
    }
    if (bfs_owner(g, root) == g->me) {
        parent[root - g->vbase] = root;
        st.front[st.nfront++] = root - g->vbase;
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, g->win);
    int level = 0;
    for (;; level++) {
        st.nnext = 0;
        st.qhead = st.qlen = 0;
        if (v == BFS_NOTIFY)
            level_notify(&st, level);
        else
            level_get(&st, level);
        int64_t *t = st.front;
        st.front = st.next;
        st.next = t;
        st.nfront = st.nnext;
        /* In vertex order the descriptors' slices follow each other: fewer reads. */
        qsort(st.front, (size_t) st.nfront, sizeof *st.front, bfs_cmp64);
        if (st.total == 0 || st.err)
            break;
    }
    MPI_Win_unlock_all(g->win);
    *levels = level;
    rc = st.err ? -1 : 0;
    state_free(&st);
    MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MIN, g->comm);
    return all;
}

int bfs_run(bfs_graph_t *g, enum bfs_variant v, int64_t root, int inflight, int64_t *parent,
            bfs_result_t *res)
{
    for (int64_t u = 0; u < g->nlocal; u++)
        parent[u] = -1;
    /* Zeroes every counter; collective, so no notification of the last run is left. */
    if (MPIX_Win_set_num_notify(g->win, MPI_INFO_NULL, g->np + BFS_INFLIGHT_MAX) != MPI_SUCCESS)
        return -1;
    MPI_Barrier(g->comm);
    double t0 = MPI_Wtime();
    int rc = v == BFS_P2P ? bfs_run_p2p(g, root, parent, &res->levels)
        : traverse_rma(g, v, root, inflight, parent, &res->levels);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&t, &res->seconds, 1, MPI_DOUBLE, MPI_MAX, g->comm);
    res->edges = component_edges(g, parent);
    return rc;
}
