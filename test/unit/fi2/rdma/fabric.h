/*
 * libfabric 2.x's headers, as far as the loader can tell: the real fabric.h with
 * a major version of 2 (test/unit/fi_loader.c).
 */
#ifndef RMAIB_TEST_FI2_FABRIC_H
#define RMAIB_TEST_FI2_FABRIC_H
#include_next <rdma/fabric.h>
#undef FI_MAJOR_VERSION
#undef FI_MINOR_VERSION
#define FI_MAJOR_VERSION 2
#define FI_MINOR_VERSION 1
#endif
