# src/coll_overlay: collectives on rmaib's own windows.
librmaib_core_la_SOURCES += \
	src/coll_overlay/coll_impl.h \
	src/coll_overlay/coll.c \
	src/coll_overlay/sched.c \
	src/coll_overlay/allreduce.c \
	src/coll_overlay/allgather.c \
	src/coll_overlay/alltoall.c \
	src/coll_overlay/dpml.c \
	src/coll_overlay/cma.c \
	src/coll_overlay/cma_allreduce.c \
	src/coll_overlay/dissem.c
noinst_HEADERS += src/include/rmaib_coll.h
