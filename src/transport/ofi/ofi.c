/*
 * The ofi backend: the network path, over one libfabric FI_EP_RDM endpoint per
 * process (FI_RMA | FI_ATOMIC), brought up at the first window that needs it and
 * kept until process exit (or rmaib_transport_finalize).  This file holds the
 * backend's state and its table of operations; the rest is by concept:
 *   endpoint.c  provider choice, start-up and tear-down, the atomic capability table
 *   cq.c        completions, the bounce ring, progress
 *   win.c       registration, addresses, window set-up, dynamic windows' key tables
 *   peer.c      per-peer state: the hellos kept as columns, a record at first access
 *   rma.c       put, get, flush
 *   atomic.c    control-word and window-data atomics with the provider's atomics
 *   amo.c       the same executed by the target from its mailbox (mailbox.c: the format)
 *
 * Completion counting.  Every operation carries a completion; there are no counters
 * (shm has none).  A put copies its data into a registered bounce ring, so the
 * origin buffer is free when put returns (the core reuses its temporaries at once),
 * and the ring block is the operation's context: it names the window's per-target
 * record, whose "done" count the completion bumps.  flush(peer) waits until done
 * reaches the count issued to that target.  Gets, fetching atomics and control-block
 * atomics are blocking: their context is a waiter on the caller's stack.  Whoever
 * reads the CQ (the caller, any wait loop, the progress thread; one at a time)
 * credits the right record, so no thread waits for another to hand its completions
 * over.
 *
 * Remote visibility.  Writes and non-fetching atomics ask for FI_DELIVERY_COMPLETE
 * where the provider offers it.  Where only FI_TRANSMIT_COMPLETE is offered, a flush
 * to a target written since its last read ends with an 8-byte read from that target
 * (reads are ordered after writes: FI_ORDER_RMA_RAW, checked at start-up).
 *
 * Memory registration.  The hints accept FI_MR_LOCAL, FI_MR_VIRT_ADDR,
 * FI_MR_ALLOCATED, FI_MR_PROV_KEY and FI_MR_ENDPOINT; whatever the provider keeps
 * set is honoured: target addresses are virtual or offsets from the region's start,
 * keys are the provider's or ours (a per-process counter), MRs are bound to the
 * endpoint and enabled, and with FI_MR_LOCAL every local buffer is in the bounce
 * ring, which is registered once.  Each window registers its memory and its control
 * block; dynamic windows register each attached region (the attach hook) and publish
 * the keys in a registered key table that origins read, with a generation count as
 * the core's attach table has.
 *
 * Atomics.  Control-block words use 64-bit FI_UINT64 atomics (fetch-add and
 * compare-swap are required, unless the provider has no atomics at all and the
 * mailbox carries every one; read, write and swap fall back to them).  For the
 * accumulate family a basic type is native only if the provider does every op MPI
 * allows on it, fetching and not, and compare-swap where MPI allows that, on
 * elements of at most 8 bytes: so one element never sees both a native and a locked
 * access.  The table is built once per endpoint with fi_*atomicvalid.
 *
 * Target-executed atomics.  Where the provider progresses in software and applies
 * atomics with the target's CPU anyway (tcp;ofi_rxm), control-word atomics skip its
 * atomic protocol: the origin injects a 32-byte request into a slot of the target
 * window's mailbox with fi_inject_writedata, the target's reaper applies it to the
 * word with a CPU atomic and injects the old value back with fi_inject_write, which
 * no completion announces: the origin's reapers look for the answers they await
 * after each read of the CQ (a completion costs tcp two system calls).  A release
 * nobody waits for (an unlock) is one message with no answer at all, where rxm
 * answers every atomic.  One fetched element of window data (fetch-and-op,
 * compare-and-swap) goes the same way, rxm's atomic round trip being dearer than two
 * injected writes (docs/performance.md).  One reaper at a time keeps one origin's
 * requests in the order it sent them.  A request mailbox.c refuses gets an
 * AMO_REFUSED answer, and the origin's call fails (a one-way request: its next flush
 * to that target).  RMAIB_OFI_ATOMICS=provider keeps rxm's atomics.  A provider with
 * no atomics (net) sends every atomic this way; accumulates in dynamic windows and on
 * types the CPU cannot update atomically take the core's locked path there.
 * Accumulates of several elements (there, and from AMO_RUN_MIN bytes everywhere)
 * go as runs: the operands put into the origin's stage in the target's mailbox, one
 * request applying them all (amo.c).
 */
#include "ofi_impl.h"

struct ofi_state ofi;

const rmaib_tp_ops_t rmaib_ofi_ops = {
    .name = "ofi",
    .reach = RMAIB_TP_NET,
    .start = rmaib_ofi_init,
    .failure = rmaib_ofi_failure,
    .atomics_on_cpu = rmaib_ofi_atomics_on_cpu,
    .local_only = rmaib_ofi_local_only,
    .wants_polling = rmaib_ofi_wants_polling,
    .poll_enter = rmaib_progress_thread_hold,
    .poll_leave = rmaib_progress_thread_release,
    .finalize = rmaib_ofi_finalize,
    .win_init = rmaib_ofi_win_init,
    .win_fini = rmaib_ofi_win_fini,
    .win_early = rmaib_ofi_win_early,
    .dir_free = rmaib_ofi_dir_free,
    .win_sync = rmaib_ofi_win_sync,
    .put = rmaib_ofi_put,
    .get = rmaib_ofi_get,
    .putv = rmaib_ofi_putv,
    .getv = rmaib_ofi_getv,
    .ctrl_atomic = rmaib_ofi_ctrl_atomic,
    .ctrl_store = rmaib_ofi_ctrl_store,
    .quiesce = rmaib_ofi_quiesce,
    .acc_native = rmaib_ofi_acc_native,
    .data_atomic = rmaib_ofi_data_atomic,
    .data_cas = rmaib_ofi_data_cas,
    .ctrl_read = rmaib_ofi_ctrl_read,
    .flush = rmaib_ofi_flush,
    .flush_local = rmaib_ofi_flush_local,
    .get_notify = rmaib_ofi_get_notify,
    .notify_add = rmaib_ofi_notify_add,
    .progress = rmaib_ofi_progress,
    .attach = rmaib_ofi_attach,
    .detach = rmaib_ofi_detach,
};
