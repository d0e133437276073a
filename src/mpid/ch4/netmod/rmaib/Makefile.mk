# The network module: transport interface and backends.
librmaib_mpi_la_SOURCES += \
	src/mpid/ch4/netmod/rmaib/transport.h \
	src/mpid/ch4/netmod/rmaib/transport.c \
	src/mpid/ch4/netmod/rmaib/shm.c

# The ofi backend, when configure found libfabric (pkg-config libfabric).
if RMAIB_HAVE_OFI
librmaib_mpi_la_SOURCES += \
	src/mpid/ch4/netmod/rmaib/ofi.h \
	src/mpid/ch4/netmod/rmaib/ofi.c \
	src/mpid/ch4/netmod/rmaib/mailbox.h \
	src/mpid/ch4/netmod/rmaib/mailbox.c \
	src/mpid/ch4/netmod/rmaib/progress_thread.c \
	src/mpid/ch4/netmod/rmaib/sock_wait.c
AM_CPPFLAGS += $(OFI_CFLAGS)
librmaib_mpi_la_LIBADD += $(OFI_LIBS)
else
EXTRA_DIST += \
	src/mpid/ch4/netmod/rmaib/ofi.h \
	src/mpid/ch4/netmod/rmaib/ofi.c \
	src/mpid/ch4/netmod/rmaib/mailbox.h \
	src/mpid/ch4/netmod/rmaib/mailbox.c \
	src/mpid/ch4/netmod/rmaib/progress_thread.c \
	src/mpid/ch4/netmod/rmaib/sock_wait.c
endif
