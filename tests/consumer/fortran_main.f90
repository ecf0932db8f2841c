! Links isocost::fortran from an install tree (module isocost from
! include/isocost/fortran): t(x) = x^2 on [0, 1] cut for 4 ranks gives
! x_i = sqrt(i/4), as main.cpp and c_main.c check.
program consumer_fortran
  use, intrinsic :: iso_c_binding, only: c_double
  use isocost
  implicit none
  type(isocost_model) :: t
  real(c_double) :: cuts(0:4)
  integer :: i, status, bad
  call isocost_model_power(1d0, 2d0, 0d0, 0d0, 1d0, t, status)
  if (status == ISOCOST_OK) call isocost_partition(t, 4, cuts, status=status)
  call isocost_model_free(t)
  if (status /= ISOCOST_OK) then
    print '(a)', 'isocost: '//isocost_last_error()
    error stop 1
  end if
  bad = 0
  do i = 0, 4
    print '(a, i0, a, f17.15, a, f17.15, a)', 'x_', i, ' = ', cuts(i), ' (expected ', &
      sqrt(i / 4d0), ')'
    if (abs(cuts(i) - sqrt(i / 4d0)) > 1d-12) bad = bad + 1
  end do
  if (bad /= 0) error stop 1
end program consumer_fortran
