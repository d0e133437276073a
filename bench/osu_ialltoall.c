/* OSU-style MPI_Ialltoall latency and overlap: size bytes of MPI_CHAR per rank pair. */
#include "osu_icoll.h"

static void call(void *s, void *r, size_t size, MPI_Comm comm, MPI_Request *req)
{
    MPI_Ialltoall(s, (int) size, MPI_CHAR, r, (int) size, MPI_CHAR, comm, req);
}

static size_t all(size_t size, int p)
{
    return size * (size_t) p;
}

int main(int argc, char **argv)
{
    return osu_icoll_main(argc, argv, "osu_ialltoall", "MPI_Ialltoall", call, all, all);
}
