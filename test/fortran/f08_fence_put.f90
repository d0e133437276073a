! The smallest use mpi_f08 RMA program of issue 35: MPI_Win_create, MPI_Win_fence,
! MPI_Put, MPI_Win_fence.  MPICH's mpi_f08 wrappers call PMPI_Win_fence and so
! bypassed rmaib, which had made the window: "Wrong synchronization of RMA calls".
! Checks every integer put, as TAP from rank 0.
program f08_fence_put
    use mpi_f08
    implicit none
    integer, parameter :: n = 16
    integer :: me, np, right, left, i, errs, tot
    integer :: buf(n), src(n)
    type(MPI_Win) :: win
    integer(kind=MPI_ADDRESS_KIND) :: bytes, disp
    call MPI_Init()
    call MPI_Comm_rank(MPI_COMM_WORLD, me)
    call MPI_Comm_size(MPI_COMM_WORLD, np)
    right = mod(me + 1, np)
    left = mod(me + np - 1, np)
    buf = -1
    do i = 1, n
        src(i) = me * 1000 + i
    end do
    bytes = n * 4
    call MPI_Win_create(buf, bytes, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win)
    call MPI_Win_fence(0, win)
    disp = 0
    call MPI_Put(src, n, MPI_INTEGER, right, disp, n, MPI_INTEGER, win)
    call MPI_Win_fence(0, win)
    errs = 0
    do i = 1, n
        if (buf(i) /= left * 1000 + i) errs = errs + 1
    end do
    call MPI_Win_free(win)
    call MPI_Allreduce(errs, tot, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
    if (me == 0) then
        if (tot == 0) then
            print '(a)', 'ok 1 - use mpi_f08: MPI_Win_create, fence, MPI_Put, fence move every integer'
        else
            print '(a,i0,a)', 'not ok 1 - use mpi_f08: ', tot, ' integers wrong after fence, put, fence'
        end if
        print '(a)', '1..1'
    end if
    call MPI_Finalize()
end program
