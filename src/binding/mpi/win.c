/*
 * Window entry points of the drop-in library: creation (the bodies of the
 * generated MPI_Win_create, _allocate, _allocate_shared and their _c forms, see
 * api.txt), free, attach/detach, shared_query, the predefined attributes and info
 * that rmaib answers itself, and the group.  Everything else about a window
 * (names, keyvals, error handlers) is the host's, on the shadow handle.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "datatype.h"
#include "errors.h"
#include "handles.h"
#include "rmaib_host.h"
#include "base/config.h"
#include "host.h"
#include "info.h"
#include "mpix_rmaib.h"
#include "serve.h"

static int mpi_flavor(int f)
{
    switch (f) {
    case RMAIB_FLAVOR_CREATE:
        return MPI_WIN_FLAVOR_CREATE;
    case RMAIB_FLAVOR_ALLOCATE:
        return MPI_WIN_FLAVOR_ALLOCATE;
    case RMAIB_FLAVOR_DYNAMIC:
        return MPI_WIN_FLAVOR_DYNAMIC;
    default:
        return MPI_WIN_FLAVOR_SHARED;
    }
}

static const char *flavor_name(int f)
{
    static const char *names[] = { "?", "create", "allocate", "dynamic", "shared" };
    return f >= 1 && f <= 4 ? names[f] : "?";
}

/* ---------------------------------------------------------------- the shared duplicate */

static int dup_keyval = MPI_KEYVAL_INVALID;
/* Threads may create windows on different communicators at once. */
static pthread_mutex_t dup_lock = PTHREAD_MUTEX_INITIALIZER;

static void dup_release(rmaib_mpi_dup_t *d)
{
    pthread_mutex_lock(&dup_lock);
    int last = --d->refs == 0;
    pthread_mutex_unlock(&dup_lock);
    if (last) {
        PMPI_Comm_free(&d->comm);
        rmaib_comm_dir_free(d->dir);
        free(d);
    }
}

/* The user freed the communicator: its windows may outlive it, the attribute not. */
static int dup_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void) comm;
    (void) keyval;
    (void) extra;
    dup_release(attr);
    return MPI_SUCCESS;
}

/* comm's duplicate, made at the first window on comm (a collective call, as window
 * creation is); every rank of comm has created the same windows on it, so all find
 * it or all make it. */
static int dup_acquire_locked(MPI_Comm comm, rmaib_mpi_dup_t **out, int nomem)
{
    int rc = MPI_SUCCESS, flag = 0;
    rmaib_mpi_dup_t *d = NULL;
    if (dup_keyval == MPI_KEYVAL_INVALID)
        rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, dup_delete, &dup_keyval, NULL);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_get_attr(comm, dup_keyval, &d, &flag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (flag) {
        d->refs++;
        *out = d;
        return MPI_SUCCESS;
    }
    /* A rank out of memory must not leave its peers in the dup alone: all learn it.
     * Both calls wait as the host waits of serve.c do (backing off where ranks
     * outnumber cores: MPICH's own waits spin). */
    d = malloc(sizeof *d);
    int ok = d && !nomem, all_ok = 0;
    rc = rmaib_mpi_host_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (rc == MPI_SUCCESS && !all_ok)
        rc = MPI_ERR_NO_MEM;
    MPI_Request req;
    if (rc == MPI_SUCCESS && (rc = PMPI_Comm_idup(comm, &d->comm, &req)) == MPI_SUCCESS)
        rc = rmaib_mpi_host_wait(&req);
    if (rc != MPI_SUCCESS) {
        free(d);
        return rc;
    }
    d->refs = 1;
    d->dir = NULL;
    /* MPI_COMM_SELF and MPI_COMM_WORLD keep theirs until MPI_Finalize. */
    if (PMPI_Comm_set_attr(comm, dup_keyval, d) == MPI_SUCCESS)
        d->refs++;
    *out = d;
    return MPI_SUCCESS;
}

static int dup_acquire(MPI_Comm comm, rmaib_mpi_dup_t **out, int nomem)
{
    pthread_mutex_lock(&dup_lock);
    int rc = dup_acquire_locked(comm, out, nomem);
    pthread_mutex_unlock(&dup_lock);
    return rc;
}

/* ---------------------------------------------------------------- creation */

/* rmaib's window behind bw, with the lock algorithm and layout the info asks for;
 * failed: this rank is out of memory, or its shadow failed, and the creation then
 * fails on every rank with one class. */
static int create_core(rmaib_mpi_win_t *bw, int flavor, MPI_Aint size, int disp_unit,
                       MPI_Info info, void *base, int rank, int nranks, int failed)
{
    rmaib_win_args_t a = {
        .flavor = flavor, .hcomm = &bw->dup->comm, .rank = rank, .nranks = nranks,
        .base = base, .size = (size_t) size, .disp_unit = disp_unit,
        .lock_alg = rmaib_config.lock_alg, .status = failed ? RMAIB_ERR_NO_MEM : RMAIB_OK,
        .comm_dir = &bw->dup->dir,
    };
    (void) rmaib_mpi_notify_class();   /* the same value on every process */
    rmaib_mpi_win_info(info, &a.lock_alg, &a.noncontig, &a.max_notify);
    a.map_user = rmaib_mpi_win_info_map_user(info);

    int rerr = rmaib_win_create(&a, &bw->core);
    return rerr == RMAIB_OK ? MPI_SUCCESS : rmaib_mpi_code(rerr);
}

/* What the host is given in place of the user's info: a copy (MPI_INFO_NULL if none
 * or out of memory), which the caller frees.  MPICH 4.0.2 parses accumulate_ordering
 * with strtok in the object it is given, leaving "rar" of "rar,raw,war,waw". */
static MPI_Info host_info(MPI_Info info)
{
    MPI_Info copy = MPI_INFO_NULL;
    if (info != MPI_INFO_NULL && PMPI_Info_dup(info, &copy) != MPI_SUCCESS)
        copy = MPI_INFO_NULL;
    return copy;
}

/* The host's window that stands for bw (it carries names, keyvals, error handlers).
 * The shadow is local, and it can fail on some ranks only: with MPICH each one
 * takes a context id, of which a process has 2048, so a rank holding more
 * communicators than its peers runs out first.  It is made first, and the core's
 * creation carries its failure: every rank fails together (a rank that failed
 * alone had waited in the collective free of rmaib's window for the others). */
static int create_shadow(rmaib_mpi_win_t *bw, MPI_Info info, MPI_Win adopt, int *inserted)
{
    int rc = MPI_SUCCESS;
    /* The netmod's host window is the one being created: rmaib stands behind it. */
    if (adopt != MPI_WIN_NULL) {
        bw->shadow = adopt;
        bw->adopted = 1;
    } else {
        MPI_Info copy = host_info(info);
#ifdef OPEN_MPI
        /* Open MPI 4.1 has no component for a Win_create over MPI_COMM_SELF
         * (MPI_ERR_WIN); osc/sm makes allocated ones. */
        void *unused;
        rc = PMPI_Win_allocate(0, 1, copy, MPI_COMM_SELF, &unused, &bw->shadow);
#else
        rc = PMPI_Win_create(NULL, 0, 1, copy, MPI_COMM_SELF, &bw->shadow);
#endif
        if (copy != MPI_INFO_NULL)
            PMPI_Info_free(&copy);
    }
    *inserted = rc == MPI_SUCCESS && (rc = rmaib_mpi_win_insert(bw)) == MPI_SUCCESS;
    return rc;
}

/* The predefined attributes rmaib answers itself. */
static void set_attrs(rmaib_mpi_win_t *bw, int flavor)
{
    bw->attr_base = rmaib_win_base(bw->core);
    bw->attr_size = (MPI_Aint) rmaib_win_size(bw->core);
    bw->attr_disp_unit = rmaib_win_disp_unit(bw->core);
    bw->attr_flavor = mpi_flavor(flavor);
    bw->attr_model = MPI_WIN_UNIFIED;
}

static void say_created(const rmaib_mpi_win_t *bw, int flavor, MPI_Aint size, int nranks)
{
    rmaib_host_say("rmaib: window flavor=%s size=%zu disp_unit=%d ranks=%d backend=%s lock=%s "
                   "pscw=%s collectives=%u", flavor_name(flavor), (size_t) size,
                   bw->attr_disp_unit, nranks, rmaib_win_describe(bw->core),
                   rmaib_win_lock_alg(bw->core) == RMAIB_LOCKALG_MCS ? MPIX_RMAIB_LOCK_MCS
                   : MPIX_RMAIB_LOCK_TAS, rmaib_win_pscw_queue(bw->core) ? "queue" : "words",
                   rmaib_win_create_calls(bw->core));
}

int rmaib_mpi_win_create(int flavor, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                         MPI_Comm comm, void *base, void *baseptr, MPI_Win adopt, MPI_Win *win)
{
    int rank, nranks, rc, inserted = 0;
    rmaib_mpi_win_t *bw = NULL, stand_in;

    /* First: the check that the program's MPI is this library's (host.c). */
    rmaib_mpi_host_register();
    if (comm == MPI_COMM_NULL)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_COMM);
    if (!win)
        return rmaib_mpi_comm_error(comm, MPI_ERR_ARG);
    if (size < 0)
        return rmaib_mpi_comm_error(comm, rmaib_mpi_code(RMAIB_ERR_SIZE));
    if (disp_unit <= 0 || disp_unit > INT_MAX)   /* the core's unit is an int */
        return rmaib_mpi_comm_error(comm, rmaib_mpi_code(RMAIB_ERR_DISP));

    /* A rank out of memory here still takes part in the collective calls below, on
     * a stand-in, and they fail on every rank. */
    bw = calloc(1, sizeof *bw);
    int nomem = !bw;
    if (nomem) {
        memset(&stand_in, 0, sizeof stand_in);
        bw = &stand_in;
    }
    bw->shadow = MPI_WIN_NULL;
    bw->hints = MPI_INFO_NULL;
    rc = dup_acquire(comm, &bw->dup, nomem);
    if (rc != MPI_SUCCESS)
        goto fn_fail;
    bw->comm = bw->dup->comm;
    PMPI_Comm_rank(bw->comm, &rank);
    PMPI_Comm_size(bw->comm, &nranks);

    rmaib_init();
    /* Build the predefined-type table now, not in a window's first operation: a
     * latency loop's warm-up should not pay for flattening every named type. */
    (void) rmaib_mpi_layout_named(MPI_BYTE);
    int shadow_rc = nomem ? MPI_ERR_NO_MEM : create_shadow(bw, info, adopt, &inserted);
    rc = create_core(bw, flavor, size, (int) disp_unit, info, base, rank, nranks,
                     shadow_rc != MPI_SUCCESS);
    if (rc != MPI_SUCCESS)
        goto fn_fail;

    set_attrs(bw, flavor);
    if (!bw->adopted)
        rmaib_mpi_win_hints_record(bw, info);
    if (baseptr)
        *(void **) baseptr = bw->attr_base;
    *win = bw->shadow;
    if (rmaib_config.verbose)
        say_created(bw, flavor, size, nranks);

  fn_exit:
    return rc;
  fn_fail:
    if (bw) {
        if (inserted)
            rmaib_mpi_win_remove(bw->shadow);
        if (bw->shadow != MPI_WIN_NULL && !bw->adopted)
            PMPI_Win_free(&bw->shadow);
        if (bw->core)
            rmaib_win_free(bw->core);
        if (bw->dup)
            dup_release(bw->dup);
        rmaib_mpi_win_hints_free(bw);
        if (bw != &stand_in)
            free(bw);
    }
    rc = rmaib_mpi_comm_error(comm, rc);
    goto fn_exit;
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return rmaib_mpi_win_create(RMAIB_FLAVOR_DYNAMIC, 0, 1, info, comm, NULL, NULL,
                                MPI_WIN_NULL, win);
}

int MPI_Win_free(MPI_Win *win)
{
    if (!win)
        return rmaib_mpi_comm_error(MPI_COMM_WORLD, MPI_ERR_ARG);
    LOOKUP(*win, bw);
    int rerr = rmaib_win_free(bw->core);
    if (rerr == RMAIB_ERR_RMA_SYNC)    /* an epoch is open: nothing was freed */
        return rmaib_mpi_win_ret(bw, rerr);
    /* Any other error reports an earlier operation, and rmaib's window is gone: the
     * handle goes too, once its error handler has seen the error. */
    int code = rerr != RMAIB_OK ? rmaib_mpi_win_ret(bw, rerr) : MPI_SUCCESS;
    rmaib_mpi_win_remove(bw->shadow);
    /* runs the user's attribute delete callbacks; an adopted window is the host's */
    int rc = bw->adopted ? MPI_SUCCESS : PMPI_Win_free(&bw->shadow);
    dup_release(bw->dup);
    rmaib_mpi_win_hints_free(bw);
    free(bw);
    *win = MPI_WIN_NULL;
    return code != MPI_SUCCESS ? code : rc;
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    LOOKUP(win, bw);
    if (size < 0)
        return rmaib_mpi_win_ret(bw, RMAIB_ERR_SIZE);
    return rmaib_mpi_win_ret(bw, rmaib_win_attach(bw->core, base, (size_t) size));
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    LOOKUP(win, bw);
    return rmaib_mpi_win_ret(bw, rmaib_win_detach(bw->core, base));
}

/* MPI_Win_shared_query: the displacement unit goes to *disp_unit, or to
 * *disp_unit_c in the _c form. */
int rmaib_mpi_win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit,
                               MPI_Aint *disp_unit_c, void *baseptr)
{
    LOOKUP(win, bw);
    size_t sz = 0;
    void *base = NULL;
    int du = 0;
    if (!size || !(disp_unit || disp_unit_c) || !baseptr)
        return rmaib_mpi_win_error(bw, MPI_ERR_ARG);
    int rerr = rmaib_win_shared_query(bw->core, rank == MPI_PROC_NULL ? -1 : rank, &sz, &du,
                                      &base);
    if (rerr == RMAIB_OK) {
        *size = (MPI_Aint) sz;
        if (disp_unit)
            *disp_unit = du;
        else
            *disp_unit_c = du;
        *(void **) baseptr = base;
    }
    return rmaib_mpi_win_ret(bw, rerr);
}

int MPI_Win_get_attr(MPI_Win win, int keyval, void *attr_val, int *flag)
{
    LOOKUP(win, bw);
    void *v;
    switch (keyval) {
    case MPI_WIN_BASE:
        v = bw->attr_base;
        break;
    case MPI_WIN_SIZE:
        v = &bw->attr_size;
        break;
    case MPI_WIN_DISP_UNIT:
        v = &bw->attr_disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        v = &bw->attr_flavor;
        break;
    case MPI_WIN_MODEL:
        v = &bw->attr_model;
        break;
    default:
        return PMPI_Win_get_attr(win, keyval, attr_val, flag);
    }
    *(void **) attr_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    LOOKUP(win, bw);
    if (!group)
        return rmaib_mpi_win_error(bw, MPI_ERR_ARG);
    int rc = PMPI_Comm_group(bw->comm, group);
    return rc == MPI_SUCCESS ? rc : rmaib_mpi_win_error(bw, rc);
}

/* The host's info for the shadow window, plus the keys rmaib itself honours and the
 * standard hints as rmaib recorded them. */
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    LOOKUP(win, bw);
    int rc = PMPI_Win_get_info(win, info_used);
    if (rc != MPI_SUCCESS)
        return rmaib_mpi_win_error(bw, rc);
    rmaib_mpi_win_info_keys(bw, *info_used);
    rmaib_mpi_win_hints_add(bw, *info_used);
    return MPI_SUCCESS;
}

/* The host keeps the hints on the shadow window (the user's handle), where
 * MPI_Win_get_info finds them.  rmaib's own keys lay out every peer's lock words and
 * notification counters at creation and cannot change under a live window, so a
 * new value is ignored, as MPI allows, and MPI_Win_get_info goes on reporting the
 * one in use.  A failure of the host's call went through the handler already. */
int rmaib_mpi_win_set_info(MPI_Win win, MPI_Info info)
{
    LOOKUP(win, bw);
    MPI_Info copy = host_info(info);
    int rc = PMPI_Win_set_info(win, copy != MPI_INFO_NULL ? copy : info);
    if (copy != MPI_INFO_NULL)
        PMPI_Info_free(&copy);
    if (rc == MPI_SUCCESS && info != MPI_INFO_NULL)
        rmaib_mpi_win_hints_record(bw, info);
    if (rc != MPI_SUCCESS || !rmaib_config.verbose || info == MPI_INFO_NULL)
        return rc;
    int lock_alg = rmaib_win_lock_alg(bw->core), noncontig, max_notify;
    rmaib_mpi_win_info(info, &lock_alg, &noncontig, &max_notify);
    if (lock_alg != rmaib_win_lock_alg(bw->core) || max_notify >= 0)
        rmaib_host_say("rmaib: MPI_Win_set_info: %s and %s are fixed when a window is created; "
                       "kept", MPIX_RMAIB_INFO_LOCK, MPIX_RMAIB_INFO_MAX_NOTIFY);
    return MPI_SUCCESS;
}

void rmaib_mpi_win_info_keys(const rmaib_mpi_win_t *bw, MPI_Info info_used)
{
    PMPI_Info_set(info_used, MPIX_RMAIB_INFO_LOCK,
                  rmaib_win_lock_alg(bw->core) == RMAIB_LOCKALG_MCS ? MPIX_RMAIB_LOCK_MCS : MPIX_RMAIB_LOCK_TAS);
    char max[16];
    snprintf(max, sizeof max, "%d", rmaib_win_max_notify(bw->core));
    PMPI_Info_set(info_used, MPIX_RMAIB_INFO_MAX_NOTIFY, max);
}
