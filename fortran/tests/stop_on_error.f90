! Without status=, a failure prints isocost_last_error() and stops the program
! (check_stop.cmake expects the message and a nonzero exit).
program stop_on_error
  use, intrinsic :: iso_c_binding, only: c_double
  use isocost
  implicit none
  type(isocost_model) :: m
  real(c_double) :: cuts(0:3)
  call isocost_model_discrete([1d0, 2d0, 3d0], m)
  call isocost_partition(m, 0, cuts)
  print '(a)', 'not reached'
end program stop_on_error
