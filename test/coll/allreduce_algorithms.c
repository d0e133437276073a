/*
 * MPI_Allreduce with the algorithm the testlist forces (RMAIB_COLL_ALLREDUCE):
 * (type, op) pairs over sizes from 0 to a few MiB, each element against the serial
 * reference; MPI_IN_PLACE; random doubles bitwise equal on every rank; the same
 * on sub-communicators.
 */
#include <stdlib.h>
#include "coll_check.h"

static const size_t counts[] = { 0, 1, 2, 7, 100, 1000, 5000, 70000 };

static void one(const ctype_t *t, MPI_Op op, const char *opname, size_t n, int in_place)
{
    int me = tap_rank, p = tap_size;
    char *s = malloc(n * t->size + 1), *r = malloc(n * t->size + 1);
    for (size_t i = 0; i < n; i++) {
        cput(s, i, t->kind, cval(op, me, i));
        cput(r, i, t->kind, -1);
    }
    if (in_place)
        memcpy(r, s, n * t->size);
    int rc = MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, (int) n, t->dt, op, MPI_COMM_WORLD);
    TAP_CHECK(rc == MPI_SUCCESS, "%s %s n=%zu returned %d", t->name, opname, n, rc);
    char what[64];
    snprintf(what, sizeof what, "%s n=%zu%s", opname, n, in_place ? " in place" : "");
    ccheck(r, n, t, op, p, what);
    free(s);
    free(r);
}

/* Random doubles: the result must be the same bits everywhere. */
static void bitwise(size_t n)
{
    double *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);
    srand48(1000 + tap_rank);
    for (size_t i = 0; i < n; i++)
        s[i] = (drand48() - 0.5) * 1e3 * (double) (1 + (long) i % 7);
    MPI_Allreduce(s, r, (int) n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    TAP_CHECK(csame_everywhere(r, n * sizeof *r, MPI_COMM_WORLD),
              "double sums of %zu elements differ between ranks", n);
    float *f = (float *) s;
    for (size_t i = 0; i < n; i++)
        f[i] = (float) (drand48() * 3.0 - 1.0);
    MPI_Allreduce(MPI_IN_PLACE, f, (int) n, MPI_FLOAT, MPI_PROD, MPI_COMM_WORLD);
    TAP_CHECK(csame_everywhere(f, n * sizeof *f, MPI_COMM_WORLD),
              "float products of %zu elements differ between ranks", n);
    free(s);
    free(r);
}

/* MPI_2INT MAXLOC and MINLOC (value, rank): the extreme value, on a tie the
 * lowest rank.  Values repeat across ranks, so ties happen. */
static void loc(MPI_Op op, int max, size_t n)
{
    int (*s)[2] = calloc(n + 1, sizeof *s), (*r)[2] = calloc(n + 1, sizeof *r);
    for (size_t i = 0; i < n; i++) {
        s[i][0] = (int) ((tap_rank * 3 + i) % 4);
        s[i][1] = tap_rank;
    }
    MPI_Allreduce(s, r, (int) n, MPI_2INT, op, MPI_COMM_WORLD);
    for (size_t i = 0; i < n; i++) {
        int bv = 0, bi = 0;
        for (int q = 0; q < tap_size; q++) {
            int v = (int) ((q * 3 + i) % 4);
            if (q == 0 || (max ? v > bv : v < bv)) {
                bv = v;
                bi = q;
            }
        }
        if (r[i][0] != bv || r[i][1] != bi) {
            tap_fail("%s n=%zu: element %zu is (%d, %d), want (%d, %d)", max ? "MAXLOC" : "MINLOC",
                     n, i, r[i][0], r[i][1], bv, bi);
            break;
        }
    }
    free(s);
    free(r);
}

/* Thirds (groups that are not powers of two) and the world in reverse order:
 * sums against the reference, random doubles the same bits on every member. */
static void subcomms(void)
{
    MPI_Comm part[2];
    MPI_Comm_split(MPI_COMM_WORLD, tap_rank % 3, tap_rank, &part[0]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, tap_size - tap_rank, &part[1]);
    for (int k = 0; k < 2; k++) {
        int me, p;
        MPI_Comm_rank(part[k], &me);
        MPI_Comm_size(part[k], &p);
        for (size_t c = 0; c < 7; c++) {
            size_t n = counts[c];
            int *s = malloc(n * sizeof *s + 4), *r = malloc(n * sizeof *r + 4);
            double *d = malloc(n * sizeof *d + 8);
            srand48(77 + tap_rank);
            for (size_t i = 0; i < n; i++) {
                s[i] = r[i] = (int) cval(MPI_SUM, me, i);
                d[i] = (drand48() - 0.5) * 1e3;
            }
            MPI_Allreduce(c % 2 ? MPI_IN_PLACE : s, r, (int) n, MPI_INT, MPI_SUM, part[k]);
            ccheck(r, n, &ctypes[0], MPI_SUM, p, k ? "reversed SUM" : "thirds SUM");
            MPI_Allreduce(MPI_IN_PLACE, d, (int) n, MPI_DOUBLE, MPI_SUM, part[k]);
            TAP_CHECK(csame_everywhere(d, n * sizeof *d, part[k]),
                      "%s: double sums of %zu elements differ", k ? "reversed" : "thirds", n);
            free(s);
            free(r);
            free(d);
        }
        MPI_Comm_free(&part[k]);
    }
}

int main(int argc, char **argv)
{
    tap_init(&argc, &argv);
    static const struct { MPI_Op op; const char *name; int types; } ops[] = {
        { MPI_SUM, "SUM", 0x1f }, { MPI_PROD, "PROD", 0x19 }, { MPI_MAX, "MAX", 0x1f },
        { MPI_MIN, "MIN", 0x13 }, { MPI_LAND, "LAND", 0x03 }, { MPI_LOR, "LOR", 0x01 },
        { MPI_BAND, "BAND", 0x05 }, { MPI_BXOR, "BXOR", 0x07 },
    };
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
        for (size_t t = 0; t < sizeof ctypes / sizeof ctypes[0]; t++) {
            if (!(ops[o].types & (1 << t)))
                continue;
            for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++)
                one(&ctypes[t], ops[o].op, ops[o].name, counts[c], c % 2);
            tap_ok("allreduce %s on %s, 0 to 70000 elements", ops[o].name, ctypes[t].name);
        }
    }
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        loc(MPI_MAXLOC, 1, counts[c]);
        loc(MPI_MINLOC, 0, counts[c]);
    }
    tap_ok("allreduce MAXLOC and MINLOC on MPI_2INT, ties to the lowest rank");
    one(&ctypes[4], MPI_SUM, "SUM", 400000, 0);
    one(&ctypes[4], MPI_MAX, "MAX", 400000, 1);
    tap_ok("allreduce of 3.2 MB doubles, out of place and in place");
    bitwise(5);
    bitwise(3000);
    bitwise(100000);
    tap_ok("random doubles and floats reduce to the same bits on every rank");
    subcomms();
    tap_ok("sub-communicators: thirds and reversed, sums and same bits, 0 to 5000 elements");
    return tap_done();
}
