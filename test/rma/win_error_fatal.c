/*
 * With the default error handler (MPI_ERRORS_ARE_FATAL) an RMA error ends the job.
 * Rank 0 runs this program again as a separate singleton MPI process (posix_spawn
 * of /proc/self/exe with the launcher's PMI_* variables removed from the
 * environment, so the child does not join this job).  The child creates a window on
 * MPI_COMM_SELF, checks that its error handler is MPI_ERRORS_ARE_FATAL, and puts to
 * rank 5 (out of range).  The child must not get past that call: it must die or exit
 * with a non-zero status, and must not report that it survived.
 */
#include <spawn.h>
#include <sys/wait.h>
#include "tap.h"

extern char **environ;

static int child(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int x = 1, *b;
    MPI_Win w;
    MPI_Errhandler eh;
    MPI_Win_allocate(sizeof(int), 1, MPI_INFO_NULL, MPI_COMM_SELF, &b, &w);
    MPI_Win_get_errhandler(w, &eh);
    if (eh != MPI_ERRORS_ARE_FATAL) {
        printf("child: window error handler is not MPI_ERRORS_ARE_FATAL\n");
        return 3;
    }
    MPI_Win_lock_all(0, w);
    int rc = MPI_Put(&x, 1, MPI_INT, 5, 0, 1, MPI_INT, w);
    printf("child: survived MPI_Put to rank 5 (rc %d)\n", rc);
    fflush(stdout);
    MPI_Win_unlock_all(w);
    MPI_Win_free(&w);
    MPI_Finalize();
    return 0;
}

/* The environment minus what would make the child join the running job. */
static char **child_env(void)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *e = environ[i];
        if (strncmp(e, "PMI_", 4) == 0 || strncmp(e, "PMIX_", 5) == 0 || strncmp(e, "HYDI_", 5) == 0
            || strncmp(e, "HYDRA_", 6) == 0 || strncmp(e, "MPI_LOCAL", 9) == 0
            || strncmp(e, "OMPI_", 5) == 0)
            continue;
        env[k++] = (char *) e;
    }
    return env;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--child") == 0)
        return child(argc, argv);

    tap_init(&argc, &argv);
    if (tap_rank == 0) {
        char *cargv[] = { argv[0], "--child", NULL };
        char **env = child_env();
        pid_t pid;
        int st = 0, rc = posix_spawn(&pid, "/proc/self/exe", NULL, NULL, cargv, env);
        TAP_CHECK(rc == 0, "posix_spawn failed: %s", strerror(rc));
        if (rc == 0) {
            int done = 0;
            for (int i = 0; i < 60 * 200 && !done; i++) {
                pid_t w = waitpid(pid, &st, WNOHANG);
                if (w == pid)
                    done = 1;
                else
                    usleep(5000);
            }
            if (!done) {
                kill(pid, SIGKILL);
                waitpid(pid, &st, 0);
                TAP_CHECK(0, "the child neither died nor finished within 60 s");
            } else if (WIFEXITED(st)) {
                TAP_CHECK(WEXITSTATUS(st) != 0, "the child survived the bad MPI_Put and exited 0");
                TAP_CHECK(WEXITSTATUS(st) != 3, "the child's window handler was not MPI_ERRORS_ARE_FATAL");
                printf("# child exited with status %d\n", WEXITSTATUS(st));
            } else if (WIFSIGNALED(st)) {
                printf("# child killed by signal %d\n", WTERMSIG(st));
            }
        }
        free(env);
    }
    tap_ok("an RMA error under MPI_ERRORS_ARE_FATAL ends the process");
    return tap_done();
}
