# src/rma: windows, epochs, Put/Get, the accumulate family, fence, post/start/complete/wait.
librmaib_mpi_la_SOURCES += \
	src/rma/config.c \
	src/rma/win.c \
	src/rma/epoch.c \
	src/rma/stream.h \
	src/rma/putget.c \
	src/rma/reduce.h \
	src/rma/reduce.c \
	src/rma/atomic_cpu.h \
	src/rma/atomic_cpu.c \
	src/rma/acc.c \
	src/rma/fence.c \
	src/rma/pscw.c
