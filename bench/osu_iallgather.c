/* OSU-style MPI_Iallgather latency and overlap: size bytes of MPI_CHAR from each rank. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm, MPI_Request *req)
{
    MPI_Iallgather(s, (int) size, MPI_CHAR, r, (int) size, MPI_CHAR, comm, req);
}

int main(int argc, char **argv)
{
    return osu_icoll_main(argc, argv, "osu_iallgather", "MPI_Iallgather", call,
                          osu_bytes_one, osu_bytes_all);
}
