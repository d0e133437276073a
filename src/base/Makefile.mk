# src/base: what every layer of the core uses: environment, back-off and clock,
# the host table, hashing, CPU atomics and reduction kernels.
librmaib_core_la_SOURCES += \
	src/base/config.h \
	src/base/config.c \
	src/base/backoff.h \
	src/base/backoff.c \
	src/base/host.c \
	src/base/hash.h \
	src/base/reduce.h \
	src/base/reduce.c \
	src/base/atomic_cpu.h \
	src/base/atomic_cpu.c \
	src/base/ptracer.h \
	src/base/ptracer.c \
	src/base/fault.h \
	src/base/fault.c
