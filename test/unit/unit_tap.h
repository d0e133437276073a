/*
 * TAP for the unit tests, which run as one process without MPI: tap() prints one
 * "ok"/"not ok" line per check; main prints the plan ("1..tap_n") at the end and
 * exits non-zero when tap_bad is.
 */
#ifndef RMAIB_TEST_UNIT_TAP_H
#define RMAIB_TEST_UNIT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_n, tap_bad;

static void tap(int cond, const char *fmt, ...)
{
    va_list ap;
    printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    if (!cond)
        tap_bad++;
}

#endif
