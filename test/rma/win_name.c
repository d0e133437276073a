/*
 * MPI_Win_set_name and MPI_Win_get_name, for every flavor: a new window's name is
 * the empty string; a name set reads back with its length; setting it again
 * replaces it; a name of MPI_MAX_OBJECT_NAME-1 characters is kept whole; names of
 * different windows (and of different ranks of one window) are independent.
 */
#include "tap.h"

static const char *flavor_name[] = { "create", "allocate", "allocate_shared", "dynamic" };

static void create(int f, MPI_Comm node, int *mem, MPI_Win *win)
{
    void *base;
    if (f == 0)
        MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, win);
    else if (f == 1)
        MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, win);
    else if (f == 2)
        MPI_Win_allocate_shared(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, win);
    else
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, win);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, mem[4][4];
    char name[MPI_MAX_OBJECT_NAME], want[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win win[4];
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);

    for (int f = 0; f < 4; f++) {
        create(f, node, mem[f], &win[f]);
        len = -1;
        strcpy(name, "junk");
        MPI_Win_get_name(win[f], name, &len);
        TAP_CHECK(len == 0 && name[0] == '\0', "%s: new window's name is \"%s\" (len %d)",
                  flavor_name[f], name, len);
    }
    tap_ok("a new window of every flavor has the empty name");

    for (int f = 0; f < 4; f++) {
        snprintf(want, sizeof want, "rank %d %s window", me, flavor_name[f]);
        int rc = MPI_Win_set_name(win[f], want);
        TAP_CHECK(rc == MPI_SUCCESS, "%s: set_name returned %d", flavor_name[f], rc);
    }
    for (int f = 0; f < 4; f++) {
        snprintf(want, sizeof want, "rank %d %s window", me, flavor_name[f]);
        MPI_Win_get_name(win[f], name, &len);
        TAP_CHECK(strcmp(name, want) == 0 && len == (int) strlen(want),
                  "%s: name \"%s\" (len %d), want \"%s\"", flavor_name[f], name, len, want);
    }
    tap_ok("set_name/get_name on four windows at once, a different name per rank");

    MPI_Win_set_name(win[0], "second name");
    MPI_Win_get_name(win[0], name, &len);
    TAP_CHECK(strcmp(name, "second name") == 0 && len == 11, "renamed: \"%s\"", name);
    memset(want, 'w', MPI_MAX_OBJECT_NAME - 1);
    want[MPI_MAX_OBJECT_NAME - 1] = '\0';
    MPI_Win_set_name(win[1], want);
    MPI_Win_get_name(win[1], name, &len);
    TAP_CHECK(strcmp(name, want) == 0 && len == MPI_MAX_OBJECT_NAME - 1,
              "longest name: len %d, want %d", len, MPI_MAX_OBJECT_NAME - 1);
    snprintf(want, sizeof want, "rank %d %s window", me, flavor_name[2]);
    MPI_Win_get_name(win[2], name, &len);
    TAP_CHECK(strcmp(name, want) == 0, "another window's name changed to \"%s\"", name);
    tap_ok("renaming replaces the name; a name of MPI_MAX_OBJECT_NAME-1 chars is kept whole");

    for (int f = 0; f < 4; f++)
        MPI_Win_free(&win[f]);
    MPI_Comm_free(&node);
    return tap_done();
}
