# The RMA suite: one TAP program per feature.  Rank counts and environment for each
# run are in test/rma/testlist, which test/run-test reads.

rma_tests =

# --- block A: windows, data movement, attributes, errors ---
rma_tests += test/rma/win_create
rma_tests += test/rma/win_create_mapped
rma_tests += test/rma/win_create_subpage
rma_tests += test/rma/win_allocate
rma_tests += test/rma/win_allocate_shared
rma_tests += test/rma/win_dynamic
rma_tests += test/rma/win_dynamic_adjacent_regions
rma_tests += test/rma/win_dynamic_mapped
rma_tests += test/rma/win_size_zero
rma_tests += test/rma/win_comm_self
rma_tests += test/rma/win_many
rma_tests += test/rma/win_create_calls
rma_tests += test/rma/win_split_comm
rma_tests += test/rma/win_attrs_predefined
rma_tests += test/rma/win_keyval
rma_tests += test/rma/win_name
rma_tests += test/rma/win_info
rma_tests += test/rma/win_set_info
rma_tests += test/rma/win_group
rma_tests += test/rma/win_errhandler
rma_tests += test/rma/win_error_fatal
rma_tests += test/rma/put_get_contig
rma_tests += test/rma/put_derived_types
rma_tests += test/rma/get_derived_types
rma_tests += test/rma/put_get_struct_mixed
rma_tests += test/rma/rput_rget_requests
rma_tests += test/rma/put_get_count_zero
rma_tests += test/rma/put_get_self
rma_tests += test/rma/put_get_proc_null
rma_tests += test/rma/put_get_large
rma_tests += test/rma/large_count_calls
rma_tests += test/rma/put_get_c_above_2g
rma_tests += test/rma/put_get_disp_unit
rma_tests += test/rma/put_get_unaligned
rma_tests += test/rma/accumulate_zero_size
rma_tests += test/rma/err_sync
rma_tests += test/rma/err_args
rma_tests += test/rma/err_range
rma_tests += test/rma/err_attach_flavor
rma_tests += test/rma/preload_verbose
test_rma_preload_verbose_LDADD = librmaib-mpi.la $(MPI_LIBS) -ldl
# --- end of block A ---

# --- block B: synchronisation (locks, fence, post/start/complete/wait) ---
rma_tests += test/rma/lock_counter
rma_tests += test/rma/lock_rw_overlap
rma_tests += test/rma/lock_writer_not_starved
rma_tests += test/rma/lock_shared_across_barrier
rma_tests += test/rma/lock_mcs_handover
rma_tests += test/rma/lock_mcs_many_targets
rma_tests += test/rma/lock_all_basic
rma_tests += test/rma/lock_all_on_demand
rma_tests += test/rma/lock_mixed
rma_tests += test/rma/target_computes_without_mpi
rma_tests += test/rma/fence_epochs
rma_tests += test/rma/pscw_epochs
rma_tests += test/rma/sync_errors
# --- end of block B ---

# --- block C: the accumulate family ---
rma_tests += test/rma/acc_all_type_op_pairs
rma_tests += test/rma/acc_derived_types
rma_tests += test/rma/acc_errors
rma_tests += test/rma/acc_fop_concurrent
rma_tests += test/rma/acc_ordering
rma_tests += test/rma/acc_overlapping_ranges
rma_tests += test/rma/acc_ticket_lock
rma_tests += test/rma/acc_long_runs
rma_tests += test/rma/get_accumulate_noop_consistent
# --- end of block C ---

# --- block D: the ofi backend (configuration errors, the progress thread) ---
rma_tests += test/rma/ofi_bad_config
rma_tests += test/rma/ofi_unreachable
rma_tests += test/rma/ofi_loaded_on_demand
rma_tests += test/rma/progress_thread_idle
rma_tests += test/rma/target_in_host_wait
rma_tests += test/rma/flush_delivers
rma_tests += test/rma/ofi_refused_atomic
rma_tests += test/rma/host_coll_subset
# --- end of block D ---

# --- block T: MPI_THREAD_MULTIPLE on one window ---
rma_tests += test/rma/threads_fop_lock_all
rma_tests += test/rma/threads_lock_per_target
rma_tests += test/rma/threads_active_target
test_rma_threads_fop_lock_all_CFLAGS = $(AM_CFLAGS) -pthread
test_rma_threads_fop_lock_all_LDFLAGS = $(AM_LDFLAGS) -pthread
test_rma_threads_lock_per_target_CFLAGS = $(AM_CFLAGS) -pthread
test_rma_threads_lock_per_target_LDFLAGS = $(AM_LDFLAGS) -pthread
test_rma_threads_active_target_CFLAGS = $(AM_CFLAGS) -pthread
test_rma_threads_active_target_LDFLAGS = $(AM_LDFLAGS) -pthread
# --- end of block T ---

# --- block N: notified RMA (MPIX_, mpix_rmaib.h) ---
rma_tests += test/rma/notify_put_counts
rma_tests += test/rma/notify_get
rma_tests += test/rma/notify_concurrent_adds
rma_tests += test/rma/notify_errors
rma_tests += test/rma/notify_waitsome
rma_tests += test/rma/notify_requests
rma_tests += test/rma/notify_read_inflight
rma_tests += test/rma/notify_read_kinds
rma_tests += test/rma/bfs_validate
test_rma_bfs_validate_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples/bfs
test_rma_bfs_validate_SOURCES = test/rma/bfs_validate.c examples/bfs/graph.c examples/bfs/bfs.c \
	examples/bfs/bfs_p2p.c examples/bfs/validate.c
# --- end of block N ---

check_PROGRAMS += $(rma_tests)
TESTS += $(rma_tests)
EXTRA_DIST += test/rma/tap.h test/rma/testlist
EXTRA_DIST += test/rma/pages.h test/rma/pattern.h test/rma/wait.h test/rma/errcheck.h test/rma/windows.h \
	test/rma/dtypes.h test/rma/derived_pairs.h test/rma/notify_windows.h \
	test/rma/thread_jobs.h
