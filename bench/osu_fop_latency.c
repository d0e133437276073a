/* osu_fop_latency: MPI_Fetch_and_op(1 x MPI_LONG_LONG, MPI_SUM), OMB 6.1 method
 * (default -s flush -w allocate; the lock mode takes an exclusive lock). */
#include "osu_common.h"

static void op(osu_ctx_t *c, int target, size_t off)
{
    (void) off;
    OSU_CHECK(MPI_Fetch_and_op(c->sbuf, c->rbuf, MPI_LONG_LONG, target, c->w.disp0, MPI_SUM,
                               c->w.win));
}

static const osu_bench_t bench = {
    .name = "osu_fop_latency", .title = "MPI_Fetch_and_op latency", .kind = OSU_LAT,
    .syncs = OSU_SYNC_ALL, .def_sync = OSU_SYNC_FLUSH, .def_win = OSU_WIN_ALLOCATE,
    .flush_lock_type = MPI_LOCK_SHARED, .lock_lock_type = MPI_LOCK_EXCLUSIVE,
    .fixed_size = 8, .op = op,
};

int main(int argc, char **argv)
{
    return osu_main(&bench, argc, argv);
}
