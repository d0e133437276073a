# fishim: a stand-in libfabric that bends what providers report (fishim.c), loaded
# by tests through RMAIB_OFI_LIBRARY=test/ofi_shim/.libs/libfishim.so.
if RMAIB_HAVE_OFI
check_LTLIBRARIES += test/ofi_shim/libfishim.la
endif
test_ofi_shim_libfishim_la_SOURCES = test/ofi_shim/fishim.c
test_ofi_shim_libfishim_la_CPPFLAGS = $(OFI_CFLAGS)
test_ofi_shim_libfishim_la_LDFLAGS = -module -avoid-version -rpath /nowhere
test_ofi_shim_libfishim_la_LIBADD = $(RMAIB_DL_LIBS)
