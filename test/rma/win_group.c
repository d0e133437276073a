/*
 * MPI_Win_get_group returns the group of the communicator the window was created
 * on: MPI_IDENT to MPI_Comm_group for every flavor, on MPI_COMM_WORLD, on a split
 * communicator (MPI_IDENT to that, MPI_UNEQUAL to the world) and on MPI_COMM_SELF;
 * each call gives a group the caller frees.
 */
#include "tap.h"

static const char *flavor_name[] = { "create", "allocate", "allocate_shared", "dynamic" };

static void create(int f, MPI_Comm comm, int *mem, MPI_Win *win)
{
    void *base;
    if (f == 0)
        MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, win);
    else if (f == 1)
        MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &base, win);
    else if (f == 2)
        MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &base, win);
    else
        MPI_Win_create_dynamic(MPI_INFO_NULL, comm, win);
}

static int compare_with(MPI_Win win, MPI_Comm comm)
{
    MPI_Group wg, cg;
    int res;
    MPI_Win_get_group(win, &wg);
    MPI_Comm_group(comm, &cg);
    MPI_Group_compare(wg, cg, &res);
    MPI_Group_free(&wg);
    MPI_Group_free(&cg);
    return res;
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size, mem[4];
    MPI_Comm node, half;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &half);

    for (int f = 0; f < 4; f++) {
        MPI_Win win;
        MPI_Comm comm = f == 2 ? node : MPI_COMM_WORLD;
        create(f, comm, mem, &win);
        int res = compare_with(win, comm);
        TAP_CHECK(res == MPI_IDENT, "%s: window group vs comm group: %d, want MPI_IDENT",
                  flavor_name[f], res);
        res = compare_with(win, comm);          /* a second call gives an equal group */
        TAP_CHECK(res == MPI_IDENT, "%s: second get_group: %d", flavor_name[f], res);
        MPI_Win_free(&win);
        tap_ok("%s on MPI_COMM_WORLD: MPI_Win_get_group is the communicator's group",
               flavor_name[f]);
    }

    /* split communicator: create and dynamic */
    for (int f = 0; f < 4; f += 3) {
        MPI_Win win;
        create(f, half, mem, &win);
        int res = compare_with(win, half);
        TAP_CHECK(res == MPI_IDENT, "%s on a split comm: %d, want MPI_IDENT", flavor_name[f], res);
        res = compare_with(win, MPI_COMM_WORLD);
        TAP_CHECK(np == 1 || res == MPI_UNEQUAL, "%s on a split comm vs world: %d, want MPI_UNEQUAL",
                  flavor_name[f], res);
        MPI_Win_free(&win);
        tap_ok("%s on a split communicator: its group, not the world's", flavor_name[f]);
    }

    MPI_Win win;
    create(1, MPI_COMM_SELF, mem, &win);
    int res = compare_with(win, MPI_COMM_SELF);
    TAP_CHECK(res == MPI_IDENT, "allocate on MPI_COMM_SELF: %d", res);
    MPI_Win_free(&win);
    tap_ok("allocate on MPI_COMM_SELF: the group of MPI_COMM_SELF");

    MPI_Comm_free(&half);
    MPI_Comm_free(&node);
    return tap_done();
}
