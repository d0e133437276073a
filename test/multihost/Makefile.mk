# The multi-host test: part of the RMA suite across network namespaces bridged
# by veth pairs (see the script's header).  It needs root (CAP_NET_ADMIN) and
# reports a TAP skip with the reason where it cannot make the namespaces.
TESTS += test/multihost/netns_rma.sh
EXTRA_DIST += test/multihost/netns_rma.sh test/multihost/netns_lib.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = $(LOG_DRIVER)
SH_LOG_COMPILER = $(SHELL)
