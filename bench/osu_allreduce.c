/* OSU-style MPI_Allreduce latency: MPI_FLOAT, MPI_SUM, as OMB's osu_allreduce. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm)
{
    MPI_Allreduce(s, r, (int) (size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm);
}

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, "osu_allreduce", "MPI_Allreduce latency (float SUM)", call,
                         osu_bytes_one, osu_bytes_one);
}
