/*
 * The start of the harnesses that need MPI (info, layout): a singleton MPI_Init
 * before the first input, so that what MPI keeps from it is no input's leak, with
 * errors returned, and MPI_Finalize at exit.
 */
#include <stdlib.h>
#include <mpi.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
const char *__asan_default_options(void);

/* What MPICH's UCX leaves allocated at exit (some of it in modules it unloaded)
 * is not rmaib's: only libFuzzer's leak check of each input counts. */
const char *__asan_default_options(void)
{
    return "leak_check_at_exit=0";
}

static void finalize(void)
{
    MPI_Finalize();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void) argc;
    (void) argv;
    MPI_Init(NULL, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    atexit(finalize);
    return 0;
}
