! Module isocost's MPI part (balancer, distributed 1-D partitioner) at any
! rank count: cuts equal the serial discrete partition of the same weights,
! migrated arrays hold exactly the new ranges, the bind(c) types have the C
! layout, and the error paths give their status and message on every rank.
program test_fortran_mpi
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use isocost
  use isocost_test_checks
  implicit none
  interface
    integer(c_size_t) function isocost_test_c_size(which) bind(c)
      import :: c_size_t, c_int
      integer(c_int), value :: which
    end function
  end interface
  integer :: rank, ranks, all_failures

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  check_rank = rank
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call layout()
  call weights_against_serial()
  call balancer_migrates()
  call error_paths()
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(i0, a, i0, a, i0, a)', checks - failures, ' of ', checks, &
    ' checks passed on rank 0, ', all_failures, ' failures on all ranks'
  call MPI_Finalize()
  if (all_failures > 0) error stop 1

contains

  subroutine layout()
    type(isocost_load_stats_t) :: s
    type(isocost_fit_summary), target :: f
    type(isocost_fit_options), target :: o
    type(isocost_balancer_options), target :: b
    type(isocost_balancer_decision), target :: d
    type(isocost_part), target :: part
    type(isocost_decomposition), target :: dec
    call check(c_sizeof(s) == isocost_test_c_size(1), 'sizeof isocost_load_stats')
    call check(c_sizeof(f) == isocost_test_c_size(2), 'sizeof isocost_fit_summary')
    call check(c_sizeof(o) == isocost_test_c_size(3), 'sizeof isocost_fit_options')
    call check(c_sizeof(b) == isocost_test_c_size(4), 'sizeof isocost_balancer_options')
    call check(c_sizeof(d) == isocost_test_c_size(5), 'sizeof isocost_balancer_decision')
    call check(offset(c_loc(d), c_loc(d%new_local_count)) == isocost_test_c_size(6), &
               'offset of decision%new_local_count')
    call check(offset(c_loc(b), c_loc(b%log_path)) == isocost_test_c_size(7), &
               'offset of options%log_path')
    call check(offset(c_loc(f), c_loc(f%parameters)) == isocost_test_c_size(8), &
               'offset of summary%parameters')
    call check(offset(c_loc(o), c_loc(o%hi)) == isocost_test_c_size(9), 'offset of options%hi')
    call check(c_sizeof(part) == isocost_test_c_size(10), 'sizeof isocost_part')
    call check(offset(c_loc(part), c_loc(part%cost)) == isocost_test_c_size(11), &
               'offset of isocost_part%cost')
    call check(c_sizeof(dec) == isocost_test_c_size(12), 'sizeof isocost_decomposition')
    call check(offset(c_loc(dec), c_loc(dec%total_cost)) == isocost_test_c_size(13), &
               'offset of isocost_decomposition%total_cost')
  end subroutine layout

  integer(c_size_t) function offset(base, field)
    type(c_ptr), intent(in) :: base, field
    offset = int(transfer(field, 0_c_intptr_t) - transfer(base, 0_c_intptr_t), c_size_t)
  end function offset

  ! 24 weights, a slice per rank (rank r holds cells [24r/P, 24(r+1)/P)), into
  ! 3 parts: the cuts of the serial discrete model, which takes the same
  ! nearest cell boundaries.
  subroutine weights_against_serial()
    real(c_double) :: w(24), max_time, optimal_time
    integer(c_int64_t) :: cuts(0:3), optimal(0:3)
    real(c_double) :: serial(0:3)
    type(isocost_model) :: m
    integer :: k, lo, hi, speeds_case
    real(c_double), parameter :: speeds(3) = [1d0, 3d0, 2d0]
    w = [(real(mod(7 * k, 11) + 1, c_double), k = 1, 24)]
    lo = 24 * rank / ranks
    hi = 24 * (rank + 1) / ranks
    call isocost_model_discrete(w, m)
    do speeds_case = 0, 1
      if (speeds_case == 0) then
        call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, w(lo + 1:hi), 3, cuts, &
                                       max_time=max_time)
        call isocost_partition(m, 3, serial)
      else
        call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, w(lo + 1:hi), 3, cuts, speeds, &
                                       max_time=max_time)
        call isocost_partition(m, 3, serial, speeds)
      end if
      call check(all(real(cuts, c_double) == serial), 'distributed cuts equal the serial ones')
      call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, w(lo + 1:hi), 3, optimal, &
                                     optimal=.true., max_time=optimal_time)
      call check(optimal(0) == 0 .and. optimal(3) == 24, 'optimal cuts span [0, 24]')
    end do
    call check(optimal_time <= max_time * 3 .and. optimal_time > 0, 'optimal bottleneck')
    call isocost_model_free(m)
  end subroutine weights_against_serial

  ! n = 1000 elements; rank r records 1 + r seconds a step, so a check fires
  ! (for P > 1) and a global repartition moves two arrays holding each
  ! element's global index: afterwards each holds exactly its new range.
  subroutine balancer_migrates()
    type(isocost_balancer) :: b
    type(isocost_balancer_options) :: o
    type(isocost_balancer_decision) :: d
    real(c_double), allocatable, target :: x(:), x2(:)
    integer(c_int32_t), allocatable, target :: id(:), id2(:)
    integer(c_int64_t) :: first, count, offsets(0:ranks), k
    call isocost_balancer_options_init(o)
    o%check_every = 1
    o%window = 1
    o%policy = ISOCOST_POLICY_GLOBAL
    o%decision_seconds = 0  ! fixed costs: the same decision on every run
    o%comm_latency = 0
    o%comm_per_byte = 0
    call isocost_balancer_create(MPI_COMM_WORLD%mpi_val, 1000_c_int64_t, b, options=o)
    call isocost_balancer_local(b, first, count)
    allocate (x(count), id(count))
    do k = 1, count
      x(k) = real(first + k - 1, c_double)
      id(k) = int(first + k - 1, c_int32_t)
    end do
    call isocost_balancer_record_step(b, real(1 + rank, c_double))
    call isocost_balancer_check(b, real(c_sizeof(x(1)) + c_sizeof(id(1)), c_double), d)
    call check(d%checked == 1, 'a check step')
    if (ranks == 1) then
      call check(d%action == ISOCOST_ACTION_NONE, 'one rank: nothing to move')
    else
      call check(d%fired == 1 .and. d%action == ISOCOST_ACTION_GLOBAL, &
                 'drift fires a global repartition: '//isocost_decision_reason(d))
      allocate (x2(d%new_local_count), id2(d%new_local_count))
      call isocost_balancer_migrate(b, [c_loc(x), c_loc(id)], [c_loc(x2), c_loc(id2)], &
                                    [c_sizeof(x(1)), c_sizeof(id(1))])
      call check(all(x2 == [(real(d%new_local_begin + k, c_double), k = 0, d%new_local_count - 1)]), &
                 'migrated reals hold the new range')
      call check(all(id2 == [(int(d%new_local_begin + k, c_int32_t), k = 0, d%new_local_count - 1)]), &
                 'migrated integers hold the new range')
      call isocost_balancer_local(b, first, count)
      call check(first == d%new_local_begin .and. count == d%new_local_count, 'local range adopted')
      call isocost_balancer_offsets(b, offsets)
      call check(offsets(rank) == first .and. offsets(rank + 1) == first + count, 'offsets')
      call check(offsets(1) - offsets(0) > offsets(ranks) - offsets(ranks - 1), &
                 'the slowest rank gets fewer elements than the fastest')
    end if
    call isocost_balancer_free(b)
    call check(.not. c_associated(b%handle), 'free nulls the handle')
  end subroutine balancer_migrates

  subroutine error_paths()
    type(isocost_balancer) :: b, never
    type(c_ptr) :: none(0)
    integer(c_int64_t) :: cuts(0:3), offsets(0:ranks), bad_offsets(ranks)
    integer(c_size_t) :: no_bytes(0)
    integer :: status
    call isocost_balancer_record_step(never, 1d0, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'balancer is NULL')
    call isocost_balancer_create(MPI_COMM_WORLD%mpi_val, -1_c_int64_t, b, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_balancer_create_f')
    call check(index(isocost_last_error(), 'n: expected an integer >= 0, got -1') > 0, &
               'the message names n = -1: '//isocost_last_error())
    call check(.not. c_associated(b%handle), 'no balancer after a failed create')
    ! offsets of the wrong size: caught here, agreed across the ranks.
    call isocost_balancer_create(MPI_COMM_WORLD%mpi_val, 10_c_int64_t, b, bad_offsets, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_balancer_create: offsets: &
      &expected '//itoa(ranks + 1)//' elements (the size of the communicator + 1), got '//itoa(ranks))
    call isocost_balancer_create(MPI_COMM_WORLD%mpi_val, 10_c_int64_t, b)
    call isocost_balancer_record_step(b, -2d0, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_balancer_record_step')
    call check(index(isocost_last_error(), '-2') > 0, 'the message names seconds = -2')
    call isocost_balancer_migrate(b, none, none, no_bytes, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_balancer_migrate: no migration pending')
    call isocost_balancer_offsets(b, offsets(0:ranks - 1), status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_balancer_offsets: offsets: &
      &expected '//itoa(ranks + 1)//' elements')
    call isocost_balancer_free(b)
    call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, [1d0], 0, cuts, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_partition_weights_f')
    call check(index(isocost_last_error(), 'parts') > 0, 'the message names parts')
    ! cuts too short on the last rank only: every rank fails, none waits.
    if (rank == ranks - 1) then
      call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, [1d0], 3, cuts(0:2), status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                       'isocost_partition_weights: cuts: expected 4 elements (the size of parts + 1), got 3')
    else
      call isocost_partition_weights(MPI_COMM_WORLD%mpi_val, [1d0], 3, cuts, status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'wrong size on another rank')
    end if
  end subroutine error_paths

  function itoa(i) result(s)
    integer, intent(in) :: i
    character(len=:), allocatable :: s
    character(len=12) :: buffer
    write (buffer, '(i0)') i
    s = trim(buffer)
  end function itoa
end program test_fortran_mpi
