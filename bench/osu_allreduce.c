/* OSU-style MPI_Allreduce latency: MPI_FLOAT, MPI_SUM, as OMB's osu_allreduce. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm)
{
    MPI_Allreduce(s, r, (int) (size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm);
}

static size_t vec(size_t size, int p)
{
    (void) p;
    return size;
}

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, "osu_allreduce", "MPI_Allreduce latency (float SUM)", call,
                         vec, vec);
}
