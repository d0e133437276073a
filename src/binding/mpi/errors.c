/*
 * rmaib's errors as MPI error classes, raised through the window's or
 * communicator's error handler.
 */
#include <pthread.h>
#include <stddef.h>
#include "errors.h"
#include "rmaib_host.h"
#include "base/config.h"

static const struct {
    int cls;
    const char *msg;
} table[] = {
    [RMAIB_OK] = { MPI_SUCCESS, NULL },
    [RMAIB_ERR_ARG] = { MPI_ERR_ARG, "rmaib: invalid argument" },
    [RMAIB_ERR_RANK] = { MPI_ERR_RANK, "rmaib: rank outside the window's group" },
    [RMAIB_ERR_COUNT] = { MPI_ERR_COUNT, "rmaib: negative count" },
    [RMAIB_ERR_TYPE] = { MPI_ERR_TYPE, "rmaib: invalid datatype, or origin and target data differ in size" },
    [RMAIB_ERR_DISP] = { MPI_ERR_DISP, "rmaib: invalid displacement unit" },
    [RMAIB_ERR_SIZE] = { MPI_ERR_SIZE, "rmaib: invalid window size" },
    [RMAIB_ERR_OP] = { MPI_ERR_OP, "rmaib: operation not allowed for this datatype or call" },
    [RMAIB_ERR_LOCKTYPE] = { MPI_ERR_LOCKTYPE, "rmaib: lock type is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE" },
    [RMAIB_ERR_ASSERT] = { MPI_ERR_ASSERT, "rmaib: assertion bits not valid for this call" },
    [RMAIB_ERR_RMA_SYNC] = { MPI_ERR_RMA_SYNC, "rmaib: call not allowed in the window's current epoch" },
    [RMAIB_ERR_RMA_RANGE] = { MPI_ERR_RMA_RANGE, "rmaib: access outside the target's window (nothing was written)" },
    [RMAIB_ERR_RMA_ATTACH] = { MPI_ERR_RMA_ATTACH, "rmaib: region overlaps an attached one, is not attached, or the table is full" },
    [RMAIB_ERR_RMA_FLAVOR] = { MPI_ERR_RMA_FLAVOR, "rmaib: call not valid for this window flavor" },
    [RMAIB_ERR_RMA_SHARED] = { MPI_ERR_RMA_SHARED, "rmaib: the ranks of a shared-memory window cannot share memory" },
    [RMAIB_ERR_NO_MEM] = { MPI_ERR_NO_MEM, "rmaib: out of memory or shared-memory space" },
    [RMAIB_ERR_TRANSPORT] = { MPI_ERR_OTHER, "rmaib: no transport reaches a peer, or a transport failed" },
    [RMAIB_ERR_INTERN] = { MPI_ERR_INTERN, "rmaib: internal error" },
    /* the class itself is made at run time (rmaib_mpi_notify_class) */
    [RMAIB_ERR_RMA_NOTIFY] = { MPI_ERR_OTHER, "rmaib: notification index outside the counters in use" },
};

enum { NERR = sizeof table / sizeof table[0] };

static int notify_code(void);

/* The error class itself is the code: MPICH 4.0.2 garbles the message of a code made
 * with MPI_Add_error_code on a predefined class, so rmaib's own text goes to stderr
 * under RMAIB_VERBOSE instead. */
int rmaib_mpi_code(int rerr)
{
    if (rerr == RMAIB_OK)
        return MPI_SUCCESS;
    if (rerr < 0 || rerr >= NERR)
        rerr = RMAIB_ERR_INTERN;
    if (rmaib_config.verbose)
        rmaib_host_say("%s", table[rerr].msg);
    if (rerr == RMAIB_ERR_RMA_NOTIFY)
        return notify_code();
    return table[rerr].cls;
}

/* In librmaib-nm (RMAIB_NETMOD) MPICH's MPI_ layer raises the code it is returned. */
int rmaib_mpi_win_error(rmaib_mpi_win_t *bw, int code)
{
#ifndef RMAIB_NETMOD
    PMPI_Win_call_errhandler(bw->shadow, code);
#else
    (void) bw;
#endif
    return code;
}

int rmaib_mpi_win_fail(MPI_Win win, int rerr)
{
    rmaib_mpi_win_t *bw = rmaib_mpi_win_find(win);
    return bw ? rmaib_mpi_win_error(bw, rmaib_mpi_code(rerr))
        : rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_WIN);
}

int rmaib_mpi_comm_error(MPI_Comm comm, int code)
{
#ifndef RMAIB_NETMOD
    PMPI_Comm_call_errhandler(comm == MPI_COMM_NULL ? MPI_COMM_WORLD : comm, code);
#else
    (void) comm;
#endif
    return code;
}

/* MPIX_ERR_RMA_NOTIFICATION: a class of its own, made by MPI_Add_error_class at the
 * first window (every process creates its first window in the same collective call,
 * so all get the same value) or when the user first asks for it. */
static int notify_class = -1, notify_code_ = -1;
static pthread_mutex_t notify_class_lock = PTHREAD_MUTEX_INITIALIZER;

int rmaib_mpi_notify_class(void)
{
    pthread_mutex_lock(&notify_class_lock);
    if (notify_class < 0) {
        int cls;
        if (PMPI_Add_error_class(&cls) == MPI_SUCCESS) {
            PMPI_Add_error_string(cls, "MPIX_ERR_RMA_NOTIFICATION: notification index "
                                  "outside the counters set by MPIX_Win_set_num_notify");
            notify_class = cls;
            notify_code_ = cls;
#ifdef OPEN_MPI
            /* Open MPI keeps codes apart from classes: an added class is no code
             * (MPI_Error_class gives MPI_ERR_UNKNOWN for it), so it gets one. */
            int code;
            if (PMPI_Add_error_code(cls, &code) == MPI_SUCCESS)
                notify_code_ = code;
#endif
        }
    }
    int cls = notify_class < 0 ? MPI_ERR_OTHER : notify_class;
    pthread_mutex_unlock(&notify_class_lock);
    return cls;
}

/* The code rmaib returns for MPIX_ERR_RMA_NOTIFICATION. */
static int notify_code(void)
{
    int cls = rmaib_mpi_notify_class();
    return notify_code_ < 0 ? cls : notify_code_;
}

int MPIX_Rmaib_err_rma_notification(void)
{
    return rmaib_mpi_notify_class();
}
