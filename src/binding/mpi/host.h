/*
 * The host interface over PMPI (host.c).
 */
#ifndef RMAIB_BINDING_HOST_H_INCLUDED
#define RMAIB_BINDING_HOST_H_INCLUDED

/* Register the PMPI host table with the core, once; first check that the MPI
 * the program runs on is the one this library was built for (else say so, exit). */
void rmaib_mpi_host_register(void);

#ifdef RMAIB_NETMOD
/* Non-zero while rmaib itself is inside MPICH's progress engine (netmod.c).  Read at
 * every turn of MPICH's progress: initial-exec, no __tls_get_addr call (libmpi
 * loads librmaib-nm at start, so its TLS is static). */
extern __thread int rmaib_nm_busy __attribute__((tls_model("initial-exec")));
/* Non-zero while rmaib serves a collective, creates a window or calls a host
 * collective on this thread: those calls reach MPICH's collective hooks again,
 * which then run MPICH's algorithm (netmod.c). */
extern __thread int rmaib_nm_nested __attribute__((tls_model("initial-exec")));
#define RMAIB_NM_NESTED(stmt) do { rmaib_nm_nested++; stmt; rmaib_nm_nested--; } while (0)
#else
#define RMAIB_NM_NESTED(stmt) do { stmt; } while (0)
#endif

#endif
