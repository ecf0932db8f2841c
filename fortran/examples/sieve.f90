! The prime sieve of Swartz's Appendices B and C, balanced by isocost from
! Fortran (docs/fortran.md). Each rank tests the integers of its interval for
! primality by trial division (Appendix B's find_primes) and times the work;
! run 1 gives every rank an equal interval of [2, MAXN]; the timings are fitted
! to the sieve model of eq. (4), t(x) = A·x^p/(ln x − c), and the interval is
! recut so that every rank's predicted time is equal (eq. (1)); run 2 uses
! the new intervals. Reports the prime count of both runs, L_E (eqs. (2)-(3))
! before and after, and the cuts.
!
!   mpiexec -n 4 sieve_fortran [MAXN [CLOCK [MIN_LE]]]
!   MAXN    the largest integer tested (default 2000000)
!   CLOCK   cpu: cpu_time() of each rank, for more ranks than cores (ranks that
!           share a core would otherwise time each other's work); wall:
!           MPI_Wtime(), when every rank has a core of its own; ops: the
!           trial divisions counted, one nanosecond each, a cost that is the
!           same on every machine and run, so the check line's verdict is
!           too (CTest uses it) (default cpu)
!   MIN_LE  the L_E after balancing, in percent, that the check line asks
!           for (default 90)
! The last line says PASS when both runs count pi(MAXN) primes (for the MAXN
! whose pi is listed below) and L_E after >= MIN_LE; the exit status is
! nonzero otherwise.
program sieve_fortran
  use, intrinsic :: iso_fortran_env, only: int64, real64, output_unit
  use, intrinsic :: iso_c_binding, only: c_double
  use mpi_f08
  use isocost
  implicit none
  integer, parameter :: pieces = 4   ! timed parts of each rank's interval: fit samples
  integer, parameter :: repeats = 3  ! each part's fastest timing is kept
  ! Where the model starts: eq. (4) increases only above exp(c + 1/p) ≈ 6, and
  ! [2, 1024) is a negligible share of the work, so rank 0's first sample is
  ! taken as starting here.
  integer(int64), parameter :: model_lo = 1024
  integer(int64) :: maxn, known, primes_run(2)
  integer(int64), allocatable :: low(:), cuts(:)
  ! Run 1's timed parts on rank 0: the fit's interval samples.
  real(c_double), allocatable :: sample_lo(:), sample_hi(:), sample_seconds(:)
  real(real64) :: min_le, le(2)
  logical :: ok
  ! CLOCK: what now() reads (cpu_time, MPI_Wtime or the division count).
  integer, parameter :: clock_cpu = 1, clock_wall = 2, clock_ops = 3
  integer :: clock
  ! Trial divisions done so far on this rank (the ops clock).
  integer(int64) :: divisions = 0
  integer :: rank, ranks, i

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call read_arguments(maxn, clock, min_le)
  low = primes_up_to(isqrt(maxn))  ! Appendix B step 1, on every rank
  allocate (cuts(0:ranks))
  do i = 0, ranks  ! run 1: equal intervals of [2, MAXN + 1)
    cuts(i) = 2 + (maxn - 1) * i / ranks
  end do
  if (rank == 0) then
    print '(a, i0, a, i0, a, a, a, i0, a, i0, a)', 'sieve_fortran: MAXN = ', maxn, ', ', ranks, &
      ' ranks, ', trim(clock_name(clock)), ', ', &
      pieces, ' timed parts per rank, fastest of ', repeats
  end if
  call run(1, 'equal intervals', cuts, primes_run(1), le(1))
  call rebalance(cuts)
  call run(2, 'isocost cuts', cuts, primes_run(2), le(2))

  if (rank == 0) then
    known = prime_count(maxn)
    ok = primes_run(1) == primes_run(2) .and. le(2) >= min_le
    if (known > 0) ok = ok .and. primes_run(1) == known
    print '(a, f6.2, a, f6.2, a)', 'L_E before ', le(1), ' %, after ', le(2), ' %'
    if (known > 0) then
      print '(a, i0, a, i0, a, f6.2, a, f6.2, a, a)', 'check: primes ', primes_run(2), ' = pi(', &
        maxn, ') in both runs, L_E after ', le(2), ' % >= ', min_le, ' %: ', &
        merge('PASS', 'FAIL', ok)
    else
      print '(a, i0, a, f6.2, a, f6.2, a, a)', 'check: primes ', primes_run(2), &
        ' in both runs (pi(MAXN) not listed), L_E after ', le(2), ' % >= ', min_le, ' %: ', &
        merge('PASS', 'FAIL', ok)
    end if
    flush (output_unit)
  end if
  call MPI_Bcast(ok, 1, MPI_LOGICAL, 0, MPI_COMM_WORLD)
  ! The main program's arrays are not deallocated at its end (LeakSanitizer).
  deallocate (low, cuts)
  if (allocated(sample_lo)) deallocate (sample_lo, sample_hi, sample_seconds)
  call MPI_Finalize()
  if (.not. ok) error stop 1

contains

  subroutine read_arguments(maxn, clock, min_le)
    integer(int64), intent(out) :: maxn
    integer, intent(out) :: clock
    real(real64), intent(out) :: min_le
    character(len=64) :: arg
    integer :: io
    maxn = 2000000
    clock = clock_cpu
    min_le = 90
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read (arg, *, iostat=io) maxn
      if (io /= 0 .or. maxn < 100000) call usage('MAXN: expected an integer >= 100000, got '//arg)
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      select case (arg)
      case ('cpu'); clock = clock_cpu
      case ('wall'); clock = clock_wall
      case ('ops'); clock = clock_ops
      case default; call usage('CLOCK: expected cpu, wall or ops, got '//trim(arg))
      end select
    end if
    if (command_argument_count() >= 3) then
      call get_command_argument(3, arg)
      read (arg, *, iostat=io) min_le
      if (io /= 0) call usage('MIN_LE: expected a number, got '//arg)
    end if
  end subroutine read_arguments

  subroutine usage(why)
    character(len=*), intent(in) :: why
    if (rank == 0) print '(a)', 'sieve_fortran: '//trim(why)// &
      '; usage: mpiexec -n P sieve_fortran [MAXN [cpu|wall|ops [MIN_LE]]]'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end subroutine usage

  ! pi(n) for the n checked here (0: not listed).
  integer(int64) function prime_count(n)
    integer(int64), intent(in) :: n
    select case (n)
    case (1000000); prime_count = 78498
    case (2000000); prime_count = 148933
    case (4000000); prime_count = 283146
    case (10000000); prime_count = 664579
    case default; prime_count = 0
    end select
  end function prime_count

  integer(int64) function isqrt(n)
    integer(int64), intent(in) :: n
    isqrt = int(sqrt(real(n, real64)), int64)
    do while (isqrt * isqrt > n)
      isqrt = isqrt - 1
    end do
    do while ((isqrt + 1) * (isqrt + 1) <= n)
      isqrt = isqrt + 1
    end do
  end function isqrt

  ! The primes <= n (n small: sqrt(MAXN)), by the sieve of Eratosthenes.
  function primes_up_to(n) result(p)
    integer(int64), intent(in) :: n
    integer(int64), allocatable :: p(:)
    logical :: composite(2:n)
    integer(int64) :: k
    composite = .false.
    do k = 2, n
      if (k * k > n) exit
      if (.not. composite(k)) composite(k * k::k) = .true.
    end do
    p = pack([(k, k = 2, n)], .not. composite)
  end function primes_up_to

  ! Appendix B's find_primes: the primes in [a, b) by trial division of each
  ! odd n by the primes up to sqrt(n); most of the time goes to the primes,
  ! which run the loop to its end.
  integer(int64) function count_primes(a, b) result(count)
    integer(int64), intent(in) :: a, b
    integer(int64) :: n
    integer :: ip
    logical :: prime
    count = 0
    if (a <= 2 .and. b > 2) count = 1
    do n = max(3_int64, a + 1 - mod(a, 2_int64)), b - 1, 2
      prime = .true.
      do ip = 2, size(low)  ! low(1) = 2: n is odd
        if (low(ip) * low(ip) > n) exit
        if (mod(n, low(ip)) == 0) then
          prime = .false.
          exit
        end if
      end do
      divisions = divisions + (ip - 1)  ! the loop's passes (the ops clock)
      if (prime) count = count + 1
    end do
  end function count_primes

  real(real64) function now()
    select case (clock)
    case (clock_cpu); call cpu_time(now)
    case (clock_wall); now = MPI_Wtime()
    case default; now = 1e-9_real64 * real(divisions, real64)
    end select
  end function now

  character(len=32) function clock_name(c)
    integer, intent(in) :: c
    select case (c)
    case (clock_cpu); clock_name = 'CPU time (cpu_time)'
    case (clock_wall); clock_name = 'wall time (MPI_Wtime)'
    case default; clock_name = 'trial divisions (1 ns each)'
    end select
  end function clock_name

  ! Runs the sieve on the intervals [cuts(i), cuts(i+1)); every rank returns
  ! the prime count and L_E of all ranks; rank 0 prints the cuts and times.
  subroutine run(number, label, cuts, primes, l_e)
    integer, intent(in) :: number
    character(len=*), intent(in) :: label
    integer(int64), intent(in) :: cuts(0:)
    integer(int64), intent(out) :: primes
    real(real64), intent(out) :: l_e
    real(real64) :: best(pieces), times(ranks), t0, dt
    integer(int64) :: mine, found, a, b
    type(isocost_load_stats_t) :: stats
    integer :: j, r
    best = huge(1.0_real64)
    mine = 0
    do r = 1, repeats
      call MPI_Barrier(MPI_COMM_WORLD)  ! the ranks start each repeat together
      do j = 1, pieces
        call piece(cuts(rank), cuts(rank + 1), j, a, b)
        t0 = now()
        found = count_primes(a, b)
        dt = now() - t0
        if (r == 1) mine = mine + found
        best(j) = min(best(j), dt)
      end do
    end do
    call MPI_Allgather(sum(best), 1, MPI_DOUBLE_PRECISION, times, 1, MPI_DOUBLE_PRECISION, &
                       MPI_COMM_WORLD)
    call MPI_Allreduce(mine, primes, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    call isocost_load_stats(times, stats)
    l_e = stats%l_e
    if (number == 1) call fit_samples(cuts, best)
    if (rank == 0) then
      print '(a, i0, a, a, a)', 'run ', number, ' (', label, ')'
      print '(a, *(1x, i0))', '  cuts  ', cuts
      print '(a, *(1x, f8.4))', '  times ', times
      print '(a, i0, a, f6.2, a, f6.2, a)', '  primes ', primes, ', L_E ', stats%l_e, &
        ' %, efficiency ', 100 * stats%efficiency, ' %'
    end if
  end subroutine run

  ! Part j of [lo, hi) split in `pieces`.
  subroutine piece(lo, hi, j, a, b)
    integer(int64), intent(in) :: lo, hi
    integer, intent(in) :: j
    integer(int64), intent(out) :: a, b
    a = lo + (hi - lo) * (j - 1) / pieces
    b = lo + (hi - lo) * j / pieces
  end subroutine piece

  ! Rank 0 keeps every rank's timed parts of run 1: the samples of the fit.
  subroutine fit_samples(cuts, best)
    integer(int64), intent(in) :: cuts(0:)
    real(real64), intent(in) :: best(pieces)
    real(real64) :: parts(pieces, ranks)
    integer :: j, r
    integer(int64) :: a, b
    call MPI_Gather(best, pieces, MPI_DOUBLE_PRECISION, parts, pieces, MPI_DOUBLE_PRECISION, 0, &
                    MPI_COMM_WORLD)
    if (rank /= 0) return
    allocate (sample_lo(0), sample_hi(0), sample_seconds(0))
    do r = 1, ranks
      do j = 1, pieces
        call piece(cuts(r - 1), cuts(r), j, a, b)
        if (b <= model_lo) cycle
        sample_lo = [sample_lo, real(max(a, model_lo), c_double)]
        sample_hi = [sample_hi, real(b, c_double)]
        sample_seconds = [sample_seconds, real(parts(j, r), c_double)]
      end do
    end do
  end subroutine fit_samples

  ! Fits eq. (4) to run 1's samples on rank 0, cuts [model_lo, MAXN + 1] into
  ! integer intervals of equal predicted time, and sends the cuts to all.
  subroutine rebalance(cuts)
    integer(int64), intent(inout) :: cuts(0:)
    type(isocost_model) :: model
    type(isocost_fit_summary) :: fit
    real(c_double) :: x(0:ranks)
    if (rank == 0) then
      ! No status argument: a failure prints isocost's message and stops.
      call isocost_fit(sample_lo, sample_hi, sample_seconds, 'sieve', model, fit)
      print '(a, es11.4, a, f6.4, a, f6.4, a, i0, a)', 'fit (sieve, eq. (4)): A = ', &
        fit%parameters(1), ', p = ', fit%parameters(2), ', relative rms error ', fit%rmse, &
        ' over ', size(sample_lo), ' timed parts'
      call isocost_partition(model, ranks, x, integer=.true.)
      call isocost_model_free(model)
      cuts = nint(x, int64)
      cuts(0) = 2  ! rank 0 also owns [2, model_lo)
    end if
    call MPI_Bcast(cuts, ranks + 1, MPI_INTEGER8, 0, MPI_COMM_WORLD)
  end subroutine rebalance
end program sieve_fortran
