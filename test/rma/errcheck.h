/*
 * Error-class checks: the class of a return code, its name for a diagnostic, and
 * EXPECT_CLASS / EXPECT_OK, which record a failure (tap.h) unless a call returned
 * the class the standard requires.
 */
#ifndef RMAIB_TEST_ERRCHECK_H
#define RMAIB_TEST_ERRCHECK_H

#include <stdio.h>
#include "tap.h"

/* The error class of a return code (MPI_SUCCESS stays MPI_SUCCESS). */
static inline int errclass_of(int rc)
{
    int c = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    return c;
}

static inline const char *errclass_name(int c)
{
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RMA_SYNC: return "MPI_ERR_RMA_SYNC";
    case MPI_ERR_RMA_RANGE: return "MPI_ERR_RMA_RANGE";
    case MPI_ERR_RMA_ATTACH: return "MPI_ERR_RMA_ATTACH";
    case MPI_ERR_RMA_FLAVOR: return "MPI_ERR_RMA_FLAVOR";
    case MPI_ERR_RMA_CONFLICT: return "MPI_ERR_RMA_CONFLICT";
    case MPI_ERR_RMA_SHARED: return "MPI_ERR_RMA_SHARED";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_OP: return "MPI_ERR_OP";
    case MPI_ERR_LOCKTYPE: return "MPI_ERR_LOCKTYPE";
    case MPI_ERR_ASSERT: return "MPI_ERR_ASSERT";
    case MPI_ERR_GROUP: return "MPI_ERR_GROUP";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_DISP: return "MPI_ERR_DISP";
    case MPI_ERR_WIN: return "MPI_ERR_WIN";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_SIZE: return "MPI_ERR_SIZE";
    default: return "another class";
    }
}

/* Record a failure unless `rc` has class `want`; the rest (printf-style) names the call. */
#define EXPECT_CLASS(rc, want, ...) do {                                                \
        int ec_got_ = errclass_of(rc);                                                  \
        if (ec_got_ != (want)) {                                                        \
            char ec_what_[200];                                                         \
            snprintf(ec_what_, sizeof ec_what_, __VA_ARGS__);                           \
            tap_fail("%s returned %s (%d), expected %s", ec_what_,                      \
                     errclass_name(ec_got_), ec_got_, errclass_name(want));             \
        }                                                                               \
    } while (0)

/* Record a failure unless `rc` is MPI_SUCCESS. */
#define EXPECT_OK(rc, ...) EXPECT_CLASS((rc), MPI_SUCCESS, __VA_ARGS__)

#endif
