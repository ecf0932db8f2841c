! The balancer of module isocost in a time-step loop (docs/fortran.md). N
! elements of a 1-D array; element g (its global id, from 0) costs
! 10 + 90·g/N operations a step, so with equal blocks the last of 4 ranks
! works about 4 times as long as the first. Each rank records its step's count of
! operations as the step's time (1 ns each): the same on every run, so the
! balancer's decisions and the verdict are too. The balancer is checked every
! step; when it decides to move, each element's value and id migrate
! together.
!
!   mpiexec -n 4 balancer_fortran [N [STEPS [MIN_EFFICIENCY]]]
!   N               elements (default 4000)
!   STEPS           time steps (default 30; the balancer checks every 10th)
!   MIN_EFFICIENCY  T_avg/T_max of the last step, in percent, that the check
!                   line asks for; the first step's must be below it (default 95)
! The last line says PASS when every id is held exactly once, each rank's ids
! are its range [begin, begin + count), every value is the one its id
! computes, and the efficiency rose past MIN_EFFICIENCY; the exit status is
! nonzero otherwise.
program balancer_fortran
  use, intrinsic :: iso_c_binding, only: c_double, c_int64_t, c_size_t, c_loc, c_sizeof
  use mpi_f08
  use isocost
  implicit none
  integer(c_int64_t) :: n, begin, count, k, ops, checks(3)
  integer :: steps, step, rank, ranks
  real(c_double) :: min_efficiency, first, last
  ! The two migrated arrays: each element's value and its global id.
  real(c_double), allocatable, target :: values(:)
  integer(c_int64_t), allocatable, target :: ids(:)
  type(isocost_balancer) :: balancer
  type(isocost_balancer_options) :: options
  type(isocost_balancer_decision) :: decision
  logical :: conserved, ranges, consistent, balanced, ok
  ! Bytes of one element of each array.
  integer(c_size_t), parameter :: element_bytes(2) = [c_sizeof(0.0_c_double), &
                                                      c_sizeof(0_c_int64_t)]

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call read_arguments()
  call isocost_balancer_options_init(options)
  ! Given costs of a decision and of moving data, not measured ones: the
  ! same decision on every run.
  options%decision_seconds = 1d-4
  options%comm_latency = 1d-6
  options%comm_per_byte = 1d-9
  call isocost_balancer_create(MPI_COMM_WORLD%mpi_val, n, balancer, options=options)
  call isocost_balancer_local(balancer, begin, count)
  ids = [(begin + k, k = 0, count - 1)]
  values = real(ids, c_double)
  first = 0
  last = 0
  if (rank == 0) print '(a, i0, a, i0, a, i0, a)', 'balancer_fortran: ', n, ' elements, ', &
    ranks, ' ranks, ', steps, ' steps; element g costs 10 + 90 g / N operations'

  do step = 1, steps
    call compute(ops)
    last = step_efficiency(ops)
    if (step == 1) first = last
    call isocost_balancer_check(balancer, real(element_bytes(1) + element_bytes(2), c_double), &
                                decision)
    if (decision%checked /= 0 .and. rank == 0) print '(a, i3, a, f6.2, 4a)', 'step ', step, &
      ': efficiency ', 100 * decision%efficiency, ' % over the window: ', &
      trim(action_name(decision%action)), ', ', isocost_decision_reason(decision)
    if (decision%action /= ISOCOST_ACTION_NONE) call migrate()
  end do

  ! ids conserved: n of them in all, with the sum and the sum of squares of 0..n-1.
  call MPI_Allreduce([size(ids, kind=c_int64_t), sum(ids), sum(ids * ids)], checks, 3, &
                     MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
  conserved = all(checks == [n, n * (n - 1) / 2, (n - 1) * n * (2 * n - 1) / 6])
  call isocost_balancer_local(balancer, begin, count)
  ranges = all_ranks(size(ids, kind=c_int64_t) == count .and. &
                     all(ids == [(begin + k, k = 0, count - 1)]))
  consistent = all_ranks(values_match())
  balanced = first < min_efficiency .and. last >= min_efficiency
  ok = conserved .and. ranges .and. consistent .and. balanced
  if (rank == 0) print '(5a, f6.2, a, f6.2, a, f6.2, 3a)', 'check: ids conserved ', &
    yes(conserved), ', ranges held '//yes(ranges), ', values match ids '//yes(consistent), &
    ', efficiency ', 100 * first, ' % -> ', 100 * last, ' % (>= ', 100 * min_efficiency, &
    ' %) ', yes(balanced), ': '//merge('PASS', 'FAIL', ok)
  call isocost_balancer_free(balancer)
  deallocate (values, ids)  ! the main program's arrays are not freed at its end (LeakSanitizer)
  call MPI_Finalize()
  if (.not. ok) error stop 1

contains

  subroutine read_arguments()
    character(len=64) :: arg
    integer :: io
    n = 4000
    steps = 30
    min_efficiency = 0.95d0
    if (command_argument_count() >= 1) then
      call get_command_argument(1, arg)
      read (arg, *, iostat=io) n
      if (io /= 0 .or. n < ranks .or. n > 1000000) &
        call usage('N: expected an integer from the ranks to 1000000, got '//arg)
    end if
    if (command_argument_count() >= 2) then
      call get_command_argument(2, arg)
      read (arg, *, iostat=io) steps
      if (io /= 0 .or. steps < 1) call usage('STEPS: expected an integer >= 1, got '//arg)
    end if
    if (command_argument_count() >= 3) then
      call get_command_argument(3, arg)
      read (arg, *, iostat=io) min_efficiency
      if (io /= 0) call usage('MIN_EFFICIENCY: expected a number, got '//arg)
      min_efficiency = min_efficiency / 100
    end if
  end subroutine read_arguments

  subroutine usage(why)
    character(len=*), intent(in) :: why
    if (rank == 0) print '(a)', 'balancer_fortran: '//trim(why)// &
      '; usage: mpiexec -n P balancer_fortran [N [STEPS [MIN_EFFICIENCY]]]'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end subroutine usage

  ! One step of element g: its operations, each adding 1/(g + j) to its value.
  subroutine advance(value, g, ops)
    real(c_double), intent(inout) :: value
    integer(c_int64_t), intent(in) :: g
    integer(c_int64_t), intent(inout) :: ops
    integer(c_int64_t) :: j, work
    work = 10 + 90 * g / n
    do j = 1, work
      value = value + 1 / real(g + j, c_double)
    end do
    ops = ops + work
  end subroutine advance

  ! Advances this rank's elements one step and records the operations done
  ! (ops) as the step's time.
  subroutine compute(ops)
    integer(c_int64_t), intent(out) :: ops
    integer :: i
    ops = 0
    do i = 1, size(ids)
      call advance(values(i), ids(i), ops)
    end do
    call isocost_balancer_record_step(balancer, 1d-9 * real(ops, c_double))
  end subroutine compute

  ! T_avg/T_max of the ranks' operations in this step.
  real(c_double) function step_efficiency(ops)
    integer(c_int64_t), intent(in) :: ops
    integer(c_int64_t) :: total, most
    call MPI_Allreduce(ops, total, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD)
    call MPI_Allreduce(ops, most, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD)
    step_efficiency = real(total, c_double) / ranks / real(max(most, 1_c_int64_t), c_double)
  end function step_efficiency

  ! Moves both arrays to the distribution the check decided, in one exchange.
  subroutine migrate()
    real(c_double), allocatable, target :: new_values(:)
    integer(c_int64_t), allocatable, target :: new_ids(:)
    integer(c_int64_t) :: offsets(0:ranks)
    allocate (new_values(decision%new_local_count), new_ids(decision%new_local_count))
    call isocost_balancer_migrate(balancer, [c_loc(values), c_loc(ids)], &
                                  [c_loc(new_values), c_loc(new_ids)], &
                                  element_bytes)
    call move_alloc(new_values, values)
    call move_alloc(new_ids, ids)
    call isocost_balancer_offsets(balancer, offsets)
    if (rank == 0) print '(a, *(1x, i0))', '  migrated: offsets', offsets
  end subroutine migrate

  ! Each value is what its id's element computes in `steps` steps from its id.
  logical function values_match()
    real(c_double) :: expected
    integer(c_int64_t) :: ops
    integer :: i, s
    values_match = .true.
    ops = 0
    do i = 1, size(ids)
      expected = real(ids(i), c_double)
      do s = 1, steps
        call advance(expected, ids(i), ops)
      end do
      if (abs(values(i) - expected) > 1d-12 * expected) values_match = .false.
    end do
  end function values_match

  logical function all_ranks(mine)
    logical, intent(in) :: mine
    call MPI_Allreduce(mine, all_ranks, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD)
  end function all_ranks

  character(len=18) function action_name(action)
    integer, intent(in) :: action
    select case (action)
    case (ISOCOST_ACTION_GLOBAL); action_name = 'global repartition'
    case (ISOCOST_ACTION_DIFFUSION); action_name = 'diffusion'
    case default; action_name = 'no move'
    end select
  end function action_name

  function yes(condition)
    logical, intent(in) :: condition
    character(len=:), allocatable :: yes
    yes = trim(merge('yes', 'no ', condition))
  end function yes
end program balancer_fortran
