/*
 * One rank dies at a chosen point of an RMA protocol; test/fault/faults.sh runs
 * it and checks that the job ends, fails, and leaves nothing of rmaib's behind.
 *
 *   victim MODE
 *
 * Every rank first writes its pid to $RMAIB_FAULT_DIR/pid.RANK (the script's list
 * of the job's processes).  Rank 1 is the victim unless said otherwise; the other
 * ranks then wait for it in the protocol, where only the launcher can end them.
 *
 *   lock      the victim holds an exclusive lock on rank 0 and dies; the others ask
 *             for the same lock
 *   fence     every rank puts and fences in a loop; a timer kills the victim, most
 *             likely inside a fence, where the others wait for it
 *   pscw      the victim dies between MPI_Win_start and MPI_Win_complete; rank 0
 *             waits for its completion
 *   progress  rank 0 computes without calling MPI while its progress thread serves
 *             rank 1's puts, and dies after 100 of them landed (RMAIB_ASYNC_PROGRESS=1)
 *   create    every rank creates and frees windows in a loop; a timer kills rank 0,
 *             the node's leader, which makes each window's shared segment
 *   abort     as lock, but the victim calls MPI_Abort
 *
 * It never prints TAP: the script judges the job from outside.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

enum { WIN_INTS = 1024 };

static void die(void)
{
    fflush(NULL);
    kill(getpid(), SIGKILL);
    for (;;)
        pause();
}

static void on_timer(int sig)
{
    (void) sig;
    kill(getpid(), SIGKILL);
}

/* SIGKILL this process in us microseconds, wherever it is then. */
static void arm_timer(long us)
{
    struct itimerval t = { { 0, 0 }, { us / 1000000, us % 1000000 } };
    signal(SIGALRM, on_timer);
    setitimer(ITIMER_REAL, &t, NULL);
}

static void nap_us(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static void write_pid(int rank)
{
    const char *dir = getenv("RMAIB_FAULT_DIR");
    char path[4096];
    if (!dir)
        return;
    snprintf(path, sizeof path, "%s/pid.%d", dir, rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", (int) getpid());
        fclose(f);
    }
}

static MPI_Win make_win(int **buf)
{
    MPI_Win win;
    MPI_Win_allocate(WIN_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, buf, &win);
    memset(*buf, 0, WIN_INTS * sizeof(int));
    MPI_Barrier(MPI_COMM_WORLD);
    return win;
}

/* The victim holds the exclusive lock on rank 0 when everybody leaves the barrier. */
static void mode_lock(int rank, int do_abort)
{
    int *buf, one = 1;
    MPI_Win win = make_win(&buf);
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (do_abort)
            MPI_Abort(MPI_COMM_WORLD, 3);
        die();
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);   /* never granted */
    MPI_Win_unlock(0, win);
}

static void mode_fence(int rank, int size)
{
    int *buf;
    MPI_Win win = make_win(&buf);
    if (rank == 1) {
        arm_timer(300000);
    }
    MPI_Win_fence(0, win);
    for (int e = 1;; e++) {
        MPI_Put(&e, 1, MPI_INT, (rank + 1) % size, rank, 1, MPI_INT, win);
        MPI_Win_fence(0, win);
    }
}

static void mode_pscw(int rank)
{
    int *buf, one = 1, zero = 0;
    MPI_Win win = make_win(&buf);
    MPI_Group world, g0, g1;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, 1, &zero, &g0);
    MPI_Group_incl(world, 1, &one, &g1);
    if (rank == 0) {
        MPI_Win_post(g1, 0, win);
        MPI_Win_wait(win);                      /* never completed */
    } else if (rank == 1) {
        MPI_Win_start(g0, 0, win);
        MPI_Put(&one, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        die();
    }
    MPI_Barrier(MPI_COMM_WORLD);                /* the others wait here */
}

static void mode_progress(int rank)
{
    int *buf;
    MPI_Win win = make_win(&buf);
    if (rank == 0) {
        /* Compute: the progress thread alone serves rank 1's puts. */
        while (__atomic_load_n(&buf[0], __ATOMIC_ACQUIRE) < 100)
            nap_us(1000);
        die();
    }
    if (rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int i = 1;; i++) {
            MPI_Put(&i, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_flush(0, win);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void mode_create(int rank)
{
    int *buf;
    MPI_Win win;
    if (rank == 0)
        arm_timer(150000);
    for (;;) {
        MPI_Win_allocate(WIN_INTS * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                         &buf, &win);
        MPI_Win_free(&win);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "";
    if (size < 2) {
        fprintf(stderr, "victim: needs 2 ranks or more\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    write_pid(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!strcmp(mode, "lock"))
        mode_lock(rank, 0);
    else if (!strcmp(mode, "abort"))
        mode_lock(rank, 1);
    else if (!strcmp(mode, "fence"))
        mode_fence(rank, size);
    else if (!strcmp(mode, "pscw"))
        mode_pscw(rank);
    else if (!strcmp(mode, "progress"))
        mode_progress(rank);
    else if (!strcmp(mode, "create"))
        mode_create(rank);
    else {
        fprintf(stderr, "victim: unknown mode '%s'\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Only a survivor that the fault did not stop gets here: the script fails it. */
    fprintf(stderr, "victim: rank %d finished mode %s\n", rank, mode);
    MPI_Finalize();
    return 0;
}
