/* The fault-injection hook of fault.h: set only by tests. */
#include "base/fault.h"

int (*rmaib_fault_hook)(int what);
