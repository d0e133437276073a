# src/transport: the transport interface and its backends.
librmaib_core_la_SOURCES += \
	src/transport/transport.h \
	src/transport/transport.c \
	src/transport/peer.c \
	src/transport/rank_map.h \
	src/transport/rank_map.c \
	src/transport/shm_impl.h \
	src/transport/shm.c \
	src/transport/shm_acc.c \
	src/transport/shm_dyn.c \
	src/transport/shm_seg.c \
	src/transport/umem.h \
	src/transport/umem.c

# The ofi backend, when configure found libfabric (pkg-config libfabric): built
# against its headers, but not linked to it; loader.c opens it at the first window
# that needs the network.
ofi_sources = \
	src/transport/ofi/ofi.h \
	src/transport/ofi/ofi_impl.h \
	src/transport/ofi/loader.h \
	src/transport/ofi/loader.c \
	src/transport/ofi/ofi.c \
	src/transport/ofi/endpoint.c \
	src/transport/ofi/cq.c \
	src/transport/ofi/win.c \
	src/transport/ofi/peer.c \
	src/transport/ofi/rma.c \
	src/transport/ofi/nread.c \
	src/transport/ofi/atomic.c \
	src/transport/ofi/amo.c \
	src/transport/ofi/mailbox.h \
	src/transport/ofi/mailbox.c \
	src/transport/ofi/progress_thread.c \
	src/transport/ofi/sock_wait.c
if RMAIB_HAVE_OFI
librmaib_core_la_SOURCES += $(ofi_sources)
librmaib_core_la_CPPFLAGS += $(OFI_CFLAGS)
librmaib_core_la_LIBADD += $(RMAIB_DL_LIBS)
else
EXTRA_DIST += $(ofi_sources)
endif
