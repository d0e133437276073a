# The network module: transport interface and backends.
librmaib_mpi_la_SOURCES += \
	src/mpid/ch4/netmod/rmaib/transport.h \
	src/mpid/ch4/netmod/rmaib/transport.c \
	src/mpid/ch4/netmod/rmaib/shm.c
