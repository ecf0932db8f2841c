! Module isocost's distributed partitioners of points and grids at any rank
! count: the parts equal the serial ones (the same call on MPI_COMM_SELF with
! every point, or isocost_decompose of the whole grid), weights are integers
! so every sum is exact, and the error paths fail on every rank.
program test_fortran_mpi_decompose
  use, intrinsic :: iso_c_binding
  use mpi_f08
  use isocost
  use isocost_test_checks
  implicit none
  integer :: rank, ranks, all_failures

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  check_rank = rank
  call MPI_Comm_size(MPI_COMM_WORLD, ranks)
  call points_against_serial(2)
  call points_against_serial(3)
  call grid_2d_against_serial()
  call grid_3d_against_serial()
  call error_paths()
  call MPI_Allreduce(failures, all_failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) print '(i0, a, i0, a, i0, a)', checks - failures, ' of ', checks, &
    ' checks passed on rank 0, ', all_failures, ' failures on all ranks'
  call MPI_Finalize()
  if (all_failures > 0) error stop 1

contains

  ! 40 distinct points, rank r holding [40r/P, 40(r+1)/P), into 3 parts with
  ! speeds: each point's part is the one of the single-rank run over all 40,
  ! and the bottleneck is the heaviest part's weight over its speed.
  subroutine points_against_serial(dims)
    integer, intent(in) :: dims
    integer, parameter :: n = 40
    real(c_double), parameter :: speeds(3) = [1d0, 2d0, 1.5d0]
    real(c_double) :: x(dims, n), w(n), max_time, serial_time, load(3), all_load(3), xyz(3)
    integer(c_int) :: mine(n), serial(n)
    integer :: i, lo, hi
    do i = 1, n
      xyz = real([mod(7 * i, 13), mod(5 * i, 11), mod(3 * i, 7)], c_double)
      x(:, i) = xyz(1:dims)  ! the first dims coordinates (x has dims rows)
      w(i) = real(1 + mod(3 * i, 7), c_double)
    end do
    lo = n * rank / ranks
    hi = n * (rank + 1) / ranks
    call isocost_partition_points(MPI_COMM_WORLD%mpi_val, x(:, lo + 1:hi), w(lo + 1:hi), 3, &
                                  mine(lo + 1:hi), speeds, max_time)
    call isocost_partition_points(MPI_COMM_SELF%mpi_val, x, w, 3, serial, speeds, serial_time)
    call check(all(mine(lo + 1:hi) == serial(lo + 1:hi)), 'points: the serial parts')
    call check(max_time == serial_time, 'points: the serial bottleneck')
    call check(all(serial >= 0 .and. serial < 3), 'points: parts in [0, 3)')
    do i = 1, 3
      load(i) = sum(w(lo + 1:hi), mask=mine(lo + 1:hi) == i - 1)
    end do
    call MPI_Allreduce(load, all_load, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
    call check(sum(all_load) == sum(w), 'points: every weight in one part')
    call check(maxval(all_load / speeds) == max_time, 'points: max_time = max load / speed')
  end subroutine points_against_serial

  ! The serial decomposition of the same grid, for comparison.
  subroutine serial_parts(w, cells, counts, axes, parts, max_time, speeds)
    real(c_double), intent(in) :: w(:)
    integer(c_int64_t), intent(in) :: cells(:)
    integer, intent(in) :: counts(:), axes(:)
    type(isocost_part), intent(inout) :: parts(:)
    real(c_double), intent(out) :: max_time
    real(c_double), intent(in), optional :: speeds(:)
    type(isocost_density) :: d
    type(isocost_decomposition) :: info
    call isocost_density_grid(w, cells, d)
    call isocost_decompose(d, counts, axes, parts, speeds, info)
    max_time = info%max_time
    call isocost_density_free(d)
  end subroutine serial_parts

  ! 6 × 4 cells, rank r holding rows [4r/P, 4(r+1)/P), by {2, 2} along {x, y}.
  subroutine grid_2d_against_serial()
    real(c_double) :: w(6, 4), max_time, serial_time
    integer(c_int64_t) :: part_lo(3, 4), part_hi(3, 4), y0, y1
    type(isocost_part) :: parts(4)
    integer :: i, j, r
    w = reshape([(real(1 + mod(7 * i, 11), c_double), i = 1, 24)], [6, 4])
    y0 = 4 * rank / ranks
    y1 = 4 * (rank + 1) / ranks
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, [6_c_int64_t, 4_c_int64_t], &
                                [0_c_int64_t, y0], [6_c_int64_t, y1], &
                                [((w(i, j), i = 1, 6), j = int(y0) + 1, int(y1))], [2, 2], &
                                [0, 1], part_lo, part_hi, max_time=max_time)
    call serial_parts(reshape(w, [24]), [6_c_int64_t, 4_c_int64_t], [2, 2], [0, 1], parts, &
                      serial_time)
    ! All three rows: z past the dims is 0, 0 as in isocost_part (isocost_mpi.h
    ! says [0, 1); C writes the serial part's entries).
    do r = 1, 4
      call check(all(part_lo(:, r) == parts(r)%cell_lo) .and. &
                 all(part_hi(:, r) == parts(r)%cell_hi), '2-D grid: the serial boxes')
    end do
    call check(max_time == serial_time, '2-D grid: the serial bottleneck')
  end subroutine grid_2d_against_serial

  ! 4 × 3 × 4 cells in z slabs, rank 0 holding none when P > 1, by {2, 3, 2}
  ! along {x, y, z} with speeds.
  subroutine grid_3d_against_serial()
    real(c_double) :: w(4, 3, 4), speeds(12), max_time, serial_time
    integer(c_int64_t) :: part_lo(3, 12), part_hi(3, 12), z0, z1
    type(isocost_part) :: parts(12)
    integer :: i, j, k, r
    w = reshape([(real(1 + mod(5 * i, 9), c_double), i = 1, 48)], [4, 3, 4])
    speeds = [(1 + 0.25d0 * mod(r, 3), r = 1, 12)]
    if (ranks == 1) then
      z0 = 0
      z1 = 4
    else if (rank == 0) then
      z0 = 0
      z1 = 0
    else
      z0 = 4 * (rank - 1) / (ranks - 1)
      z1 = 4 * rank / (ranks - 1)
    end if
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, [4_c_int64_t, 3_c_int64_t, 4_c_int64_t], &
                                [0_c_int64_t, 0_c_int64_t, z0], [4_c_int64_t, 3_c_int64_t, z1], &
                                [(((w(i, j, k), i = 1, 4), j = 1, 3), k = int(z0) + 1, int(z1))], &
                                [2, 3, 2], [0, 1, 2], part_lo, part_hi, speeds, max_time)
    call serial_parts(reshape(w, [48]), [4_c_int64_t, 3_c_int64_t, 4_c_int64_t], [2, 3, 2], &
                      [0, 1, 2], parts, serial_time, speeds)
    do r = 1, 12
      call check(all(part_lo(:, r) == parts(r)%cell_lo) .and. &
                 all(part_hi(:, r) == parts(r)%cell_hi), '3-D grid: the serial boxes')
    end do
    call check(max_time == serial_time, '3-D grid: the serial bottleneck')
  end subroutine grid_3d_against_serial

  subroutine error_paths()
    real(c_double) :: x(2, 3)
    integer(c_int) :: part(3)
    integer(c_int64_t) :: part_lo(3, 2), part_hi(3, 2)
    integer(c_int64_t), parameter :: cells(2) = [2, 2], lo(2) = [0, 0], hi(2) = [2, 2]
    real(c_double), parameter :: w(4) = 1
    integer :: status
    x = 0
    call isocost_partition_points(MPI_COMM_WORLD%mpi_val, x, [1d0, 1d0, 1d0], 0, part, &
                                  status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_partition_points_f')
    call check(index(isocost_last_error(), 'parts') > 0, 'the message names parts')
    ! weights too short on the last rank only: every rank fails, none waits.
    if (rank == ranks - 1) then
      call isocost_partition_points(MPI_COMM_WORLD%mpi_val, x, [1d0, 1d0], 2, part, status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_partition_points: &
        &weights: expected 3 elements (the size of coords, 2), got 2')
    else
      call isocost_partition_points(MPI_COMM_WORLD%mpi_val, x, [1d0, 1d0, 1d0], 2, part, &
                                    status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'wrong size on another rank')
    end if
    call isocost_partition_points(MPI_COMM_WORLD%mpi_val, x, [1d0, 1d0, 1d0], 2, part, [1d0], &
                                  status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_partition_points: speeds: expected 2 elements (the size of parts), got 1')
    ! The grid: every rank passes the whole 2 × 2 grid, so rank 0's box alone
    ! tiles it and the others hold empty boxes.
    if (rank == ranks - 1) then
      call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w, [2], [0], &
                                  part_lo(:, 1:1), part_hi, status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose_grid: &
        &part_lo: expected 6 elements (the size of 3 × product(counts)), got 3')
    else
      call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w, [2], [0], part_lo, &
                                  part_hi, status=status)
      call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'wrong size on another rank')
    end if
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w(1:3), [2], [0], &
                                part_lo, part_hi, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose_grid: weights: &
      &expected 4 elements (the size of product(hi - lo)), got 3')
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w, [2], [0, 1], part_lo, &
                                part_hi, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose_grid: axes: expected 1 elements (the size of counts), got 2')
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, [integer(c_int64_t) ::], &
                                [integer(c_int64_t) ::], [integer(c_int64_t) ::], w, [2], [0], &
                                part_lo, part_hi, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'dims: expected 1, 2 or 3, got 0')
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w, [0], [0], part_lo, &
                                part_hi, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'counts: expected integers >= 1, got 0')
    call isocost_decompose_grid(MPI_COMM_WORLD%mpi_val, cells, lo, hi, w, [1, 1, 2], [0, 1, 2], &
                                part_lo, part_hi, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'levels: expected an integer in [1, 2], got 3')
  end subroutine error_paths

end program test_fortran_mpi_decompose
