# Sourced by test/run-test and the test/tree scripts that run programs: in a
# sanitized build (RMAIB_SANITIZERS, from configure's --enable-sanitizers, handed
# over by make check), set the sanitizers' runtime options so that any report ends
# the program with a non-zero status, point them at the suppressions of this
# folder (the host MPI's own reports, none of rmaib's), and set san_runtime to the
# runtime a program must preload ahead of librmaib-mpi when the library comes in
# by LD_PRELOAD or the program itself is not instrumented.  Options already in the
# environment come first.  In a build without sanitizers it sets nothing.
# Needs $top_srcdir.
san_runtime=
case ",${RMAIB_SANITIZERS:-}," in
,,) ;;
*)
    san_supp=$top_srcdir/test/sanitizers
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}halt_on_error=1:detect_leaks=1:check_initialization_order=1:strict_string_checks=1"
    LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$san_supp/lsan.supp:print_suppressions=0"
    UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}suppressions=$san_supp/ubsan.supp:print_stacktrace=1:halt_on_error=1"
    # ignore_noninstrumented_modules: a provider thread's memcpy into window
    # memory (an RDMA write landing) is libfabric's, ordered by its own flag write,
    # which TSan cannot see; tsan.supp's libfabric line misses it whenever TSan has
    # lost that write's stack ("failed to restore the stack", lock_counter over
    # sockets once in CI).
    TSAN_OPTIONS="${TSAN_OPTIONS:+$TSAN_OPTIONS:}suppressions=$san_supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1:history_size=7:ignore_noninstrumented_modules=1"
    # hwloc's pci plugin (loaded by MPICH's topology detection) dlcloses
    # libpciaccess at exit with its pci_system still allocated: LSan reports that
    # memory from "<unknown module>", which no suppression can name.  The host
    # MPI's view of PCI devices plays no part in a run on one node.
    HWLOC_COMPONENTS=${HWLOC_COMPONENTS:--pci}
    export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS TSAN_OPTIONS HWLOC_COMPONENTS
    case ",$RMAIB_SANITIZERS," in *,thread,*)
        # MPICH's UCX patches mmap and friends (libucm's hooks) under TSan's own
        # interceptors, and a bare MPI_Init/MPI_Finalize program then dies of
        # SIGSEGV; the hooks only serve UCX's registration cache.
        UCX_MEM_MMAP_HOOK_MODE=${UCX_MEM_MMAP_HOOK_MODE:-none}
        export UCX_MEM_MMAP_HOOK_MODE ;;
    esac
    case ",$RMAIB_SANITIZERS," in
        *,address,*) san_runtime=libasan.so ;;
        *,thread,*) san_runtime=libtsan.so ;;
    esac
    if [ -n "$san_runtime" ]; then
        san_runtime=$(${CC:-gcc} -print-file-name="$san_runtime" 2>/dev/null)
        case $san_runtime in /*) ;; *) san_runtime= ;; esac
    fi ;;
esac
