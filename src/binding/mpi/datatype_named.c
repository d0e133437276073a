/*
 * The predefined types: which basic type each one is, given outright or found from
 * its width (the Fortran types, the sized integers), and the layout of each, made
 * once at start-up for the table in datatype.c.
 */
#include "datatype_impl.h"

const named_spec_t rmaib_mpi_named_spec[] = {
    { MPI_CHAR, RMAIB_BASIC_CHAR },
    { MPI_SIGNED_CHAR, BY_SINT },
    { MPI_UNSIGNED_CHAR, BY_UINT },
    { MPI_BYTE, RMAIB_BASIC_BYTE },
    { MPI_PACKED, RMAIB_BASIC_BYTE },
    { MPI_WCHAR, BY_OPAQUE },
    { MPI_SHORT, BY_SINT },
    { MPI_UNSIGNED_SHORT, BY_UINT },
    { MPI_INT, BY_SINT },
    { MPI_UNSIGNED, BY_UINT },
    { MPI_LONG, BY_SINT },
    { MPI_UNSIGNED_LONG, BY_UINT },
    { MPI_LONG_LONG_INT, BY_SINT },
    { MPI_LONG_LONG, BY_SINT },
    { MPI_UNSIGNED_LONG_LONG, BY_UINT },
    { MPI_FLOAT, RMAIB_BASIC_FLOAT },
    { MPI_DOUBLE, RMAIB_BASIC_DOUBLE },
    { MPI_LONG_DOUBLE, RMAIB_BASIC_LONG_DOUBLE },
    { MPI_C_BOOL, BY_BOOL },
    { MPI_INT8_T, BY_SINT },
    { MPI_INT16_T, BY_SINT },
    { MPI_INT32_T, BY_SINT },
    { MPI_INT64_T, BY_SINT },
    { MPI_UINT8_T, BY_UINT },
    { MPI_UINT16_T, BY_UINT },
    { MPI_UINT32_T, BY_UINT },
    { MPI_UINT64_T, BY_UINT },
    { MPI_C_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
    { MPI_C_FLOAT_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
    { MPI_C_DOUBLE_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX },
    { MPI_C_LONG_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX },
    { MPI_AINT, BY_SINT },
    { MPI_OFFSET, BY_SINT },
    { MPI_COUNT, BY_SINT },
    { MPI_FLOAT_INT, RMAIB_BASIC_FLOAT_INT },
    { MPI_DOUBLE_INT, RMAIB_BASIC_DOUBLE_INT },
    { MPI_LONG_INT, RMAIB_BASIC_LONG_INT },
    { MPI_2INT, RMAIB_BASIC_2INT },
    { MPI_SHORT_INT, RMAIB_BASIC_SHORT_INT },
    { MPI_LONG_DOUBLE_INT, RMAIB_BASIC_LONG_DOUBLE_INT },
    /* Fortran types as C sees them; an MPI built without Fortran makes them
     * MPI_DATATYPE_NULL.  LOGICAL takes the logical ops only, giving 0/1, which is
     * what the usual compilers' .false./.true. are. */
#ifdef MPI_CHARACTER
    { MPI_CHARACTER, RMAIB_BASIC_CHAR },
#endif
#ifdef MPI_INTEGER
    { MPI_INTEGER, BY_SINT },
#endif
#ifdef MPI_LOGICAL
    { MPI_LOGICAL, BY_LOGICAL },
#endif
#ifdef MPI_REAL
    { MPI_REAL, BY_FLOAT },
#endif
#ifdef MPI_DOUBLE_PRECISION
    { MPI_DOUBLE_PRECISION, BY_FLOAT },
#endif
#ifdef MPI_COMPLEX
    { MPI_COMPLEX, BY_COMPLEX },
#endif
#ifdef MPI_DOUBLE_COMPLEX
    { MPI_DOUBLE_COMPLEX, BY_COMPLEX },
#endif
#ifdef MPI_2INTEGER
    { MPI_2INTEGER, BY_2INT },
#endif
#ifdef MPI_2REAL
    { MPI_2REAL, BY_2REAL },
#endif
#ifdef MPI_2DOUBLE_PRECISION
    { MPI_2DOUBLE_PRECISION, BY_2REAL },
#endif
#ifdef MPI_INTEGER1
    { MPI_INTEGER1, BY_SINT },
#endif
#ifdef MPI_INTEGER2
    { MPI_INTEGER2, BY_SINT },
#endif
#ifdef MPI_INTEGER4
    { MPI_INTEGER4, BY_SINT },
#endif
#ifdef MPI_INTEGER8
    { MPI_INTEGER8, BY_SINT },
#endif
#ifdef MPI_INTEGER16
    { MPI_INTEGER16, BY_SINT },
#endif
#ifdef MPI_REAL2
    { MPI_REAL2, BY_FLOAT },
#endif
#ifdef MPI_REAL4
    { MPI_REAL4, BY_FLOAT },
#endif
#ifdef MPI_REAL8
    { MPI_REAL8, BY_FLOAT },
#endif
#ifdef MPI_REAL16
    { MPI_REAL16, BY_FLOAT },
#endif
#ifdef MPI_COMPLEX8
    { MPI_COMPLEX8, BY_COMPLEX },
#endif
#ifdef MPI_COMPLEX16
    { MPI_COMPLEX16, BY_COMPLEX },
#endif
#ifdef MPI_COMPLEX32
    { MPI_COMPLEX32, BY_COMPLEX },
#endif
#ifdef MPI_CXX_BOOL
    { MPI_CXX_BOOL, BY_BOOL },
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
    { MPI_CXX_FLOAT_COMPLEX, RMAIB_BASIC_C_FLOAT_COMPLEX },
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
    { MPI_CXX_DOUBLE_COMPLEX, RMAIB_BASIC_C_DOUBLE_COMPLEX },
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
    { MPI_CXX_LONG_DOUBLE_COMPLEX, RMAIB_BASIC_C_LONG_DOUBLE_COMPLEX },
#endif
};

const size_t rmaib_mpi_named_count = sizeof rmaib_mpi_named_spec / sizeof rmaib_mpi_named_spec[0];

_Static_assert(sizeof rmaib_mpi_named_spec / sizeof rmaib_mpi_named_spec[0] <= NAMED_MAX_TYPES,
               "grow NAMED_MAX_TYPES");

rmaib_basic_t rmaib_mpi_kind_basic(int kind, MPI_Count size)
{
    switch (kind) {
    case BY_SINT:
        return size == 1 ? RMAIB_BASIC_INT8 : size == 2 ? RMAIB_BASIC_INT16
            : size == 4 ? RMAIB_BASIC_INT32 : size == 8 ? RMAIB_BASIC_INT64 : RMAIB_BASIC_NONE;
    case BY_UINT:
        return size == 1 ? RMAIB_BASIC_UINT8 : size == 2 ? RMAIB_BASIC_UINT16
            : size == 4 ? RMAIB_BASIC_UINT32 : size == 8 ? RMAIB_BASIC_UINT64 : RMAIB_BASIC_NONE;
    case BY_FLOAT:
        /* 2- and 16-byte reals are not C float types: no arithmetic for them. */
        return size == (MPI_Count) sizeof(float) ? RMAIB_BASIC_FLOAT
            : size == (MPI_Count) sizeof(double) ? RMAIB_BASIC_DOUBLE : RMAIB_BASIC_NONE;
    case BY_COMPLEX:
        return size == 2 * (MPI_Count) sizeof(float) ? RMAIB_BASIC_C_FLOAT_COMPLEX
            : size == 2 * (MPI_Count) sizeof(double) ? RMAIB_BASIC_C_DOUBLE_COMPLEX : RMAIB_BASIC_NONE;
    case BY_BOOL:
        return size == (MPI_Count) sizeof(_Bool) ? RMAIB_BASIC_BOOL : RMAIB_BASIC_NONE;
    case BY_2INT:
        return size == 2 * (MPI_Count) sizeof(int) ? RMAIB_BASIC_2INT : RMAIB_BASIC_NONE;
    case BY_LOGICAL:
        return size == 4 ? RMAIB_BASIC_LOGICAL4 : RMAIB_BASIC_NONE;
    case BY_OPAQUE:             /* wchar_t: in no op group, so only its width matters */
        return size == 4 ? RMAIB_BASIC_OPAQUE4 : RMAIB_BASIC_NONE;
    case BY_2REAL:              /* a value and its index, both of the real's type */
        return size == 2 * (MPI_Count) sizeof(float) ? RMAIB_BASIC_2FLOAT
            : size == 2 * (MPI_Count) sizeof(double) ? RMAIB_BASIC_2DOUBLE : RMAIB_BASIC_NONE;
    default:
        return (rmaib_basic_t) kind;
    }
}

/* Fill nb for one named type; *fits is 0 if it has more blocks than a slot holds. */
int rmaib_mpi_named_fill(struct named_box *nb, MPI_Datatype dt, int kind, int *fits)
{
    int status;
    flat_t f;
    bounds_t b;
    rmaib_basic_t basic;

    flat_init(&f);
    *fits = 0;
    status = rmaib_mpi_bounds_get(dt, &b);
    if (status)
        goto fn_fail;
    /* The pair types have holes; MPI alone knows where. */
    if (b.true_lb == 0 && b.true_extent == b.size) {
        status = rmaib_mpi_flat_append(&f, 0, (size_t) b.size);
    } else {
        status = rmaib_mpi_flat_probe(dt, &f);
    }
    if (status)
        goto fn_fail;
    if (f.n > NAMED_MAX_BLOCKS)
        goto fn_exit;
    *fits = 1;
    if (f.n)
        memcpy(nb->blocks, f.b, f.n * sizeof *f.b);
    basic = rmaib_mpi_kind_basic(kind, b.size);
    atomic_init(&nb->h.refs, PERMANENT);
    rmaib_mpi_layout_set(&nb->h.lay, &b, nb->blocks, f.n, basic, (size_t) b.size);

  fn_exit:
    flat_free(&f);
    return status;
  fn_fail:
    goto fn_exit;
}
