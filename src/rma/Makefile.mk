# src/rma: windows, epochs, Put/Get, fence, post/start/complete/wait.
librmaib_mpi_la_SOURCES += \
	src/rma/config.c \
	src/rma/win.c \
	src/rma/epoch.c \
	src/rma/putget.c \
	src/rma/fence.c \
	src/rma/pscw.c
