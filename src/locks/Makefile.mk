# src/locks: passive-target locks on remote atomics.
librmaib_core_la_SOURCES += \
	src/locks/lock.c \
	src/locks/lock_fast.h \
	src/locks/tas.c \
	src/locks/mcs.c \
	src/locks/lock_all.c
