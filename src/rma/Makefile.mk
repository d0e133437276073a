# src/rma: windows, epochs, Put/Get, the accumulate family, fence, post/start/complete/wait.
librmaib_core_la_SOURCES += \
	src/rma/rma_impl.h \
	src/rma/rma_fast.h \
	src/rma/init.c \
	src/rma/win.c \
	src/rma/win_exchange.c \
	src/rma/epoch.c \
	src/rma/stream.h \
	src/rma/putget.c \
	src/rma/acc.c \
	src/rma/fence.c \
	src/rma/pscw.c \
	src/rma/notify.c
