# The benchmark suite (bench/README.md). Plain MPI programs: built with the
# configured MPI compiler and NOT linked with rmaib (empty *_LDADD overrides the
# top-level LDADD), so the same binaries measure stock MPICH and, with
# LD_PRELOAD, rmaib. `make bench-compare` runs maint/bench-compare.

BENCH_COMMON = bench/osu_common.c bench/osu_common.h

bench_programs = \
	bench/osu_put_latency bench/osu_get_latency bench/osu_put_bw bench/osu_get_bw \
	bench/osu_put_bibw bench/osu_acc_latency bench/osu_get_acc_latency \
	bench/osu_fop_latency bench/osu_cas_latency \
	bench/lock_contention bench/lock_sync bench/epoch_cost bench/overlap bench/core3 \
	bench/flush_visible \
	bench/osu_allreduce bench/osu_allgather bench/osu_alltoall bench/coll_floor \
	bench/startup bench/ring_scale bench/win_churn

noinst_PROGRAMS += $(bench_programs)

bench_ring_scale_SOURCES = bench/ring_scale.c
bench_ring_scale_LDADD = $(MPI_LIBS)
bench_win_churn_SOURCES = bench/win_churn.c
bench_win_churn_LDADD = $(MPI_LIBS)
bench_osu_put_latency_SOURCES = bench/osu_put_latency.c $(BENCH_COMMON)
bench_osu_put_latency_LDADD = $(MPI_LIBS)
bench_osu_get_latency_SOURCES = bench/osu_get_latency.c $(BENCH_COMMON)
bench_osu_get_latency_LDADD = $(MPI_LIBS)
bench_osu_put_bw_SOURCES = bench/osu_put_bw.c $(BENCH_COMMON)
bench_osu_put_bw_LDADD = $(MPI_LIBS)
bench_osu_get_bw_SOURCES = bench/osu_get_bw.c $(BENCH_COMMON)
bench_osu_get_bw_LDADD = $(MPI_LIBS)
bench_osu_put_bibw_SOURCES = bench/osu_put_bibw.c $(BENCH_COMMON)
bench_osu_put_bibw_LDADD = $(MPI_LIBS)
bench_osu_acc_latency_SOURCES = bench/osu_acc_latency.c $(BENCH_COMMON)
bench_osu_acc_latency_LDADD = $(MPI_LIBS)
bench_osu_get_acc_latency_SOURCES = bench/osu_get_acc_latency.c $(BENCH_COMMON)
bench_osu_get_acc_latency_LDADD = $(MPI_LIBS)
bench_osu_fop_latency_SOURCES = bench/osu_fop_latency.c $(BENCH_COMMON)
bench_osu_fop_latency_LDADD = $(MPI_LIBS)
bench_osu_cas_latency_SOURCES = bench/osu_cas_latency.c $(BENCH_COMMON)
bench_osu_cas_latency_LDADD = $(MPI_LIBS)
bench_lock_contention_SOURCES = bench/lock_contention.c $(BENCH_COMMON)
bench_lock_contention_LDADD = $(MPI_LIBS)
bench_lock_sync_SOURCES = bench/lock_sync.c $(BENCH_COMMON)
bench_lock_sync_LDADD = $(MPI_LIBS)
bench_epoch_cost_SOURCES = bench/epoch_cost.c $(BENCH_COMMON)
bench_epoch_cost_LDADD = $(MPI_LIBS)
bench_flush_visible_SOURCES = bench/flush_visible.c $(BENCH_COMMON)
bench_flush_visible_LDADD = $(MPI_LIBS)
bench_overlap_SOURCES = bench/overlap.c $(BENCH_COMMON)
bench_overlap_LDADD = $(MPI_LIBS)
bench_core3_SOURCES = bench/core3.c $(BENCH_COMMON)
bench_core3_LDADD = $(MPI_LIBS)

# startup: MPI_Init and the first window; its libfabric floor needs the headers only
# (it opens libfabric with dlopen, as rmaib does).
bench_startup_SOURCES = bench/startup.c
bench_startup_CPPFLAGS = $(AM_CPPFLAGS) $(OFI_CFLAGS)
bench_startup_LDADD = $(MPI_LIBS) $(RMAIB_DL_LIBS)

BENCH_COLL = bench/osu_coll.c bench/osu_coll.h
bench_osu_allreduce_SOURCES = bench/osu_allreduce.c $(BENCH_COLL)
bench_osu_allreduce_LDADD = $(MPI_LIBS)
bench_osu_allgather_SOURCES = bench/osu_allgather.c $(BENCH_COLL)
bench_osu_allgather_LDADD = $(MPI_LIBS)
bench_osu_alltoall_SOURCES = bench/osu_alltoall.c $(BENCH_COLL)
bench_osu_alltoall_LDADD = $(MPI_LIBS)

# The provider's own round trip, a bare libfabric program (so only with libfabric).
if RMAIB_HAVE_OFI
noinst_PROGRAMS += bench/ofi_floor
bench_ofi_floor_SOURCES = bench/ofi_floor.c $(BENCH_COMMON)
bench_ofi_floor_LDADD = $(OFI_LIBS) $(MPI_LIBS)
else
EXTRA_DIST += bench/ofi_floor.c
endif

EXTRA_DIST += bench/README.md maint/bench-compare maint/bench-icount bench/startup.sh \
	bench/umem_compare.sh bench/scale.sh

# make bench-startup [BENCH_STARTUP_FLAGS=--reps 3]: bench/startup.sh.
BENCH_STARTUP_FLAGS =
bench-startup: bench/startup $(lib_LTLIBRARIES)
	$(SHELL) $(top_srcdir)/bench/startup.sh --builddir $(abs_top_builddir) $(BENCH_STARTUP_FLAGS)
.PHONY: bench-startup

# make bench-compare [BENCH_COMPARE_FLAGS=--quick]
BENCH_COMPARE_FLAGS =

# The library is built first; if that fails the rmaib column is skipped (and the
# report says why) rather than measured on a stale .so.
bench-compare: $(bench_programs)
	@if $(MAKE) $(AM_MAKEFLAGS) $(lib_LTLIBRARIES); then nr=; \
	else nr="building $(lib_LTLIBRARIES) failed"; fi; \
	$(SHELL) $(top_srcdir)/maint/bench-compare --builddir $(abs_top_builddir) \
	    $${nr:+--no-rmaib "$$nr"} $(BENCH_COMPARE_FLAGS)

bench-compare-quick:
	$(MAKE) $(AM_MAKEFLAGS) bench-compare BENCH_COMPARE_FLAGS="--quick $(BENCH_COMPARE_FLAGS)"

.PHONY: bench-compare bench-compare-quick

# The notified read against get + flush and the read-wait-notify emulation: it calls
# rmaib's MPIX_ extensions, so it links the library (the top-level LDADD).
noinst_PROGRAMS += bench/notify_latency
bench_notify_latency_SOURCES = bench/notify_latency.c

# Non-blocking collectives: latency and overlap (bench/osu_coll.h).
bench_programs += bench/osu_iallreduce bench/osu_iallgather bench/osu_ialltoall
bench_osu_iallreduce_SOURCES = bench/osu_iallreduce.c $(BENCH_COLL)
bench_osu_iallreduce_LDADD = $(MPI_LIBS)
bench_osu_iallgather_SOURCES = bench/osu_iallgather.c $(BENCH_COLL)
bench_osu_iallgather_LDADD = $(MPI_LIBS)
bench_osu_ialltoall_SOURCES = bench/osu_ialltoall.c $(BENCH_COLL)
bench_osu_ialltoall_LDADD = $(MPI_LIBS)
bench_coll_floor_SOURCES = bench/coll_floor.c
bench_coll_floor_LDADD = $(MPI_LIBS)
