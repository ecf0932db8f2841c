! Module isocost's multi-dimensional decompositions: hand-checked cuts, the
! same parts as the C interface called directly (module isocost_c, bit for
! bit), boxes that tile the grid with costs summing to the total, densities
! described and (with the fitters) fitted to box timings, and every error
! path's status and message.
program test_fortran_decompose
  use, intrinsic :: iso_c_binding
  use isocost
  use isocost_test_checks
  use isocost_c, only: c_decompose => isocost_decompose, c_auto => isocost_decompose_auto, &
                       c_describe => isocost_density_describe
#ifdef ISOCOST_HAVE_FIT
  use isocost_c, only: c_fit_density => isocost_fit_density
#endif
  implicit none

  call hand_checked()
  call against_c_3d()
  call describe_grid()
  call error_paths()
#ifdef ISOCOST_HAVE_FIT
  call fit_separable()
  call fit_auto()
  call fit_errors()
#endif
  print '(i0, a, i0, a)', checks - failures, ' of ', checks, ' checks passed'
  if (failures > 0) error stop 1

contains

  ! Every cell of an nx × ny × nz grid lies in exactly one part's cell box
  ! (axes past the density's dims have cell_hi 0: the whole single layer).
  logical function tiles(parts, n)
    type(isocost_part), intent(in) :: parts(:)
    integer, intent(in) :: n(3)
    integer :: hits(n(1), n(2), n(3)), r
    hits = 0
    do r = 1, size(parts)
      associate (a => parts(r)%cell_lo + 1, b => merge(int(parts(r)%cell_hi), n, parts(r)%cell_hi > 0))
        hits(a(1):b(1), a(2):b(2), a(3):b(3)) = hits(a(1):b(1), a(2):b(2), a(3):b(3)) + 1
      end associate
    end do
    tiles = all(hits == 1)
  end function tiles

  ! Worked by hand. 1-D [5,5,9,6,3,8,2,2] in 3: the heaviest part is at least
  ! 15 (the 9 with 5+5 before it and 3+8+2+2 after), met by cells
  ! [0,2) [2,4) [4,8). 2-D 4×2 cells 1..8, x fastest, by {2, 2} along {x, y}:
  ! column sums 6 8 10 12, the x cut at 2 (14 | 22); each half cut in rows.
  subroutine hand_checked()
    type(isocost_density) :: d
    type(isocost_part) :: p3(3), p4(4)
    type(isocost_decomposition) :: info
    real(c_double) :: total
    integer :: dims, r
    call isocost_density_grid([5d0, 5d0, 9d0, 6d0, 3d0, 8d0, 2d0, 2d0], [8_c_int64_t], d)
    call isocost_decompose(d, [3], [0], p3, info=info)
    call check(all(p3%cell_lo(1) == [0, 2, 4]) .and. all(p3%cell_hi(1) == [2, 4, 8]), &
               '1-D cells [0,2) [2,4) [4,8)')
    call check(all(p3%cost == [10d0, 15d0, 15d0]) .and. info%max_time == 15, '1-D costs 10 15 15')
    call check(all(p3%lo(1) == [0d0, 2d0, 4d0]) .and. all(p3%hi(2) == 0), '1-D boxes, y unused')
    call isocost_density_grid([(real(r, c_double), r = 1, 8)], [4_c_int64_t, 2_c_int64_t], d, &
                              [0d0, 0d0], [2d0, 1d0])
    call isocost_density_info(d, dims, total)
    call check(dims == 2 .and. total == 36, 'density info: 2 dims, total 36')
    call isocost_decompose(d, [2, 2], [0, 1], p4, info=info)
    call check(all(p4%cost == [3d0, 11d0, 7d0, 15d0]), '2-D costs 3 11 7 15 in rank order')
    call check(all(p4%cell_lo(1) == [0, 0, 2, 2]) .and. all(p4%cell_lo(2) == [0, 1, 0, 1]), &
               '2-D cell corners')
    call check(all(p4%hi(1) == [1d0, 1d0, 2d0, 2d0]) .and. all(p4%volume == 0.5d0), &
               '2-D boxes in the [0,2]×[0,1] box, area 1/2 each')
    call check(info%ranks == 4 .and. info%levels == 2 .and. all(info%counts == [2, 2, 0]) .and. &
               all(info%axes == [0, 1, -1]) .and. info%total_cost == 36 .and. &
               info%max_time == 15, '2-D info')
    call check(tiles(p4, [4, 2, 1]), '2-D parts tile the grid')
    call isocost_density_free(d)
    call check(.not. c_associated(d%handle), 'free nulls the handle')
    call isocost_density_free(d)  ! a second free is a no-op
  end subroutine hand_checked

  ! A 5×4×3 grid of uneven integer weights (sums exact): the module's parts and
  ! info equal C's, by a fixed grid with speeds and by the chosen grid.
  subroutine against_c_3d()
    real(c_double), parameter :: speeds(8) = [1d0, 2d0, 1d0, 1.5d0, 1d0, 1d0, 0.5d0, 1d0]
    type(isocost_density) :: d
    type(isocost_part) :: mine(8), theirs(8), six(6), six_c(6)
    type(isocost_decomposition) :: info, info_c
    real(c_double) :: w(60), total
    integer :: i, status
    w = [(real(1 + mod(7 * i, 11), c_double), i = 1, 60)]
    call isocost_density_grid(w, [5_c_int64_t, 4_c_int64_t, 3_c_int64_t], d)
    call isocost_density_info(d, total=total)
    call check(total == sum(w), '3-D total')
    call isocost_decompose(d, [2, 2, 2], [2, 0, 1], mine, speeds, info, status)
    call check(status == ISOCOST_OK, '3-D decompose')
    call check(c_decompose(d%handle, 3_c_int, [2_c_int, 2_c_int, 2_c_int], &
                           [2_c_int, 0_c_int, 1_c_int], speeds, theirs, info_c) == ISOCOST_OK, &
               'C decompose')
    call check(same(mine, theirs) .and. same_info(info, info_c), '3-D: the C parts bit for bit')
    call check(tiles(mine, [5, 4, 3]), '3-D parts tile the grid')
    call check(sum(mine%cost) == total .and. info%total_cost == total, '3-D costs sum to the total')
    call check(all(mine%time == mine%cost / speeds), 'time = cost / speed')
    call isocost_decompose_auto(d, 6, six, info=info, status=status)
    call check(status == ISOCOST_OK, '3-D decompose_auto')
    call check(c_auto(d%handle, 6_c_int, parts=six_c, info=info_c) == ISOCOST_OK, 'C auto')
    call check(same(six, six_c) .and. same_info(info, info_c), 'auto: the C parts bit for bit')
    call check(info%ranks == 6 .and. product(info%counts(1:info%levels)) == 6, 'auto grid of 6')
    call check(tiles(six, [5, 4, 3]) .and. sum(six%cost) == total, 'auto parts tile, sum')
  end subroutine against_c_3d

  ! A grid density's description: the whole of C's text, the same each call.
  subroutine describe_grid()
    type(isocost_density) :: d, never
    character(len=:), allocatable :: text
    character(kind=c_char) :: buffer(300)
    integer(c_int64_t) :: length
    integer :: status, i
    call isocost_density_grid([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], [3_c_int64_t, 2_c_int64_t], d)
    text = isocost_density_describe(d, status)
    call check(status == ISOCOST_OK .and. len(text) > 5, 'describe a grid density: "'//text//'"')
    call check(text == isocost_density_describe(d), 'a second call gives the same text')
    call check(c_describe(d%handle, buffer, 300_c_int64_t, length) == ISOCOST_OK, 'C describe')
    call check(length == len(text) .and. all([(buffer(i) == text(i:i), i = 1, len(text))]), &
               'the text is C''s, bit for bit')
    text = isocost_density_describe(never, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_density_describe: density is NULL')
    call check(text == '', 'a failed describe gives ""')
    call isocost_density_free(d)
  end subroutine describe_grid

  logical function same(a, b)
    type(isocost_part), intent(in) :: a(:), b(:)
    integer :: r
    same = size(a) == size(b)
    do r = 1, min(size(a), size(b))
      same = same .and. all(a(r)%lo == b(r)%lo) .and. all(a(r)%hi == b(r)%hi) .and. &
             all(a(r)%cell_lo == b(r)%cell_lo) .and. all(a(r)%cell_hi == b(r)%cell_hi) .and. &
             a(r)%cost == b(r)%cost .and. a(r)%time == b(r)%time .and. &
             a(r)%volume == b(r)%volume .and. a(r)%surface == b(r)%surface
    end do
  end function same

  logical function same_info(a, b)
    type(isocost_decomposition), intent(in) :: a, b
    same_info = a%ranks == b%ranks .and. a%levels == b%levels .and. all(a%counts == b%counts) &
                .and. all(a%axes == b%axes) .and. a%total_cost == b%total_cost .and. &
                a%max_time == b%max_time .and. a%predicted_le == b%predicted_le .and. &
                a%imbalance == b%imbalance .and. a%cut_surface == b%cut_surface
  end function same_info

  subroutine error_paths()
    integer(c_int64_t), parameter :: c32(2) = [3, 2]
    type(isocost_density) :: d, never
    type(isocost_part) :: p2(2), p6(6)
    integer :: status, dims
    ! Sizes checked here, before C: the message names both arrays.
    call isocost_density_grid([1d0, 2d0], c32, d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_density_grid: weights: expected 6 elements (the size of ' // &
                     'product(cells)), got 2')
    call check(.not. c_associated(d%handle), 'a failed constructor leaves no density')
    call isocost_density_grid([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], c32, d, [0d0], [1d0, 1d0], status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_density_grid: lo: expected 2 elements (the size of cells), got 1')
    call isocost_density_grid([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], c32, d, [0d0, 0d0], [1d0], status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_density_grid: hi: expected 2 elements (the size of cells), got 1')
    ! Bad values, named by C.
    call isocost_density_grid([1d0], [integer(c_int64_t) ::], d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_density_grid: dims: expected 1, 2 or 3, got 0')
    call isocost_density_grid([1d0], [1_c_int64_t, 1_c_int64_t, 1_c_int64_t, 1_c_int64_t], d, &
                              status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'dims: expected 1, 2 or 3, got 4')
    call isocost_density_grid([1d0], [2_c_int64_t, 0_c_int64_t], d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'cells[1]')
    call isocost_density_grid([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], c32, d, lo=[0d0, 0d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'hi is NULL but the other corner is not')
    call isocost_density_grid([1d0, -2d0, 3d0, 4d0, 5d0, 6d0], c32, d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_density_grid')
    call check(index(isocost_last_error(), '-2') > 0, 'the message names the weight -2')
    ! A density never built is NULL to C.
    call isocost_density_info(never, dims, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_density_info: density is NULL')
    call isocost_decompose(never, [2], [0], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose: density is NULL')
    call isocost_decompose_auto(never, 2, p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose_auto: density is NULL')
    call isocost_density_grid([1d0, 2d0, 3d0, 4d0, 5d0, 6d0], c32, d)
    call isocost_decompose(d, [2, 1], [0], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose: axes: expected 2 elements (the size of counts), got 1')
    call isocost_decompose(d, [3, 2], [0, 1], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose: parts: expected 6 elements (the size of product(counts)), got 2')
    call isocost_decompose(d, [2], [0], p2, [1d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose: speeds: expected 2 elements (the size of product(counts)), got 1')
    call isocost_decompose(d, [integer ::], [integer ::], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose: levels: expected an integer >= 1, got 0')
    call isocost_decompose(d, [2, 1, 1], [0, 1, 2], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     "levels: expected at most the density's 2 dimensions, got 3")
    call isocost_decompose(d, [0], [0], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose')
    call isocost_decompose(d, [1, 2], [0, 0], p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose')
    call isocost_decompose(d, [2], [0], p2, [1d0, 0d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'speed')
    call isocost_decompose(d, [6], [0], p6, status=status)  ! 3 cells along x for 6 parts
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_decompose')
    call isocost_decompose_auto(d, 0, p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose_auto: ranks: expected an integer >= 1, got 0')
    call isocost_decompose_auto(d, 6, p2, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose_auto: parts: expected 6 elements (the size of ranks), got 2')
    call isocost_decompose_auto(d, 2, p2, [1d0, 1d0, 1d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_decompose_auto: speeds: expected 2 elements (the size of ranks), got 3')
    call isocost_density_info(d, dims, status=status)
    call check(status == ISOCOST_OK, 'info after failures')
    call check(isocost_last_error() == '', 'success clears it')
  end subroutine error_paths

#ifdef ISOCOST_HAVE_FIT
  ! Box timings of rho = (1 + x)(1 + 2y) on a 6 × 5 grid of [0, 3] × [0, 2]:
  ! column k of lo and hi is box k; its cost, the mass of [a, b] × [c, d], is
  ! (b − a + (b² − a²)/2)(d − c + d² − c²). The total mass is 7.5 · 6 = 45.
  subroutine grid_boxes(lo, hi, costs)
    real(c_double), intent(out) :: lo(2, 30), hi(2, 30), costs(30)
    integer :: i, j, k
    do j = 0, 4
      do i = 0, 5
        k = 1 + i + 6 * j
        lo(:, k) = [0.5d0 * i, 0.4d0 * j]
        hi(:, k) = [0.5d0 * (i + 1), 0.4d0 * (j + 1)]
        costs(k) = mass(lo(1, k), hi(1, k), lo(2, k), hi(2, k))
      end do
    end do
  end subroutine grid_boxes

  pure real(c_double) function mass(a, b, c, d)
    real(c_double), intent(in) :: a, b, c, d
    mass = (b - a + (b * b - a * a) / 2) * (d - c + d * d - c * c)
  end function mass

  ! The density cut in two along x: two halves of 22.5, each the exact mass
  ! of its box, within `tolerance` of the total.
  subroutine halves(d, tolerance, what)
    type(isocost_density), intent(in) :: d
    real(c_double), intent(in) :: tolerance
    character(len=*), intent(in) :: what
    type(isocost_part) :: p(2)
    integer :: status, r
    call isocost_decompose(d, [2], [0], p, status=status)
    call check(status == ISOCOST_OK, what//': decompose in 2 along x')
    do r = 1, 2
      call check(abs(p(r)%cost - 22.5d0) <= tolerance * 45, what//': a half of 22.5')
      call check(abs(p(r)%cost - mass(p(r)%lo(1), p(r)%hi(1), p(r)%lo(2), p(r)%hi(2))) <= &
                 tolerance * 45, what//': a half costs the mass of its box')
    end do
    call check(p(1)%lo(1) == 0 .and. p(2)%hi(1) == 3 .and. p(1)%hi(2) == 2, &
               what//': the halves span [0, 3] × [0, 2]')
  end subroutine halves

  ! "separable:1" is exact for (1 + x)(1 + 2y): total 45, halves of 22.5, the
  ! density and summary of the C function called directly.
  subroutine fit_separable()
    real(c_double) :: lo(2, 30), hi(2, 30), costs(30), total
    type(isocost_density) :: d
    type(c_ptr) :: raw
    type(isocost_fit_summary) :: s, c_s
    integer :: status, dims
    call grid_boxes(lo, hi, costs)
    call isocost_fit_density(lo, hi, costs, 'separable:1', d, s, status)
    call check(status == ISOCOST_OK, 'fit_density separable:1: '//isocost_last_error())
    call check(s%converged == 1 .and. s%n_parameters == 0 .and. s%max_rel_error < 1d-8, &
               'separable:1: converged, exact, no parameters in the summary')
    call isocost_density_info(d, dims, total)
    call check(dims == 2 .and. abs(total - 45) <= 1d-8 * 45, 'separable:1: 2 dims, total 45')
    call halves(d, 1d-8, 'separable:1')
    call check(c_fit_density(lo, hi, costs, 30_c_int64_t, 2_c_int, 'separable:1'//c_null_char, &
                             raw, c_s) == ISOCOST_OK, 'C fit_density')
    call check(s%rmse == c_s%rmse .and. s%iterations == c_s%iterations, &
               'the summary equals the C one')
    call check(isocost_density_describe(d) == c_text(raw), 'the density is the C one')
    call c_density_free_raw(raw)
    call isocost_density_free(d)
  end subroutine fit_separable

  ! "auto" (the lowest AICc) recovers the total too, and is named.
  subroutine fit_auto()
    real(c_double) :: lo(2, 30), hi(2, 30), costs(30), total
    type(isocost_density) :: d
    integer :: status
    call grid_boxes(lo, hi, costs)
    call isocost_fit_density(lo, hi, costs, 'auto', d, status=status)
    call check(status == ISOCOST_OK, 'fit_density auto: '//isocost_last_error())
    call isocost_density_info(d, total=total)
    call check(abs(total - 45) <= 1d-6 * 45, 'auto: total 45')
    call halves(d, 1d-6, 'auto')
    call check(len(isocost_density_describe(d)) > 0, 'auto: the chosen form is named')
    call isocost_density_free(d)
  end subroutine fit_auto

  subroutine fit_errors()
    real(c_double) :: lo(2, 30), hi(2, 30), costs(30)
    type(isocost_density) :: d
    integer :: status
    call grid_boxes(lo, hi, costs)
    call isocost_fit_density(lo, hi, costs, 'poly:x', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, "got 'poly:x'")
    call check(index(isocost_last_error(), 'isocost_fit_density') > 0, 'the message names the call')
    call check(.not. c_associated(d%handle), 'no density after a failed fit')
    ! Shapes checked here, before C.
    call isocost_fit_density(lo, hi(:, 1:29), costs, 'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit_density: hi: expected shape (2, 30) (the shape of lo), got (2, 29)')
    call isocost_fit_density(lo, hi(1:1, :), costs, 'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit_density: hi: expected shape (2, 30) (the shape of lo), got (1, 30)')
    call isocost_fit_density(lo, hi, costs(1:29), 'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit_density: costs: expected 30 elements (the size of size(lo, 2)), got 29')
    ! Bad values, named by C.
    call isocost_fit_density(lo(:, 1:0), hi(:, 1:0), costs(1:0), 'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit_density: count: expected an integer >= 1, got 0')
    call isocost_fit_density(lo(1:0, :), hi(1:0, :), costs, 'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit_density: dims: expected 1, 2 or 3, got 0')
    call isocost_fit_density(reshape([lo, lo], [4, 30]), reshape([hi, hi], [4, 30]), costs, &
                             'auto', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'dims: expected 1, 2 or 3, got 4')
    costs(7) = -1
    call isocost_fit_density(lo, hi, costs, 'separable:1', d, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_fit_density')
    call check(index(isocost_last_error(), '-1') > 0, 'the message names the cost -1')
  end subroutine fit_errors

  ! The description of a C density, through C alone.
  function c_text(raw) result(text)
    type(c_ptr), intent(in) :: raw
    character(len=:), allocatable :: text
    character(kind=c_char), allocatable :: buffer(:)
    integer(c_int64_t) :: length
    integer :: i
    text = ''
    if (c_describe(raw, size=0_c_int64_t, length=length) /= ISOCOST_OK) return
    allocate (buffer(length + 1))
    if (c_describe(raw, buffer, length + 1) /= ISOCOST_OK) return
    deallocate (text)
    allocate (character(len=length) :: text)
    do i = 1, int(length)
      text(i:i) = buffer(i)
    end do
  end function c_text

  subroutine c_density_free_raw(raw)
    type(c_ptr), intent(in) :: raw
    type(isocost_density) :: owner
    owner%handle = raw
    call isocost_density_free(owner)
  end subroutine c_density_free_raw
#endif
end program test_fortran_decompose
