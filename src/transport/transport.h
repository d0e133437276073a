/*
 * The transport interface: one table of operations per backend (shm, ofi), in the
 * manner of libfabric's fi_ops_rma.  The core calls through the table of the peer it
 * talks to and never asks which backend it has.
 *
 * Two regions of a peer are addressable: its window memory (REGION_DATA; offsets are
 * bytes from the peer's window base, or absolute addresses for dynamic windows) and
 * its control block (offsets from struct rmaib_ctrl).  Control-block atomics go through
 * the window's one atomics transport (win->atp), never through a per-peer choice, so
 * CPU and network atomics never meet on the same word.
 */
#ifndef RMAIB_TRANSPORT_H_INCLUDED
#define RMAIB_TRANSPORT_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "rmaib.h"

struct rmaib_peer;

typedef enum rmaib_aop {
    RMAIB_AOP_READ,     /* result = *word */
    RMAIB_AOP_WRITE,    /* *word = operand */
    RMAIB_AOP_FADD,     /* result = *word; *word += operand */
    RMAIB_AOP_SWAP,     /* result = *word; *word = operand */
    RMAIB_AOP_CAS       /* result = *word; if (result == compare) *word = operand */
} rmaib_aop_t;

/* One piece of a non-contiguous transfer. */
typedef struct rmaib_seg {
    uint64_t roff;      /* remote offset in the data region */
    void *laddr;        /* local address */
    size_t len;
} rmaib_seg_t;

/* Which peers a backend reaches: those sharing memory with us, or any. */
enum { RMAIB_TP_NODE = 1, RMAIB_TP_NET };

/* elem_atomic's runs lie within one aligned block of this many bytes. */
enum { RMAIB_ELEM_RUN = 4096 };

typedef struct rmaib_tp_ops {
    const char *name;
    int reach;          /* RMAIB_TP_NODE or RMAIB_TP_NET */
    /* 1: every operation is complete when its call returns, so flush only orders
     * it (a release fence), which any seq_cst atomic that follows does too. */
    int complete_at_issue;

    /* Process level; each optional (NULL: nothing to do, or no).
     * start: bring up what the process needs (the network endpoint) at the first
     * window that uses the backend; RMAIB_OK, or an error with the reason in
     * failure().  A failure is remembered: later calls fail at once, alike.
     * atomics_on_cpu: does the backend apply peers' atomics on this host with CPU
     * atomic instructions (so ours meet them safely on a word we can map)?
     * local_only: does it reach this host only (a window spanning nodes cannot
     * use it)?
     * wants_polling: do peers' requests move only while this process polls?
     * poll_enter/poll_leave: another thread polls from now until the leave, so a
     * progress thread may park.  finalize: tear down (windows must be gone). */
    int (*start)(void);
    const char *(*failure)(void);
    int (*atomics_on_cpu)(void);
    int (*local_only)(void);
    int (*wants_polling)(void);
    void (*poll_enter)(void);
    void (*poll_leave)(void);
    void (*finalize)(void);

    /* Collective over the window's group, called on every rank for every backend in
     * the same order.  A backend sets up the peers whose peer->tp is itself. */
    int (*win_init)(rmaib_win_t *win);
    void (*win_fini)(rmaib_win_t *win);
    /* Optional.  The network backend's set-up where the group's earlier windows told
     * it all it needs (win->net_dir, win->serial): local, called by the node backend
     * once the control block and memory are in place, before the agreement that
     * ends its set-up and carries this status; win_init then finds it done.
     * dir_free: what it kept in a communicator's slot. */
    int (*win_early)(rmaib_win_t *win);
    void (*dir_free)(void *state);
    /* Optional (NULL: nothing to do).  MPI_Win_sync: what another thread of this
     * process applied to the window for peers happens before the caller goes on. */
    void (*win_sync)(rmaib_win_t *win);
    /* Optional.  Set up this backend's part of a peer's entry (peer->tpp), opened
     * after win_init at the first access to it (peer.c); RMAIB_OK or an error, which
     * the access that opened it returns. */
    int (*peer_open)(rmaib_win_t *win, int rank, struct rmaib_peer *peer);

    int (*put)(rmaib_win_t *win, int peer, uint64_t roff, const void *src, size_t len);
    int (*get)(rmaib_win_t *win, int peer, uint64_t roff, void *dst, size_t len);
    int (*putv)(rmaib_win_t *win, int peer, const rmaib_seg_t *segs, size_t n);
    int (*getv)(rmaib_win_t *win, int peer, const rmaib_seg_t *segs, size_t n);

    /* 64-bit atomic on a word of a peer's control block. */
    int (*ctrl_atomic)(rmaib_win_t *win, int peer, size_t off, rmaib_aop_t op,
                       uint64_t operand, uint64_t compare, uint64_t *result);

    /* Store value into a signal word of a peer's control block (struct rmaib_ctrl):
     * one writer, growing values, read by its owner with loads, never touched by an
     * atomic, so each peer's own transport may carry it and CPU and network accesses
     * never meet as atomics.  Nobody waits for it; the owner's wait consumes it.
     * It becomes visible after every data operation issued to peer through this
     * transport (flushing first only what the network could reorder).
     * Where the network writes it in pieces, the bytes land in address order, so a
     * reader sees the old value's high bytes under the new one's low bytes: below
     * the new value unless equal to it (each store adds one to the last). */
    int (*ctrl_store)(rmaib_win_t *win, int peer, size_t off, uint64_t value);

    /* Accumulate-family atomics on a peer's window memory, through win->atp only.
     * acc_native: may (b, op) on the element at roff be done as a native atomic?  It
     * must answer alike for every origin and every op on that element, or native and
     * locked accesses to one element would not be atomic with each other.
     * data_atomic: n consecutive elements, each atomic; fetch (if not NULL) gets the
     * old values.  data_cas: one element of size bytes, compared bitwise. */
    int (*acc_native)(rmaib_win_t *win, int peer, uint64_t roff, rmaib_basic_t b, rmaib_op_t op);
    /* Optional (NULL: all of them).  How many of the len bytes at roff (whole
     * elements of b) get acc_native's answer for the element at roff: a run of
     * elements may cross the edge of the memory where the answer is yes. */
    size_t (*acc_native_span)(rmaib_win_t *win, int peer, uint64_t roff, size_t len,
                              rmaib_basic_t b);
    int (*data_atomic)(rmaib_win_t *win, int peer, uint64_t roff, rmaib_basic_t b, rmaib_op_t op,
                       const void *operand, void *fetch, size_t n);
    int (*data_cas)(rmaib_win_t *win, int peer, uint64_t roff, size_t size, const void *compare,
                    const void *swap, void *result);
    /* Optional (NULL: the three above, one after the other).  data_atomic of the len
     * bytes (whole elements) at roff if acc_native says yes for every element:
     * returns 1 with its result in *rc, else 0 with nothing done.  One call on the
     * latency path (one element, a short run) where the three take three. */
    int (*atomic_run)(rmaib_win_t *win, int peer, uint64_t roff, rmaib_basic_t b,
                      rmaib_op_t op, const void *operand, void *fetch, size_t len, int *rc);
    /* Optional.  The len bytes at roff of a peer whose elem_native is set, whole
     * elements of b within one aligned RMAIB_ELEM_RUN bytes, b a CPU
     * atomic type (rmaib_cpu_atomic_type), roff aligned to its size, (b, op)
     * valid: each element atomic, fetch (if not NULL) gets the old values, and with
     * compare NULL each element becomes old op *operand (accumulate, fetch-and-op),
     * else (one element, op REPLACE) *operand if old equals *compare bitwise
     * (compare-and-swap).  What data_atomic and data_cas would do, in one call and
     * with no checks: the latency path. */
    int (*elem_atomic)(rmaib_win_t *win, int peer, uint64_t roff, rmaib_basic_t b,
                       rmaib_op_t op, const void *operand, const void *compare, void *fetch,
                       size_t len);
    /* Set with elem_atomic: its accumulate (no fetch, no compare, op not NO_OP),
     * in fewer arguments, for the latency path. */
    int (*elem_acc)(rmaib_win_t *win, int peer, uint64_t roff, rmaib_basic_t b,
                    rmaib_op_t op, const void *operand, size_t len);

    /* Bulk read of a peer's control block (the attach table of dynamic windows). */
    int (*ctrl_read)(rmaib_win_t *win, int peer, size_t off, void *dst, size_t len);

    /* Remote completion of every data operation issued to peer (-1: to every peer).
     * Control-word atomics the core did not wait for may still be in flight. */
    int (*flush)(rmaib_win_t *win, int peer);
    /* Optional (NULL: flush(win, -1) covers it): remote completion of everything
     * issued, control-word atomics included; before the window's memory goes. */
    int (*quiesce)(rmaib_win_t *win);
    /* Local completion only: origin buffers may be reused, gets' data is in place
     * (get_notify's included). */
    int (*flush_local)(rmaib_win_t *win, int peer);
    /* Optional (NULL: get, flush_local, then the core adds one).  Read the n
     * segments of peer into their local addresses, returning once the reads are
     * posted; *counter grows by one, with release order, once every byte of every
     * segment is in place.  A flush or flush_local of the peer waits for the reads;
     * an error is reported by the next flush. */
    int (*get_notify)(rmaib_win_t *win, int peer, const rmaib_seg_t *segs, size_t n,
                      _Atomic uint64_t *counter);
    /* Optional (NULL: flush, then the core's fetch-add).  Add one to the control word
     * at off of peer, after every data operation issued to peer has landed; it has
     * taken effect on return.  Only where this transport also carries the atomics. */
    int (*notify_add)(rmaib_win_t *win, int peer, size_t off);

    /* Drive the backend (software providers need the target to poll). */
    void (*progress)(void);

    /* Optional (NULL: nothing to do).  A dynamic window's owner exposes [base,
     * base + size) before the region enters its attach table, and withdraws it after
     * the region has left it; attach may fail (the attach then fails). */
    int (*attach)(rmaib_win_t *win, void *base, size_t size);
    void (*detach)(rmaib_win_t *win, const void *base);
} rmaib_tp_ops_t;

/* The backends built in (transport.c lists them). */
extern const rmaib_tp_ops_t rmaib_shm_ops;
extern const rmaib_tp_ops_t rmaib_ofi_ops;

/* Cross-memory attach (shm.c): move the bytes of the local iovecs l from or to
 * (write) the remote ones r of process pid, however many calls that takes.  The
 * lists are consumed.  RMAIB_ERR_TRANSPORT (said) if the kernel refuses. */
struct iovec;
int rmaib_shm_pvm(int pid, int write, struct iovec *l, size_t nl, struct iovec *r, size_t nr);

/* This process's board (shm_seg.c), made at the first call: the descriptor its
 * node-mates find it by, beside its pid, in a window's creation record; -1 if it
 * could not be made. */
int rmaib_shm_board_fd(void);

/* Test hook for test/unit's simulated host only: ops (a counting transport, reach
 * RMAIB_TP_NET) replaces the network backend for the rest of the process; call it
 * before the first window.  0, or -1 if rmaib was built without one (no libfabric). */
int rmaib_transport_set_net_for_test(const rmaib_tp_ops_t *ops);

/* Process-wide set-up of the transport layer: waits serve the backends from now on. */
void rmaib_transport_init(void);

/* Creation's choice of the transports for node-local and other peers and of the
 * atomics transport, in two halves (win_exchange.c): the local part, starting the
 * network where the window needs it, whose error every rank must learn (or those
 * whose endpoint works would wait for those whose does not); and, once agreed,
 * the choice.  Then, once the peer table holds the node-local ranks, each
 * backend's win_init. */
int rmaib_transport_prepare(rmaib_win_t *win);
void rmaib_transport_assign(rmaib_win_t *win);
/* RMAIB_TRANSPORT=ofi: every peer, node-local ones too, over the network. */
int rmaib_transport_forces_net(void);
int rmaib_transport_win_init(rmaib_win_t *win);
void rmaib_transport_win_fini(rmaib_win_t *win);
/* For the node backend, before its last agreement: the network's win_early where
 * the window's atomics go through it (RMAIB_OK otherwise). */
int rmaib_transport_win_early(rmaib_win_t *win);
/* A communicator's directory goes: the network backend's state in its slot. */
void rmaib_transport_dir_free(void *state);
void rmaib_transport_win_sync(rmaib_win_t *win);
void rmaib_transport_progress(void);
/* Does a backend move peers' requests only while this process polls it (a software
 * provider)?  Then a blocking call of the host MPI should poll while it waits. */
int rmaib_transport_wants_polling(void);
/* Around such a wait: this thread polls, so the progress thread need not. */
void rmaib_transport_poll_enter(void);
void rmaib_transport_poll_leave(void);

/* Dynamic windows: run every backend's attach/detach hook (see above).  Call attach
 * before the region enters the attach table and detach after it has left. */
int rmaib_transport_attach(rmaib_win_t *win, void *base, size_t size);
void rmaib_transport_detach(rmaib_win_t *win, const void *base);

/* Process-wide tear-down (the ofi endpoint and its progress thread); windows must
 * be gone.  Also registered with atexit when the endpoint comes up. */
void rmaib_transport_finalize(void);

#endif
