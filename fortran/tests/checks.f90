! What the Fortran tests share: counted checks, and the check of a failed
! call's status and message. The MPI tests set check_rank so that a failure
! names the rank it happened on.
module isocost_test_checks
  use isocost, only: isocost_last_error, isocost_status_name
  implicit none
  private
  public :: check, check_error, checks, failures, check_rank
  integer :: checks = 0, failures = 0
  integer :: check_rank = -1  ! >= 0: printed with each failure

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    checks = checks + 1
    if (ok) return
    failures = failures + 1
    if (check_rank >= 0) then
      print '(a, i0, a)', 'FAILED on rank ', check_rank, ': '//what
    else
      print '(a)', 'FAILED: '//what
    end if
  end subroutine check

  ! status is `code` and the message holds `fragment`.
  subroutine check_error(status, code, fragment)
    integer, intent(in) :: status, code
    character(len=*), intent(in) :: fragment
    character(len=:), allocatable :: message
    message = isocost_last_error()
    call check(status == code, 'status '//isocost_status_name(status)//' for "'//fragment//'"')
    call check(index(message, fragment) > 0, '"'//message//'" lacks "'//fragment//'"')
  end subroutine check_error

end module isocost_test_checks
