/* OSU-style MPI_Iallreduce latency and overlap: MPI_FLOAT, MPI_SUM, as OMB's osu_iallreduce. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm, MPI_Request *req)
{
    MPI_Iallreduce(s, r, (int) (size / sizeof(float)), MPI_FLOAT, MPI_SUM, comm, req);
}

int main(int argc, char **argv)
{
    return osu_icoll_main(argc, argv, "osu_iallreduce", "MPI_Iallreduce (float SUM)", call,
                          osu_bytes_one, osu_bytes_one);
}
