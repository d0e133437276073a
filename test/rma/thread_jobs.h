/*
 * What the threads of the thread tests record: a job's first failure and how many
 * there were, for the main thread to report after the join (tap.h's checks are the
 * main thread's).  A job is any struct with int id, int fails and char why[].
 */
#ifndef RMAIB_TEST_THREAD_JOBS_H
#define RMAIB_TEST_THREAD_JOBS_H

#include <stdio.h>

#define JOB_FAIL(j, ...) do { \
        if ((j)->fails++ == 0) snprintf((j)->why, sizeof (j)->why, __VA_ARGS__); \
    } while (0)
#define JOB_OK(j, call) do { \
        int rc_ = (call); \
        if (rc_ != MPI_SUCCESS) \
            JOB_FAIL(j, "thread %d: %s returned %d", (j)->id, #call, rc_); \
    } while (0)

#endif
