! isocost — the Fortran 2008 interface of isocost, over the C interface
! (include/isocost/isocost.h, module isocost_c; with MPI also isocost_mpi.h,
! module isocost_c_mpi, in isocost_mpi_wrappers.inc) through iso_c_binding.
! docs/fortran.md is the guide; in short:
! - Every routine has the C function's name and arguments, minus the array
!   counts (taken from the arrays) plus an optional last argument `status`.
!   With `status` present it receives the C status (ISOCOST_OK = 0 or an
!   ISOCOST_ERROR_* code) and the caller handles it, reading the message with
!   isocost_last_error(). With `status` absent, a failure prints
!   "isocost: <message>" on stderr and stops the program (error stop).
! - A model is a type(isocost_model) owned by the caller: release it with
!   isocost_model_free(model). Do not copy one by assignment (both copies would
!   own the same C model). The final routine releases a model that still holds
!   one when the compiler finalizes it (deallocation of an allocatable model).
! - A density (type(isocost_density)) follows the same rules as a model.
! - Reals are real(c_double) (write 1.43d0 or 1.43_c_double), text is
!   character(*) (trailing blanks dropped, NUL added here).
module isocost
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use isocost_c, only: ISOCOST_OK, ISOCOST_ERROR_INVALID_ARGUMENT, ISOCOST_ERROR_NO_MEMORY, &
                       ISOCOST_ERROR_FAILED, ISOCOST_ERROR_NOT_CONVERGED, &
                       ISOCOST_INTERPOLATION_PCHIP, ISOCOST_INTERPOLATION_MAKIMA, &
                       ISOCOST_INTERPOLATION_LINEAR, isocost_load_stats_t, &
                       isocost_last_error_c, isocost_status_name_c, c_strlen, &
                       c_sieve => isocost_model_sieve, c_power => isocost_model_power, &
                       c_polynomial => isocost_model_polynomial, &
                       c_tabulated => isocost_model_tabulated, &
                       c_discrete => isocost_model_discrete, c_free => isocost_model_free, &
                       c_cost => isocost_model_cost, c_density => isocost_model_density, &
                       c_domain => isocost_model_domain, c_total => isocost_model_total, &
                       c_model_describe => isocost_model_describe, &
                       c_partition => isocost_partition, c_load_stats => isocost_load_stats, &
                       c_imbalance => isocost_imbalance, c_phase_stats => isocost_phase_stats, &
                       isocost_part, isocost_decomposition, &
                       c_density_grid => isocost_density_grid, &
                       c_density_free => isocost_density_free, &
                       c_density_info => isocost_density_info, &
                       c_density_describe => isocost_density_describe, &
                       c_decompose => isocost_decompose, c_decompose_auto => isocost_decompose_auto
#ifdef ISOCOST_HAVE_FIT
  use isocost_c, only: ISOCOST_MAX_FIT_PARAMETERS, isocost_fit_summary, isocost_fit_options, &
                       ISOCOST_FIT_LOSS_NONE, ISOCOST_FIT_LOSS_HUBER, ISOCOST_FIT_LOSS_CAUCHY, &
                       c_fit => isocost_fit, c_fit_ex => isocost_fit_ex, &
                       c_fit_options_init => isocost_fit_options_init, &
                       c_fit_density => isocost_fit_density
#endif
#ifdef ISOCOST_HAVE_MPI
  use isocost_c_mpi, only: ISOCOST_POLICY_CHOOSE, ISOCOST_POLICY_GLOBAL, ISOCOST_POLICY_DIFFUSION, &
                           ISOCOST_ACTION_NONE, ISOCOST_ACTION_GLOBAL, ISOCOST_ACTION_DIFFUSION, &
                           isocost_balancer_options, isocost_balancer_decision, &
                           isocost_fortran_comm_size, isocost_fortran_all_ok, &
                           c_balancer_options_init => isocost_balancer_options_init, &
                           c_balancer_create_f => isocost_balancer_create_f, &
                           c_balancer_free => isocost_balancer_free, &
                           c_balancer_begin_step => isocost_balancer_begin_step, &
                           c_balancer_end_step => isocost_balancer_end_step, &
                           c_balancer_record_step => isocost_balancer_record_step, &
                           c_balancer_set_costs => isocost_balancer_set_costs, &
                           c_balancer_check => isocost_balancer_check, &
                           c_balancer_last_decision => isocost_balancer_last_decision, &
                           c_balancer_migrate => isocost_balancer_migrate, &
                           c_balancer_local => isocost_balancer_local, &
                           c_balancer_offsets => isocost_balancer_offsets, &
                           c_partition_weights_f => isocost_partition_weights_f, &
                           c_partition_points_f => isocost_partition_points_f, &
                           c_decompose_grid_f => isocost_decompose_grid_f
#endif
  implicit none
  private

  public :: ISOCOST_OK, ISOCOST_ERROR_INVALID_ARGUMENT, ISOCOST_ERROR_NO_MEMORY
  public :: ISOCOST_ERROR_FAILED, ISOCOST_ERROR_NOT_CONVERGED
  public :: ISOCOST_INTERPOLATION_PCHIP, ISOCOST_INTERPOLATION_MAKIMA
  public :: ISOCOST_INTERPOLATION_LINEAR, isocost_load_stats_t
  public :: isocost_last_error, isocost_status_name
  public :: isocost_model_sieve, isocost_model_power, isocost_model_polynomial
  public :: isocost_model_tabulated, isocost_model_discrete, isocost_model_free
  public :: isocost_model_cost, isocost_model_density, isocost_model_domain
  public :: isocost_model_total, isocost_model_describe, isocost_partition, isocost_load_stats
  public :: isocost_imbalance, isocost_phase_stats
  public :: isocost_part, isocost_decomposition
  public :: isocost_density_grid, isocost_density_free, isocost_density_info
  public :: isocost_density_describe
  public :: isocost_decompose, isocost_decompose_auto
#ifdef ISOCOST_HAVE_FIT
  public :: ISOCOST_MAX_FIT_PARAMETERS, isocost_fit_summary, isocost_fit_options
  public :: ISOCOST_FIT_LOSS_NONE, ISOCOST_FIT_LOSS_HUBER, ISOCOST_FIT_LOSS_CAUCHY
  public :: isocost_fit, isocost_fit_options_init, isocost_fit_density
#endif
#ifdef ISOCOST_HAVE_MPI
  public :: ISOCOST_POLICY_CHOOSE, ISOCOST_POLICY_GLOBAL, ISOCOST_POLICY_DIFFUSION
  public :: ISOCOST_ACTION_NONE, ISOCOST_ACTION_GLOBAL, ISOCOST_ACTION_DIFFUSION
  public :: isocost_balancer_options, isocost_balancer_decision, isocost_decision_reason
  public :: isocost_balancer_options_init, isocost_balancer_create, isocost_balancer_free
  public :: isocost_balancer_begin_step, isocost_balancer_end_step, isocost_balancer_record_step
  public :: isocost_balancer_set_costs, isocost_balancer_check, isocost_balancer_last_decision
  public :: isocost_balancer_migrate, isocost_balancer_local, isocost_balancer_offsets
  public :: isocost_partition_weights, isocost_partition_points, isocost_decompose_grid

  !> A balancer over a 1-D block distribution (an isocost_balancer* of C). No
  !> final routine: releasing one is collective, so isocost_balancer_free is
  !> called explicitly, on every rank at the same point.
  type, public :: isocost_balancer
    type(c_ptr) :: handle = c_null_ptr
    integer :: ranks = 0  !< the communicator's size, for offsets' size check
  end type isocost_balancer
#endif

  ! Generic names over private specifics: gfortran reports a module procedure
  ! named like a bind(c) label of module isocost_c as a clash of global names.
  interface isocost_model_sieve
    module procedure f_model_sieve
  end interface isocost_model_sieve
  interface isocost_model_power
    module procedure f_model_power
  end interface isocost_model_power
  interface isocost_model_polynomial
    module procedure f_model_polynomial
  end interface isocost_model_polynomial
  interface isocost_model_tabulated
    module procedure f_model_tabulated
  end interface isocost_model_tabulated
  interface isocost_model_discrete
    module procedure f_model_discrete
  end interface isocost_model_discrete
  interface isocost_model_free
    module procedure f_model_free
  end interface isocost_model_free
  interface isocost_model_cost
    module procedure f_model_cost
  end interface isocost_model_cost
  interface isocost_model_density
    module procedure f_model_density
  end interface isocost_model_density
  interface isocost_model_domain
    module procedure f_model_domain
  end interface isocost_model_domain
  interface isocost_model_total
    module procedure f_model_total
  end interface isocost_model_total
  interface isocost_model_describe
    module procedure f_model_describe
  end interface isocost_model_describe
  interface isocost_partition
    module procedure f_partition
  end interface isocost_partition
  interface isocost_load_stats
    module procedure f_load_stats
  end interface isocost_load_stats
  interface isocost_imbalance
    module procedure f_imbalance
  end interface isocost_imbalance
  interface isocost_phase_stats
    module procedure f_phase_stats
  end interface isocost_phase_stats
  interface isocost_density_grid
    module procedure f_density_grid
  end interface isocost_density_grid
  interface isocost_density_free
    module procedure f_density_free
  end interface isocost_density_free
  interface isocost_density_info
    module procedure f_density_info
  end interface isocost_density_info
  interface isocost_density_describe
    module procedure f_density_describe
  end interface isocost_density_describe
  interface isocost_decompose
    module procedure f_decompose
  end interface isocost_decompose
  interface isocost_decompose_auto
    module procedure f_decompose_auto
  end interface isocost_decompose_auto
#ifdef ISOCOST_HAVE_FIT
  interface isocost_fit
    module procedure f_fit
  end interface isocost_fit
  interface isocost_fit_options_init
    module procedure f_fit_options_init
  end interface isocost_fit_options_init
  interface isocost_fit_density
    module procedure f_fit_density
  end interface isocost_fit_density
#endif
#ifdef ISOCOST_HAVE_MPI
  interface isocost_balancer_options_init
    module procedure f_balancer_options_init
  end interface isocost_balancer_options_init
  interface isocost_balancer_create
    module procedure f_balancer_create
  end interface isocost_balancer_create
  interface isocost_balancer_free
    module procedure f_balancer_free
  end interface isocost_balancer_free
  interface isocost_balancer_begin_step
    module procedure f_balancer_begin_step
  end interface isocost_balancer_begin_step
  interface isocost_balancer_end_step
    module procedure f_balancer_end_step
  end interface isocost_balancer_end_step
  interface isocost_balancer_record_step
    module procedure f_balancer_record_step
  end interface isocost_balancer_record_step
  interface isocost_balancer_set_costs
    module procedure f_balancer_set_costs
  end interface isocost_balancer_set_costs
  interface isocost_balancer_check
    module procedure f_balancer_check
  end interface isocost_balancer_check
  interface isocost_balancer_last_decision
    module procedure f_balancer_last_decision
  end interface isocost_balancer_last_decision
  interface isocost_balancer_migrate
    module procedure f_balancer_migrate
  end interface isocost_balancer_migrate
  interface isocost_balancer_local
    module procedure f_balancer_local
  end interface isocost_balancer_local
  interface isocost_balancer_offsets
    module procedure f_balancer_offsets
  end interface isocost_balancer_offsets
  interface isocost_partition_weights
    module procedure f_partition_weights
  end interface isocost_partition_weights
  interface isocost_partition_points
    module procedure f_partition_points
  end interface isocost_partition_points
  interface isocost_decompose_grid
    module procedure f_decompose_grid
  end interface isocost_decompose_grid
#endif

  !> A one-dimensional cost model t(x) (an isocost_model* of the C interface).
  type, public :: isocost_model
    !> The C model; c_null_ptr before a constructor and after isocost_model_free().
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: model_final
  end type isocost_model

  !> Per-cell costs of a 1-, 2- or 3-D grid (an isocost_density* of C), with
  !> the ownership rules of isocost_model: release it with isocost_density_free.
  type, public :: isocost_density
    type(c_ptr) :: handle = c_null_ptr
  contains
    final :: density_final
  end type isocost_density

  ! A failure found here, before any C call (arrays of unequal sizes): its
  ! message, which isocost_last_error() returns until the next wrapper call.
  ! Not thread-local, unlike the C message.
  logical, save :: local_failed = .false.
  ! gfortran passes an empty array as NULL; C then reports "… is NULL" where
  ! the count (0) is what is wrong. Empty arrays are passed as this instead.
  real(c_double), parameter :: no_values(1) = 0
  character(len=:), allocatable, save :: local_message

contains

  ! --- errors -----------------------------------------------------------------

  !> The message of the last failed call ("" after a success), as a Fortran string.
  function isocost_last_error() result(message)
    character(len=:), allocatable :: message
    if (local_failed) then
      message = local_message
    else
      message = c_string(isocost_last_error_c())
    end if
  end function isocost_last_error

  !> The constant name of a status, e.g. "ISOCOST_ERROR_INVALID_ARGUMENT".
  function isocost_status_name(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    name = c_string(isocost_status_name_c(int(status, c_int)))
  end function isocost_status_name

  function c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n, i
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function c_string

  ! Every wrapper starts here: a new call, no local failure yet.
  subroutine new_call()
    local_failed = .false.
  end subroutine new_call

  ! Hands the C status to the caller, or stops on a failure when it has no
  ! `status` to receive it.
  subroutine finish(rc, status)
    integer(c_int), intent(in) :: rc
    integer, intent(out), optional :: status
    if (present(status)) then
      status = int(rc)
    else if (rc /= ISOCOST_OK) then
      write (error_unit, '(a)') 'isocost: '//isocost_last_error()
      error stop 'isocost: stopped on the error above (pass status= to handle it)'
    end if
  end subroutine finish

  ! A failure found before calling C: message "<routine>: <what>".
  subroutine fail_here(routine, what, status)
    character(len=*), intent(in) :: routine, what
    integer, intent(out), optional :: status
    local_failed = .true.
    local_message = routine//': '//what
    call finish(ISOCOST_ERROR_INVALID_ARGUMENT, status)
  end subroutine fail_here

  function itoa(i) result(s)
    integer(c_int64_t), intent(in) :: i
    character(len=:), allocatable :: s
    character(len=24) :: buffer
    write (buffer, '(i0)') i
    s = trim(buffer)
  end function itoa

  ! The whole one-line description of a C model (model = .true.,
  ! isocost_model_describe) or density (isocost_density_describe): its length
  ! first (size 0, text NULL), then the text into a buffer of length + 1.
  function describe_text(handle, model, status) result(text)
    type(c_ptr), intent(in) :: handle
    logical, intent(in) :: model
    integer, intent(out), optional :: status
    character(len=:), allocatable :: text
    character(kind=c_char), allocatable :: chars(:)
    integer(c_int64_t) :: n
    integer(c_int) :: rc
    integer :: i
    text = ''
    if (model) then
      rc = c_model_describe(handle, size=0_c_int64_t, length=n)
    else
      rc = c_density_describe(handle, size=0_c_int64_t, length=n)
    end if
    if (rc == ISOCOST_OK .and. n > 0) then
      allocate (chars(n + 1))
      if (model) then
        rc = c_model_describe(handle, chars, n + 1)
      else
        rc = c_density_describe(handle, chars, n + 1)
      end if
      if (rc == ISOCOST_OK) then
        deallocate (text)
        allocate (character(len=n) :: text)
        do i = 1, int(n)
          text(i:i) = chars(i)
        end do
      end if
    end if
    call finish(rc, status)
  end function describe_text

  ! Arrays a and b must have equal sizes (named in the message).
  logical function same_size(routine, a, na, b, nb, status)
    character(len=*), intent(in) :: routine, a, b
    integer(c_int64_t), intent(in) :: na, nb
    integer, intent(out), optional :: status
    same_size = na == nb
    if (.not. same_size) call fail_here(routine, b//': expected '//itoa(na)// &
                                        ' elements (the size of '//a//'), got '//itoa(nb), status)
  end function same_size

  ! --- models -------------------------------------------------------------------

  subroutine model_final(model)
    type(isocost_model), intent(inout) :: model
    call c_free(model%handle)
    model%handle = c_null_ptr
  end subroutine model_final

  !> Releases the model (a no-op when it holds none); model%handle becomes null.
  subroutine f_model_free(model)
    type(isocost_model), intent(inout) :: model
    call model_final(model)
  end subroutine f_model_free

  !> Swartz eq. (4): t(x) = A·x^p/(ln x − c) − T(lo) on [lo, hi].
  subroutine f_model_sieve(A, p, c, lo, hi, model, status)
    real(c_double), intent(in) :: A, p, c, lo, hi
    type(isocost_model), intent(inout) :: model
    integer, intent(out), optional :: status
    call new_call()
    call f_model_free(model)
    call finish(c_sieve(A, p, c, lo, hi, model%handle), status)
  end subroutine f_model_sieve

  !> t(x) = A·x^p + B on [lo, hi].
  subroutine f_model_power(A, p, B, lo, hi, model, status)
    real(c_double), intent(in) :: A, p, B, lo, hi
    type(isocost_model), intent(inout) :: model
    integer, intent(out), optional :: status
    call new_call()
    call f_model_free(model)
    call finish(c_power(A, p, B, lo, hi, model%handle), status)
  end subroutine f_model_power

  !> t(x) = coefficients(1) + coefficients(2)·x + … on [lo, hi].
  subroutine f_model_polynomial(coefficients, lo, hi, model, status)
    real(c_double), intent(in) :: coefficients(:), lo, hi
    type(isocost_model), intent(inout) :: model
    integer, intent(out), optional :: status
    call new_call()
    call f_model_free(model)
    if (size(coefficients) == 0) then
      call finish(c_polynomial(no_values, 0_c_int64_t, lo, hi, model%handle), status)
    else
      call finish(c_polynomial(coefficients, size(coefficients, kind=c_int64_t), lo, hi, &
                               model%handle), status)
    end if
  end subroutine f_model_polynomial

  !> Interpolation through cumulative samples (x(k), t(k)); `interpolation` is
  !> one of ISOCOST_INTERPOLATION_* (default PCHIP).
  subroutine f_model_tabulated(x, t, model, interpolation, status)
    real(c_double), intent(in) :: x(:), t(:)
    type(isocost_model), intent(inout) :: model
    integer, intent(in), optional :: interpolation
    integer, intent(out), optional :: status
    integer(c_int) :: how
    call new_call()
    call f_model_free(model)
    if (.not. same_size('isocost_model_tabulated', 'x', size(x, kind=c_int64_t), 't', &
                        size(t, kind=c_int64_t), status)) return
    how = ISOCOST_INTERPOLATION_PCHIP
    if (present(interpolation)) how = int(interpolation, c_int)
    if (size(x) == 0) then
      call finish(c_tabulated(no_values, no_values, 0_c_int64_t, how, model%handle), status)
    else
      call finish(c_tabulated(x, t, size(x, kind=c_int64_t), how, model%handle), status)
    end if
  end subroutine f_model_tabulated

  !> Per-cell weights: cell k−1 covers [k−1, k), the domain is [0, size(weights)].
  subroutine f_model_discrete(weights, model, status)
    real(c_double), intent(in) :: weights(:)
    type(isocost_model), intent(inout) :: model
    integer, intent(out), optional :: status
    call new_call()
    call f_model_free(model)
    if (size(weights) == 0) then
      call finish(c_discrete(no_values, 0_c_int64_t, model%handle), status)
    else
      call finish(c_discrete(weights, size(weights, kind=c_int64_t), model%handle), status)
    end if
  end subroutine f_model_discrete

  !> The cumulative cost t(x), lo <= x <= hi.
  subroutine f_model_cost(model, x, cost, status)
    type(isocost_model), intent(in) :: model
    real(c_double), intent(in) :: x
    real(c_double), intent(out) :: cost
    integer, intent(out), optional :: status
    call new_call()
    call finish(c_cost(model%handle, x, cost), status)
  end subroutine f_model_cost

  !> The density t'(x), lo <= x <= hi.
  subroutine f_model_density(model, x, density, status)
    type(isocost_model), intent(in) :: model
    real(c_double), intent(in) :: x
    real(c_double), intent(out) :: density
    integer, intent(out), optional :: status
    call new_call()
    call finish(c_density(model%handle, x, density), status)
  end subroutine f_model_density

  !> The domain [lo, hi].
  subroutine f_model_domain(model, lo, hi, status)
    type(isocost_model), intent(in) :: model
    real(c_double), intent(out) :: lo, hi
    integer, intent(out), optional :: status
    call new_call()
    call finish(c_domain(model%handle, lo, hi), status)
  end subroutine f_model_domain

  !> The total cost TT = t(hi).
  subroutine f_model_total(model, total, status)
    type(isocost_model), intent(in) :: model
    real(c_double), intent(out) :: total
    integer, intent(out), optional :: status
    call new_call()
    call finish(c_total(model%handle, total), status)
  end subroutine f_model_total

  !> The model's one-line description, e.g. "power t(x) = A*x^p + B, …" (for a
  !> model fitted with spec "auto", the form chosen); "" after a failure.
  function f_model_describe(model, status) result(text)
    type(isocost_model), intent(in) :: model
    integer, intent(out), optional :: status
    character(len=:), allocatable :: text
    call new_call()
    text = describe_text(model%handle, .true., status)
  end function f_model_describe

  ! --- partitions and load statistics -------------------------------------------

  !> Cuts the model into `ranks` parts: rank i (from 0) owns [cuts(i+1), cuts(i+2)),
  !> so cuts needs exactly ranks + 1 elements (declare it cuts(0:ranks) to index
  !> by rank). speeds: `ranks` relative speeds (absent: uniform). integer:
  !> integer cuts (default .false.; discrete models always have them).
  !> ISOCOST_ERROR_NOT_CONVERGED still writes the cuts.
  subroutine f_partition(model, ranks, cuts, speeds, integer, status)
    type(isocost_model), intent(in) :: model
    integer, intent(in) :: ranks
    real(c_double), intent(inout) :: cuts(:)
    real(c_double), intent(in), optional :: speeds(:)
    logical, intent(in), optional :: integer
    integer, intent(out), optional :: status
    integer(c_int) :: whole
    call new_call()
    whole = 0
    if (present(integer)) then
      if (integer) whole = 1
    end if
    if (ranks >= 1) then  ! else the C call names the bad ranks
      if (.not. same_size('isocost_partition', 'ranks + 1', int(ranks, c_int64_t) + 1, &
                          'cuts', size(cuts, kind=c_int64_t), status)) return
      if (present(speeds)) then
        if (.not. same_size('isocost_partition', 'ranks', int(ranks, c_int64_t), 'speeds', &
                            size(speeds, kind=c_int64_t), status)) return
      end if
    end if
    call finish(c_partition(model%handle, int(ranks, c_int), speeds, whole, cuts), status)
  end subroutine f_partition

  !> Load statistics of one time per rank (Swartz eqs. (2)-(3)): L_I, L_E, …
  subroutine f_load_stats(times, stats, status)
    real(c_double), intent(in) :: times(:)
    type(isocost_load_stats_t), intent(out) :: stats
    integer, intent(out), optional :: status
    call new_call()
    if (size(times) == 0) then
      call finish(c_load_stats(no_values, 0_c_int, stats), status)
    else
      call finish(c_load_stats(times, int(size(times), c_int), stats), status)
    end if
  end subroutine f_load_stats

  !> The imbalance max/mean − 1 of the loads (Pearce eq. 1 over 100).
  subroutine f_imbalance(loads, imbalance, status)
    real(c_double), intent(in) :: loads(:)
    real(c_double), intent(out) :: imbalance
    integer, intent(out), optional :: status
    call new_call()
    imbalance = 0
    if (size(loads) == 0) then
      call finish(c_imbalance(no_values, 0_c_int, imbalance), status)
    else
      call finish(c_imbalance(loads, int(size(loads), c_int), imbalance), status)
    end if
  end subroutine f_imbalance

  !> Statistics of vector loads (Watts §4.2): times(phase, rank) is the time of
  !> a rank in a phase (one column per rank). total: of each rank's sum over
  !> phases; per_phase (size(times, 1) elements): each phase's own;
  !> synchronised_time = Σ_phase max_rank time, synchronised_efficiency = the
  !> mean total over it.
  subroutine f_phase_stats(times, total, per_phase, synchronised_time, synchronised_efficiency, &
                           status)
    real(c_double), intent(in) :: times(:, :)
    type(isocost_load_stats_t), intent(inout) :: total
    type(isocost_load_stats_t), intent(inout), optional :: per_phase(:)
    real(c_double), intent(inout), optional :: synchronised_time, synchronised_efficiency
    integer, intent(out), optional :: status
    integer(c_int) :: phases, ranks
    call new_call()
    phases = int(size(times, 1), c_int)
    ranks = int(size(times, 2), c_int)
    if (present(per_phase)) then
      if (.not. same_size('isocost_phase_stats', 'size(times, 1)', int(phases, c_int64_t), &
                          'per_phase', size(per_phase, kind=c_int64_t), status)) return
    end if
    if (size(times) == 0) then
      call finish(c_phase_stats(no_values, ranks, phases, per_phase, total, synchronised_time, &
                                synchronised_efficiency), status)
    else
      call finish(c_phase_stats(times, ranks, phases, per_phase, total, synchronised_time, &
                                synchronised_efficiency), status)
    end if
  end subroutine f_phase_stats

#include "isocost_decompose.inc"

#ifdef ISOCOST_HAVE_FIT
  ! --- fitting (isocost::c built with the fitters) -------------------------------

  !> Fits a model to interval timings: the work in [lo(k), hi(k)) took
  !> seconds(k). spec: "sieve" (Swartz eq. (4), fits A and p), "sieve+c",
  !> "power", "poly:N", "exp", "expr:FORMULA", "pchip", "makima", or "auto"
  !> (select_model()'s choice by cross-validation: isocost_model_describe
  !> names it, the summary holds its parameters). summary
  !> (optional) receives the fit's report; options (optional, from
  !> isocost_fit_options_init) selects isocost_fit_ex(). ISOCOST_ERROR_NOT_CONVERGED
  !> still returns the last iterate's model (free it); other failures leave none.
  subroutine f_fit(lo, hi, seconds, spec, model, summary, options, status)
    real(c_double), intent(in) :: lo(:), hi(:), seconds(:)
    character(len=*), intent(in) :: spec
    type(isocost_model), intent(inout) :: model
    type(isocost_fit_summary), intent(inout), optional :: summary
    type(isocost_fit_options), intent(in), optional :: options
    integer, intent(out), optional :: status
    integer(c_int64_t) :: n
    call new_call()
    call f_model_free(model)
    n = size(lo, kind=c_int64_t)
    if (.not. same_size('isocost_fit', 'lo', n, 'hi', size(hi, kind=c_int64_t), status)) return
    if (.not. same_size('isocost_fit', 'lo', n, 'seconds', size(seconds, kind=c_int64_t), &
                        status)) return
    if (n == 0) then
      call finish(call_fit(no_values, no_values, no_values), status)
    else
      call finish(call_fit(lo, hi, seconds), status)
    end if
  contains
    ! isocost_fit_ex() with options, else isocost_fit() (whose name the message gives).
    integer(c_int) function call_fit(a, b, t)
      real(c_double), intent(in) :: a(:), b(:), t(:)
      if (present(options)) then
        call_fit = c_fit_ex(a, b, t, n, trim(spec)//c_null_char, options, model%handle, summary)
      else
        call_fit = c_fit(a, b, t, n, trim(spec)//c_null_char, model%handle, summary)
      end if
    end function call_fit
  end subroutine f_fit

  !> The default fit options (those of isocost::FitOptions).
  subroutine f_fit_options_init(options, status)
    type(isocost_fit_options), intent(inout) :: options
    integer, intent(out), optional :: status
    call new_call()
    call finish(c_fit_options_init(options), status)
  end subroutine f_fit_options_init

  !> Fits a cost density to box timings: the work inside box k took costs(k);
  !> column k of lo(dims, count) and hi(dims, count) is box k's corners (C's
  !> lo[k·dims + a]), dims = size(lo, 1) from 1 to 3. form: "separable:N"
  !> (N <= 10; "separable" is 3), "poly:N" (N <= 6) or "auto" (the lowest
  !> AICc: isocost_density_describe names it). summary (optional): rmse,
  !> max_rel_error, r_squared, iterations, converged (n_parameters 0).
  !> ISOCOST_ERROR_NOT_CONVERGED still returns the last iterate's density.
  subroutine f_fit_density(lo, hi, costs, form, density, summary, status)
    real(c_double), intent(in) :: lo(:, :), hi(:, :), costs(:)
    character(len=*), intent(in) :: form
    type(isocost_density), intent(inout) :: density
    type(isocost_fit_summary), intent(inout), optional :: summary
    integer, intent(out), optional :: status
    integer(c_int64_t) :: n
    integer(c_int) :: dims
    call new_call()
    call f_density_free(density)
    dims = int(size(lo, 1), c_int)
    n = size(lo, 2, kind=c_int64_t)
    if (size(hi, 1) /= size(lo, 1) .or. size(hi, 2) /= size(lo, 2)) then
      call fail_here('isocost_fit_density', 'hi: expected shape ('//itoa(int(dims, c_int64_t)) &
                     //', '//itoa(n)//') (the shape of lo), got ('// &
                     itoa(size(hi, 1, kind=c_int64_t))//', '//itoa(size(hi, 2, kind=c_int64_t)) &
                     //')', status)
      return
    end if
    if (.not. same_size('isocost_fit_density', 'size(lo, 2)', n, 'costs', &
                        size(costs, kind=c_int64_t), status)) return
    ! Empty arrays as no_values (C then names the count or dims of 0).
    if (size(lo) > 0) then
      call finish(call_c(lo, hi, costs), status)
    else if (size(costs) > 0) then
      call finish(call_c(no_values, no_values, costs), status)
    else
      call finish(call_c(no_values, no_values, no_values), status)
    end if
  contains
    integer(c_int) function call_c(a, b, t)
      real(c_double), intent(in) :: a(*), b(*), t(*)
      call_c = c_fit_density(a, b, t, n, dims, trim(form)//c_null_char, density%handle, summary)
    end function call_c
  end subroutine f_fit_density
#endif
#ifdef ISOCOST_HAVE_MPI
#include "isocost_mpi_wrappers.inc"
#endif
end module isocost
