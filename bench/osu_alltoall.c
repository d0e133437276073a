/* OSU-style MPI_Alltoall latency: size bytes of MPI_CHAR to each rank. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm)
{
    MPI_Alltoall(s, (int) size, MPI_CHAR, r, (int) size, MPI_CHAR, comm);
}

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, "osu_alltoall", "MPI_Alltoall latency", call,
                         osu_bytes_all, osu_bytes_all);
}
