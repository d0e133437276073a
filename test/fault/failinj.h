/* The allocation-failure injector of failinj.c (see there). */
#ifndef RMAIB_TEST_FAILINJ_H
#define RMAIB_TEST_FAILINJ_H

enum {
    FAILINJ_MALLOC = 1,         /* malloc, calloc, posix_memalign */
    FAILINJ_REALLOC = 2,
    FAILINJ_MMAP = 4,
    FAILINJ_SHM = 8,            /* shm_open, memfd_create */
    FAILINJ_MR = 16,            /* fi_mr_reg, through rmaib_fault_hook */
    FAILINJ_ALL = 31
};

/* 1 if it can inject here (an uninstrumented build, librmaib-mpi loaded). */
int failinj_usable(void);
/* Fail the nth call of these kinds that rmaib makes from now on (n >= 1). */
void failinj_arm(unsigned kinds, long n);
/* The same, counting only calls made inside function fn of rmaib (an exported
 * one: its name is looked up in the stack). */
void failinj_arm_within(unsigned kinds, long n, const char *fn);
/* Stop; 1 if a call failed since failinj_arm. */
int failinj_disarm(void);
/* rmaib's calls of the armed kinds since failinj_arm. */
long failinj_seen(void);

#endif
