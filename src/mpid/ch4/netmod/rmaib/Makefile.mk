##
## ch4:rmaib: the glue between ch4's netmod API and rmaib's netmod library
## (librmaib-nm.so, linked by path so that a change to rmaib rebuilds no MPICH).
##

if BUILD_CH4_NETMOD_RMAIB

noinst_HEADERS   += src/mpid/ch4/netmod/rmaib/rmaib_pre.h \
                    src/mpid/ch4/netmod/rmaib/netmod_inline.h \
                    src/mpid/ch4/netmod/rmaib/rmaib_noinline.h \
                    src/mpid/ch4/netmod/rmaib/rmaib_rma.h \
                    src/mpid/ch4/netmod/rmaib/rmaib_coll.h \
                    src/mpid/ch4/netmod/rmaib/rmaib_nm.h
mpi_core_sources += src/mpid/ch4/netmod/rmaib/rmaib_win.c \
                    src/mpid/ch4/netmod/rmaib/rmaib_rma.c \
                    src/mpid/ch4/netmod/rmaib/rmaib_coll.c

external_libs    += -L@rmaib_nm_libdir@ -lrmaib-nm
external_ldflags += -Wl,-rpath,@rmaib_nm_libdir@

endif
