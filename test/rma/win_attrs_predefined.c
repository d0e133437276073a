/*
 * The predefined window attributes, for every flavor, on every rank with its own
 * size and displacement unit: MPI_WIN_BASE (the user's pointer, or the baseptr MPI
 * returned; MPI_BOTTOM for a dynamic window), MPI_WIN_SIZE (0 for dynamic),
 * MPI_WIN_DISP_UNIT (1 for dynamic), MPI_WIN_CREATE_FLAVOR and MPI_WIN_MODEL ==
 * MPI_WIN_UNIFIED.  The answers stay right after the window has been used.
 */
#include "tap.h"

static const char *flavor_name[] = { "create", "allocate", "allocate_shared", "dynamic" };
static const int flavor_const[] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                    MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC };

static void check_attrs(MPI_Win win, int f, void *base, MPI_Aint size, int du, const char *when)
{
    void *abase = (void *) 1;
    MPI_Aint *asize = NULL;
    int *adu = NULL, *aflavor = NULL, *amodel = NULL, flag;
    const char *fn = flavor_name[f];

    MPI_Win_get_attr(win, MPI_WIN_BASE, &abase, &flag);
    TAP_CHECK(flag, "%s %s: MPI_WIN_BASE not set", fn, when);
    TAP_CHECK(!flag || abase == base, "%s %s: MPI_WIN_BASE %p, want %p", fn, when, abase, base);
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &asize, &flag);
    TAP_CHECK(flag && *asize == size, "%s %s: MPI_WIN_SIZE %ld, want %ld", fn, when,
              flag ? (long) *asize : -1L, (long) size);
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &adu, &flag);
    TAP_CHECK(flag && *adu == du, "%s %s: MPI_WIN_DISP_UNIT %d, want %d", fn, when,
              flag ? *adu : -1, du);
    MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &aflavor, &flag);
    TAP_CHECK(flag && *aflavor == flavor_const[f], "%s %s: MPI_WIN_CREATE_FLAVOR %d, want %d", fn,
              when, flag ? *aflavor : -1, flavor_const[f]);
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &amodel, &flag);
    TAP_CHECK(flag && *amodel == MPI_WIN_UNIFIED, "%s %s: MPI_WIN_MODEL %d, want MPI_WIN_UNIFIED",
              fn, when, flag ? *amodel : -1);
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    int me = tap_rank, np = tap_size;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);

    for (int f = 0; f < 4; f++) {
        MPI_Aint size = 24 * (me + 1);
        int du = (int[]) { 1, 2, 4, 8, 3, 12 }[(me + f) % 6];
        char *mem = malloc((size_t) size), *base = NULL;
        MPI_Win win;
        if (f == 0) {
            base = mem;
            MPI_Win_create(base, size, du, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else if (f == 1) {
            MPI_Win_allocate(size, du, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        } else if (f == 2) {
            MPI_Win_allocate_shared(size, du, MPI_INFO_NULL, node, &base, &win);
        } else {
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            base = MPI_BOTTOM;
            size = 0;
            du = 1;
        }
        check_attrs(win, f, base, size, du, "at creation");
        tap_ok("%s: MPI_WIN_BASE, SIZE, DISP_UNIT, CREATE_FLAVOR, MODEL", flavor_name[f]);

        /* use it: a put into the right neighbour (an attached region for dynamic) */
        MPI_Aint addr = 0;
        if (f == 3) {
            MPI_Win_attach(win, mem, 24);
            MPI_Get_address(mem, &addr);
        }
        MPI_Aint *addrs = malloc(np * sizeof(MPI_Aint));
        MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
        char c = (char) me;
        int right = (me + 1) % np;
        if (f == 2 && np > 1) {
            /* the node communicator may differ from MPI_COMM_WORLD: put to oneself */
            MPI_Comm_rank(node, &right);
        }
        MPI_Win_fence(0, win);
        MPI_Put(&c, 1, MPI_CHAR, right, addrs[right], 1, MPI_CHAR, win);
        MPI_Win_fence(0, win);
        check_attrs(win, f, base, size, du, "after a fence epoch");
        if (f == 3) {
            MPI_Win_detach(win, mem);
            check_attrs(win, f, base, size, du, "after detach");
        }
        tap_ok("%s: attributes unchanged after use", flavor_name[f]);
        MPI_Win_free(&win);
        free(addrs);
        free(mem);
    }
    MPI_Comm_free(&node);
    return tap_done();
}
