/* OSU-style MPI_Ialltoall latency and overlap: size bytes of MPI_CHAR per rank pair. */
#include "osu_coll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm, MPI_Request *req)
{
    MPI_Ialltoall(s, (int) size, MPI_CHAR, r, (int) size, MPI_CHAR, comm, req);
}

int main(int argc, char **argv)
{
    return osu_icoll_main(argc, argv, "osu_ialltoall", "MPI_Ialltoall", call,
                          osu_bytes_all, osu_bytes_all);
}
