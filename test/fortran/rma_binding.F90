! One RMA program for each of MPI's three Fortran bindings, compiled three times
! (test/fortran/Makefile.mk): -DRMA_F08 (use mpi_f08), -DRMA_MPI (use mpi) and
! -DRMA_MPIF (include 'mpif.h').  Only the declarations differ; every call is the
! same text, so a binding that reaches rmaib less than another shows as a failure
! of the same check.  On 2 or more ranks, each rank r with right neighbour
! r+1 and left neighbour r-1:
!   - the windows (MPI_Win_create on an integer and a double array) are rmaib's
!     when RMAIB_TEST_SERVED=1 (MPI_Win_get_info names rmaib_lock): through the
!     drop-in and the netmod, not on stock MPICH;
!   - fence: MPI_Put to the right, MPI_Get from the right;
!   - post/start/complete/wait: MPI_Put to the right, the left posting;
!   - MPI_Win_lock exclusive (MPI_Put), then shared (MPI_Get);
!   - MPI_Win_lock_all: MPI_Accumulate(MPI_SUM) of integers and of doubles from
!     every rank into every rank;
!   - fence: MPI_Accumulate(MPI_SUM) of doubles and integers into the right;
!   - MPI_Rput and MPI_Rget with MPI_Wait inside lock_all;
!   - MPI_Rget requests completed by MPI_Waitall, Waitany, Waitsome, Testall,
!     Testany and Testsome, whose indices count from 1 (MPICH 4.0.2's own mpi_f08
!     gives C's 0-based ones, pmodels/mpich#6270), and a message of MPI_Improbe.
! Every element moved is checked.  Memory MPI writes behind the compiler's back (the
! windows, MPI_Get's buffers) is read after each synchronising call only behind
! MPI_F_SYNC_REG (mpi_f08) or declared VOLATILE (the others), the two ways MPI-4
! section 19.1.17 gives, so the compiler cannot keep an old copy in a register:
! MPICH 4.0.2's mpif.h/use mpi MPI_F_SYNC_REG takes an ierror the standard's has
! not, and stores into whatever follows the buffer on the stack (a segfault).
! Prints TAP from rank 0.  make check links it with librmaib-mpi; on the stock MPI
! alone: mpif90.mpich -DRMA_F08 rma_binding.F90 && mpiexec.mpich -n 2 ./a.out
#if defined(RMA_F08)
#define HANDLE(kind) type(kind)
#define BINDING "use mpi_f08"
#define SYNC_REG(x) call MPI_F_SYNC_REG(x)
#define MPIMEM
#elif defined(RMA_MPI)
#define HANDLE(kind) integer
#define BINDING "use mpi"
#define SYNC_REG(x) continue
#define MPIMEM , volatile
#elif defined(RMA_MPIF)
#define HANDLE(kind) integer
#define BINDING "mpif.h"
#define SYNC_REG(x) continue
#define MPIMEM , volatile
#else
#error define RMA_F08, RMA_MPI or RMA_MPIF
#endif
program rma_binding
#if defined(RMA_F08)
    use mpi_f08
#elif defined(RMA_MPI)
    use mpi
#endif
    implicit none
#if defined(RMA_MPIF)
    include 'mpif.h'
#endif
    integer, parameter :: n = 64
    integer MPIMEM :: ibuf(n), igot(n)
    double precision MPIMEM :: dbuf(n), dgot(n)
    integer :: isrc(n)
    double precision :: dsrc(n)
    HANDLE(MPI_Win) :: iwin, dwin
    HANDLE(MPI_Group) :: world_group, left_group, right_group
    HANDLE(MPI_Request) :: req, reqs(3)
    HANDLE(MPI_Message) :: msg
    integer :: idx, outc, ind(3), done, k, sval, rval
#if defined(RMA_F08) && defined(RMAIB_TEST_NETMOD)
    ! The netmod's mpi_f08 is MPICH 4.0.2's own, whose indices count from 0
    ! (pmodels/mpich#6270, fixed in 4.1); the drop-in's count from 1.
    integer, parameter :: off = -1
#else
    integer, parameter :: off = 0
#endif
    HANDLE(MPI_Info) :: info
    integer(kind=MPI_ADDRESS_KIND) :: isize, dsize, zero
    integer :: me, np, left, right, ierr, i, r, isz, dsz
    integer :: npoints, nbad
    character(len=200) :: why
    character(len=MPI_MAX_INFO_VAL) :: val
    character(len=32) :: served
    logical :: flag

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
    right = mod(me + 1, np)
    left = mod(me + np - 1, np)
    npoints = 0
    nbad = 0
    zero = 0
    if (me == 0) print '(a)', '# binding: ' // BINDING
    if (np < 2) then
        if (me == 0) print '(a)', '1..0 # SKIP needs at least 2 ranks'
        call MPI_Finalize(ierr)
        stop
    end if

    isz = storage_size(ibuf(1)) / 8
    dsz = storage_size(dbuf(1)) / 8
    isize = n * isz
    dsize = n * dsz
    ibuf = -1
    dbuf = -1.0d0
    call MPI_Win_create(ibuf, isize, isz, MPI_INFO_NULL, MPI_COMM_WORLD, iwin, ierr)
    call MPI_Win_create(dbuf, dsize, dsz, MPI_INFO_NULL, MPI_COMM_WORLD, dwin, ierr)
    call MPI_Comm_group(MPI_COMM_WORLD, world_group, ierr)
    call MPI_Group_incl(world_group, 1, [left], left_group, ierr)
    call MPI_Group_incl(world_group, 1, [right], right_group, ierr)

    ! rmaib answers the key with its lock algorithm on the windows it serves; the
    ! host MPI knows no such key.
    call get_environment_variable("RMAIB_TEST_SERVED", served)
    if (served == '1') then
        call MPI_Win_get_info(iwin, info, ierr)
        call MPI_Info_get(info, 'rmaib_lock', MPI_MAX_INFO_VAL, val, flag, ierr)
        call MPI_Info_free(info, ierr)
        if (.not. flag) call fail('MPI_Win_get_info has no rmaib_lock: the host MPI made the window')
        call point('rmaib serves the window (MPI_Win_get_info names rmaib_lock)')
    else
        call skip('rmaib serves the window', 'RMAIB_TEST_SERVED is not 1 (stock MPI run)')
    end if

    ! ---- fence: put to the right, get back from the right -------------------------
    isrc = [(pattern(me, i, 1), i = 1, n)]
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, iwin, ierr)
    call MPI_Put(isrc, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, ierr)
    call MPI_Win_fence(0, iwin, ierr)
    SYNC_REG(ibuf)
    do i = 1, n
        call want_int(ibuf(i), pattern(left, i, 1), 'fence put', i)
    end do
    call point('fence: MPI_Put wrote every element of the left neighbour''s data')
    igot = -1
    call MPI_Get(igot, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, ierr)
    ! NOSUCCEED: the epochs that follow are of other kinds.
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, iwin, ierr)
    SYNC_REG(igot)
    do i = 1, n
        call want_int(igot(i), pattern(me, i, 1), 'fence get', i)
    end do
    call point('fence: MPI_Get read back every element this rank put')

    ! ---- post/start/complete/wait: the left posts, this rank puts to the right -----
    isrc = [(pattern(me, i, 2), i = 1, n)]
    call MPI_Win_post(left_group, 0, iwin, ierr)
    call MPI_Win_start(right_group, 0, iwin, ierr)
    call MPI_Put(isrc, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, ierr)
    call MPI_Win_complete(iwin, ierr)
    call MPI_Win_wait(iwin, ierr)
    SYNC_REG(ibuf)
    do i = 1, n
        call want_int(ibuf(i), pattern(left, i, 2), 'PSCW put', i)
    end do
    call point('post/start/complete/wait: MPI_Put wrote every element')

    ! ---- lock/unlock: exclusive put, then shared get --------------------------------
    isrc = [(pattern(me, i, 3), i = 1, n)]
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, iwin, ierr)
    call MPI_Put(isrc, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, ierr)
    call MPI_Win_unlock(right, iwin, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    ! The local window is read under a lock of its own (MPI's separate memory model).
    call MPI_Win_lock(MPI_LOCK_SHARED, me, 0, iwin, ierr)
    SYNC_REG(ibuf)
    do i = 1, n
        call want_int(ibuf(i), pattern(left, i, 3), 'exclusive-lock put', i)
    end do
    call MPI_Win_unlock(me, iwin, ierr)
    call point('MPI_Win_lock exclusive: MPI_Put wrote every element')
    igot = -1
    call MPI_Win_lock(MPI_LOCK_SHARED, right, 0, iwin, ierr)
    call MPI_Get(igot, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, ierr)
    call MPI_Win_unlock(right, iwin, ierr)
    SYNC_REG(igot)
    do i = 1, n
        call want_int(igot(i), pattern(me, i, 3), 'shared-lock get', i)
    end do
    call point('MPI_Win_lock shared: MPI_Get read every element')

    ! ---- lock_all: every rank adds into every rank, integers and doubles -------------
    ! Rank r adds (r+1)*i to element i everywhere: the sum is i*np*(np+1)/2, exact
    ! in doubles too (halves of integers).
    ! Barriers around the local stores: no peer reads this window any more (the
    ! shared-lock get above), and none adds to it before it is zero.
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, iwin, ierr)
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, dwin, ierr)
    ibuf = 0
    dbuf = 0.0d0
    SYNC_REG(ibuf)
    SYNC_REG(dbuf)
    call unlock_own()
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    isrc = [((me + 1) * i, i = 1, n)]
    dsrc = [((me + 1) * i * 0.5d0, i = 1, n)]
    call MPI_Win_lock_all(0, iwin, ierr)
    call MPI_Win_lock_all(0, dwin, ierr)
    do r = 0, np - 1
        call MPI_Accumulate(isrc, n, MPI_INTEGER, r, zero, n, MPI_INTEGER, MPI_SUM, iwin, ierr)
        call MPI_Accumulate(dsrc, n, MPI_DOUBLE_PRECISION, r, zero, n, MPI_DOUBLE_PRECISION, &
                            MPI_SUM, dwin, ierr)
    end do
    call MPI_Win_flush_all(iwin, ierr)
    call MPI_Win_flush_all(dwin, ierr)
    call MPI_Win_unlock_all(dwin, ierr)
    call MPI_Win_unlock_all(iwin, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call lock_own()
    do i = 1, n
        call want_int(ibuf(i), i * np * (np + 1) / 2, 'lock_all integer MPI_SUM', i)
        call want_dbl(dbuf(i), i * np * (np + 1) * 0.25d0, 'lock_all double MPI_SUM', i)
    end do
    call unlock_own()
    call point('MPI_Win_lock_all: MPI_Accumulate MPI_SUM from every rank, integer and double')

    ! ---- fence: accumulate into the right on top of the sums ------------------------
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, iwin, ierr)
    call MPI_Win_fence(MPI_MODE_NOPRECEDE, dwin, ierr)
    isrc = [(pattern(me, i, 4), i = 1, n)]
    dsrc = [(pattern(me, i, 4) * 0.25d0, i = 1, n)]
    call MPI_Accumulate(isrc, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, MPI_SUM, iwin, ierr)
    call MPI_Accumulate(dsrc, n, MPI_DOUBLE_PRECISION, right, zero, n, MPI_DOUBLE_PRECISION, &
                        MPI_SUM, dwin, ierr)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, iwin, ierr)
    call MPI_Win_fence(MPI_MODE_NOSUCCEED, dwin, ierr)
    SYNC_REG(ibuf)
    SYNC_REG(dbuf)
    do i = 1, n
        call want_int(ibuf(i), i * np * (np + 1) / 2 + pattern(left, i, 4), 'fence integer MPI_SUM', i)
        call want_dbl(dbuf(i), i * np * (np + 1) * 0.25d0 + pattern(left, i, 4) * 0.25d0, &
                      'fence double MPI_SUM', i)
    end do
    call point('fence: MPI_Accumulate MPI_SUM into the right, integer and double')

    ! ---- request-based: MPI_Rput, MPI_Rget, MPI_Wait inside lock_all -----------------
    ! (the barrier: the right has checked its window before this rank writes it)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    isrc = [(pattern(me, i, 5), i = 1, n)]
    dsrc = [(pattern(me, i, 5) * 0.5d0, i = 1, n)]
    call MPI_Win_lock_all(0, iwin, ierr)
    call MPI_Win_lock_all(0, dwin, ierr)
    call MPI_Rput(isrc, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Rput(dsrc, n, MPI_DOUBLE_PRECISION, right, zero, n, MPI_DOUBLE_PRECISION, dwin, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    ! MPI_Wait completes an Rput at the origin only; the flush makes it visible.
    call MPI_Win_flush(right, iwin, ierr)
    call MPI_Win_flush(right, dwin, ierr)
    call MPI_Win_unlock_all(dwin, ierr)
    call MPI_Win_unlock_all(iwin, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call lock_own()
    do i = 1, n
        call want_int(ibuf(i), pattern(left, i, 5), 'MPI_Rput integer', i)
        call want_dbl(dbuf(i), pattern(left, i, 5) * 0.5d0, 'MPI_Rput double', i)
    end do
    call unlock_own()
    call point('MPI_Rput + MPI_Wait in lock_all: every element, integer and double')
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    igot = -1
    dgot = -1.0d0
    call MPI_Win_lock_all(0, iwin, ierr)
    call MPI_Win_lock_all(0, dwin, ierr)
    call MPI_Rget(igot, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_Rget(dgot, n, MPI_DOUBLE_PRECISION, right, zero, n, MPI_DOUBLE_PRECISION, dwin, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    ! An Rget's data is in the buffer once MPI_Wait returns, before any unlock.
    SYNC_REG(igot)
    SYNC_REG(dgot)
    do i = 1, n
        call want_int(igot(i), pattern(me, i, 5), 'MPI_Rget integer', i)
        call want_dbl(dgot(i), pattern(me, i, 5) * 0.5d0, 'MPI_Rget double', i)
    end do
    call MPI_Win_unlock_all(dwin, ierr)
    call MPI_Win_unlock_all(iwin, ierr)
    call point('MPI_Rget + MPI_Wait in lock_all: every element, integer and double')

    ! ---- arrays of requests: the waits and tests over them, and their indices ---------
    reqs = MPI_REQUEST_NULL
    call MPI_Win_lock_all(0, iwin, ierr)
    call MPI_Win_lock_all(0, dwin, ierr)
    call rget_both(2, 3)
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
    call want_gets('MPI_Waitall')
    call point('MPI_Waitall over two Rgets and a null request: every element')

    call rget_both(2, 0)
    call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
    call want_index(idx, 2, 'MPI_Waitany')
#if defined(RMA_F08)
    ! (MPICH 4.0.2's mpif.h and use mpi add 1 to MPI_UNDEFINED too, pmodels/mpich#6402:
    ! their waits are MPICH's, over rmaib's C calls.)
    call MPI_Waitany(3, reqs, idx, MPI_STATUS_IGNORE, ierr)
    call want_int(idx, MPI_UNDEFINED, 'MPI_Waitany index over null requests', 0)
#endif
    call rget_both(0, 3)
    flag = .false.
    do while (.not. flag)
        call MPI_Testany(3, reqs, idx, flag, MPI_STATUS_IGNORE, ierr)
    end do
    call want_index(idx, 3, 'MPI_Testany')
    call want_gets('MPI_Waitany and MPI_Testany')
    call point('MPI_Waitany and MPI_Testany: indices from 1, MPI_UNDEFINED, every element')

    do k = 1, 2
        call rget_both(1, 3)
        done = 0
        do while (done < 2)
            if (k == 1) then
                call MPI_Waitsome(3, reqs, outc, ind, MPI_STATUSES_IGNORE, ierr)
            else
                call MPI_Testsome(3, reqs, outc, ind, MPI_STATUSES_IGNORE, ierr)
            end if
            if (outc < 0 .or. outc > 2 - done) then
                call want_int(outc, 2 - done, 'MPI_Waitsome/Testsome outcount', k)
                exit
            end if
            do i = 1, outc
                if (ind(i) /= 1 + off .and. ind(i) /= 3 + off) &
                    call want_int(ind(i), 1, 'MPI_Waitsome/Testsome index', k)
            end do
            done = done + outc
        end do
        call want_gets('MPI_Waitsome and MPI_Testsome')
    end do
    call rget_both(1, 2)
    flag = .false.
    do while (.not. flag)
        call MPI_Testall(3, reqs, flag, MPI_STATUSES_IGNORE, ierr)
    end do
    call want_gets('MPI_Testall')
    call MPI_Win_unlock_all(dwin, ierr)
    call MPI_Win_unlock_all(iwin, ierr)
    call point('MPI_Waitsome, MPI_Testsome and MPI_Testall: indices from 1, every element')

    sval = pattern(me, 1, 6)
    call MPI_Isend(sval, 1, MPI_INTEGER, right, 6, MPI_COMM_WORLD, req, ierr)
    flag = .false.
    do while (.not. flag)
        call MPI_Improbe(left, 6, MPI_COMM_WORLD, flag, msg, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_Mrecv(rval, 1, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call want_int(rval, pattern(left, 1, 6), 'the message MPI_Improbe matched', 1)
    call point('MPI_Improbe and MPI_Mrecv: the left neighbour''s message')

    call MPI_Group_free(left_group, ierr)
    call MPI_Group_free(right_group, ierr)
    call MPI_Group_free(world_group, ierr)
    call MPI_Win_free(dwin, ierr)
    call MPI_Win_free(iwin, ierr)
    if (me == 0) print '(a,i0)', '1..', npoints
    call MPI_Finalize(ierr)

contains

    ! The value rank r sends as element i in step s: distinct per rank, element
    ! and step, so a stale or misplaced element shows.
    integer function pattern(r, i, s)
        integer, intent(in) :: r, i, s
        pattern = 100000 * s + 1000 * r + i
    end function pattern

    ! Both of this rank's windows, locked shared to read them (MPI's separate model).
    subroutine lock_own()
        call MPI_Win_lock(MPI_LOCK_SHARED, me, 0, iwin, ierr)
        call MPI_Win_lock(MPI_LOCK_SHARED, me, 0, dwin, ierr)
        SYNC_REG(ibuf)
        SYNC_REG(dbuf)
    end subroutine lock_own

    subroutine unlock_own()
        call MPI_Win_unlock(me, dwin, ierr)
        call MPI_Win_unlock(me, iwin, ierr)
    end subroutine unlock_own

    ! Rgets of the right neighbour's two windows (what this rank Rput there) into
    ! reqs(ri) and reqs(rd), the integers and the doubles; a slot of 0 gets none.
    subroutine rget_both(ri, rd)
        integer, intent(in) :: ri, rd
        igot = -1
        dgot = -1.0d0
        if (ri > 0) call MPI_Rget(igot, n, MPI_INTEGER, right, zero, n, MPI_INTEGER, iwin, &
                                  reqs(ri), ierr)
        if (rd > 0) call MPI_Rget(dgot, n, MPI_DOUBLE_PRECISION, right, zero, n, &
                                  MPI_DOUBLE_PRECISION, dwin, reqs(rd), ierr)
        if (ri == 0) igot = [(pattern(me, i, 5), i = 1, n)]
        if (rd == 0) dgot = [(pattern(me, i, 5) * 0.5d0, i = 1, n)]
    end subroutine rget_both

    ! After the waits: every element rget_both fetched, and no request left.
    subroutine want_gets(what)
        character(len=*), intent(in) :: what
        integer :: j
        SYNC_REG(igot)
        SYNC_REG(dgot)
        do j = 1, n
            call want_int(igot(j), pattern(me, j, 5), what // ' integer', j)
            call want_dbl(dgot(j), pattern(me, j, 5) * 0.5d0, what // ' double', j)
        end do
        do j = 1, 3
            if (reqs(j) /= MPI_REQUEST_NULL) call fail(what // ': a request is not MPI_REQUEST_NULL')
        end do
    end subroutine want_gets

    ! An index into reqs that one of the waits returned: from 1, as MPI says.
    subroutine want_index(got, want, what)
        integer, intent(in) :: got, want
        character(len=*), intent(in) :: what
        call want_int(got, want + off, what // ' index', want)
    end subroutine want_index

    subroutine fail(msg)
        character(len=*), intent(in) :: msg
        if (nbad == 0) why = msg
        nbad = nbad + 1
    end subroutine fail

    subroutine want_int(got, want, what, i)
        integer, intent(in) :: got, want, i
        character(len=*), intent(in) :: what
        character(len=200) :: msg
        if (got /= want) then
            write (msg, '(a,a,i0,a,i0,a,i0)') what, ': element ', i, ' is ', got, ', want ', want
            call fail(trim(msg))
        end if
    end subroutine want_int

    subroutine want_dbl(got, want, what, i)
        double precision, intent(in) :: got, want
        integer, intent(in) :: i
        character(len=*), intent(in) :: what
        character(len=200) :: msg
        ! Sums of multiples of 1/4 below 2^40 are exact: any difference is an error.
        if (got /= want) then
            write (msg, '(a,a,i0,a,g0,a,g0)') what, ': element ', i, ' is ', got, ', want ', want
            call fail(trim(msg))
        end if
    end subroutine want_dbl

    ! Collective: one TAP point for every check since the previous one.
    subroutine point(desc)
        character(len=*), intent(in) :: desc
        integer :: anybad, e
        if (nbad > 0) then
            print '(a,i0,a,a,a,i0,a)', '# rank ', me, ': ', trim(why), ' (', nbad, ' failed checks)'
            flush (6)
        end if
        call MPI_Allreduce(nbad, anybad, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, e)
        npoints = npoints + 1
        if (me == 0) then
            if (anybad > 0) then
                print '(a,i0,a,a)', 'not ok ', npoints, ' - ', desc
            else
                print '(a,i0,a,a)', 'ok ', npoints, ' - ', desc
            end if
            flush (6)
        end if
        nbad = 0
    end subroutine point

    subroutine skip(desc, reason)
        character(len=*), intent(in) :: desc, reason
        npoints = npoints + 1
        if (me == 0) print '(a,i0,a,a,a,a)', 'ok ', npoints, ' - ', desc, ' # SKIP ', reason
    end subroutine skip
end program rma_binding
