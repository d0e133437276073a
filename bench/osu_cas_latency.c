/* osu_cas_latency: MPI_Compare_and_swap(MPI_LONG_LONG), OMB 6.1 method
 * (default -s flush -w allocate; the lock mode takes an exclusive lock). */
#include "osu_common.h"

static void op(osu_ctx_t *c, int target, size_t off)
{
    (void) off;
    OSU_CHECK(MPI_Compare_and_swap(c->sbuf, c->cbuf, c->rbuf, MPI_LONG_LONG, target, c->w.disp0,
                                   c->w.win));
}

static const osu_bench_t bench = {
    .name = "osu_cas_latency", .title = "MPI_Compare_and_swap latency", .kind = OSU_LAT,
    .syncs = OSU_SYNC_ALL, .def_sync = OSU_SYNC_FLUSH, .def_win = OSU_WIN_ALLOCATE,
    .flush_lock_type = MPI_LOCK_SHARED, .lock_lock_type = MPI_LOCK_EXCLUSIVE,
    .fixed_size = 8, .op = op,
};

int main(int argc, char **argv)
{
    return osu_main(&bench, argc, argv);
}
