/* osu_get_acc_latency: MPI_Get_accumulate(SIZE x MPI_CHAR, MPI_SUM), OMB 6.1 method.
 * OMB leaves this program's options zero-initialised, so its defaults are
 * -s lock -w create, and it holds an exclusive lock in the lock and flush modes. */
#include "osu_common.h"

static void op(osu_ctx_t *c, int target, size_t off)
{
    OSU_CHECK(MPI_Get_accumulate(c->sbuf + off, (int) c->size, MPI_CHAR, c->cbuf + off,
                                 (int) c->size, MPI_CHAR, target, c->w.disp0 + (MPI_Aint) off,
                                 (int) c->size, MPI_CHAR, MPI_SUM, c->w.win));
}

static const osu_bench_t bench = {
    .name = "osu_get_acc_latency", .title = "MPI_Get_accumulate latency", .kind = OSU_LAT,
    .syncs = OSU_SYNC_ALL, .def_sync = OSU_SYNC_LOCK, .def_win = OSU_WIN_CREATE,
    .flush_lock_type = MPI_LOCK_EXCLUSIVE, .lock_lock_type = MPI_LOCK_EXCLUSIVE, .op = op,
};

int main(int argc, char **argv)
{
    return osu_main(&bench, argc, argv);
}
