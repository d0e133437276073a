# The mpi_f08 smoke test: a program whose fence went straight to PMPI (issue 35).
TESTS += test/fortran/f08_smoke.sh
EXTRA_DIST += test/fortran/f08_smoke.sh test/fortran/f08_fence_put.f90
