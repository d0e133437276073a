/*
 * A test's hook into the calls rmaib cannot see interposed: libfabric's inline
 * fi_mr_reg.  NULL in a normal run; test/fault/failinj.c points it at its
 * injector, which answers 1 to make the call fail as if memory had run out.
 */
#ifndef RMAIB_BASE_FAULT_H
#define RMAIB_BASE_FAULT_H

enum { RMAIB_FAULT_MR_REG = 1 };

extern int (*rmaib_fault_hook)(int what);

static inline int rmaib_fault(int what)
{
    return rmaib_fault_hook && rmaib_fault_hook(what);
}

#endif
