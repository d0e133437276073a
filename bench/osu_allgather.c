/* OSU-style MPI_Allgather latency: size bytes of MPI_CHAR from each rank. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm)
{
    MPI_Allgather(s, (int) size, MPI_CHAR, r, (int) size, MPI_CHAR, comm);
}

int main(int argc, char **argv)
{
    return osu_coll_main(argc, argv, "osu_allgather", "MPI_Allgather latency", call,
                         osu_bytes_one, osu_bytes_all);
}
