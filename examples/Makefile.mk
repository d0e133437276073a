# The demo: an ordinary MPI RMA program, built with the MPI compiler and NOT
# linked with rmaib; `make demo` runs it under stock MPICH and again with
# librmaib-mpi preloaded, and compares (examples/run-demo).

noinst_PROGRAMS += examples/rma_demo
examples_rma_demo_SOURCES = examples/rma_demo.c
examples_rma_demo_LDADD = $(MPI_LIBS)

EXTRA_DIST += examples/run-demo

# DEMO_NP: ranks; empty for as many as there are cores.
DEMO_NP =
DEMO_ARGS =

# The library is built first; if that fails the stock run still happens and the
# rmaib half is reported as failed (run-demo --lib-failed), never run on a stale .so.
demo: examples/rma_demo
	@lib_ok=yes; $(MAKE) $(AM_MAKEFLAGS) $(lib_LTLIBRARIES) || lib_ok=no; \
	$(SHELL) $(top_srcdir)/examples/run-demo --builddir $(abs_top_builddir) \
	    --demo $(abs_top_builddir)/examples/rma_demo --mpiexec $(MPIEXEC) $(DEMO_NP:%=-n %) \
	    `test $$lib_ok = yes || echo --lib-failed` -- $(DEMO_ARGS)

.PHONY: demo

# rmaib-bfs: Graph500-style BFS on notified reads (installed; examples/bfs/main.c).
bin_PROGRAMS += examples/bfs/rmaib-bfs
examples_bfs_rmaib_bfs_SOURCES = examples/bfs/main.c examples/bfs/graph.c examples/bfs/bfs.c \
	examples/bfs/bfs_p2p.c examples/bfs/validate.c examples/bfs/bfs.h
examples_bfs_rmaib_bfs_LDFLAGS = $(RMAIB_NO_AS_NEEDED) $(RMAIB_SAN_LDFLAGS)
