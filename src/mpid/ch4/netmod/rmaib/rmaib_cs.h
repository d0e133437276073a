/*
 * Leaving MPICH's critical section around a call into rmaib.
 *
 * Under MPI_THREAD_MULTIPLE MPICH 4.0.2 holds one global lock through every MPI
 * call.  rmaib, called from inside one, calls MPI itself (PMPI_, when it makes a
 * window or a collective's window), which would take that lock again: MPICH
 * asserts.  And rmaib waits for its peers (a lock, a flush, a collective), which
 * with the lock held would stop every other thread of the process, the one that
 * would release a lock this one waits for included.  rmaib's own state is
 * thread-safe, so its calls run outside MPICH's lock, as MPICH's progress engine
 * yields it while it waits.  Without threads the macros cost one branch.
 */
#ifndef RMAIB_CS_H_INCLUDED
#define RMAIB_CS_H_INCLUDED

#include "mpidimpl.h"

/* The value of expr (an int), computed outside MPICH's global critical section. */
#define RMAIB_NM_OUTSIDE_CS(expr) ({                                        \
            MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);  \
            int outside_rc_ = (expr);                                       \
            MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX); \
            outside_rc_;                                                    \
        })

#endif
