/* osu_put_latency: MPI_Put of SIZE chars, OMB 6.1 method (default -s flush -w allocate). */
#include "osu_common.h"

static void op(osu_ctx_t *c, int target, size_t off)
{
    OSU_CHECK(MPI_Put(c->sbuf + off, (int) c->size, MPI_CHAR, target, c->w.disp0 + (MPI_Aint) off,
                      (int) c->size, MPI_CHAR, c->w.win));
}

static const osu_bench_t bench = {
    .name = "osu_put_latency", .title = "MPI_Put Latency", .kind = OSU_LAT,
    .syncs = OSU_SYNC_ALL, .def_sync = OSU_SYNC_FLUSH, .def_win = OSU_WIN_ALLOCATE,
    .flush_lock_type = MPI_LOCK_SHARED, .lock_lock_type = MPI_LOCK_SHARED, .op = op,
};

int main(int argc, char **argv)
{
    return osu_main(&bench, argc, argv);
}
