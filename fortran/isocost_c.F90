! isocost_c — the raw C interface of include/isocost/isocost.h, one interface
! block per C function, for the Fortran wrappers of module isocost (isocost.F90)
! and for programs that want the C calls as they are (status returned, counts
! passed). Names are the C names; a program that also uses module isocost
! renames one of the two, e.g. `use isocost_c, only: c_partition => isocost_partition`.
! Optional array dummies of bind(c) interfaces (Fortran 2018, TS 29113) pass
! NULL when absent.
module isocost_c
  use, intrinsic :: iso_c_binding, only: c_int, c_int64_t, c_size_t, c_double, c_ptr, c_char
  implicit none
  private

  ! enum isocost_status
  integer(c_int), parameter, public :: ISOCOST_OK = 0
  integer(c_int), parameter, public :: ISOCOST_ERROR_INVALID_ARGUMENT = 1
  integer(c_int), parameter, public :: ISOCOST_ERROR_NO_MEMORY = 2
  integer(c_int), parameter, public :: ISOCOST_ERROR_FAILED = 3
  integer(c_int), parameter, public :: ISOCOST_ERROR_NOT_CONVERGED = 4
  ! enum isocost_interpolation
  integer(c_int), parameter, public :: ISOCOST_INTERPOLATION_PCHIP = 0
  integer(c_int), parameter, public :: ISOCOST_INTERPOLATION_MAKIMA = 1
  integer(c_int), parameter, public :: ISOCOST_INTERPOLATION_LINEAR = 2

  !> struct isocost_load_stats (Swartz eqs. (2)-(3)). The C function of the
  !> same name forces another Fortran name: isocost_load_stats_t.
  type, bind(c), public :: isocost_load_stats_t
    real(c_double) :: t_min = 0, t_max = 0, t_avg = 0
    real(c_double) :: l_i = 0, l_e = 0, efficiency = 0
  end type isocost_load_stats_t

  !> struct isocost_part (isocost::Part): one rank's box. Entries past the
  !> density's dims are 0; cell indices count from 0, [cell_lo, cell_hi).
  type, bind(c), public :: isocost_part
    real(c_double) :: lo(3) = 0, hi(3) = 0
    integer(c_int64_t) :: cell_lo(3) = 0, cell_hi(3) = 0
    real(c_double) :: cost = 0, time = 0, volume = 0, surface = 0
  end type isocost_part

  !> struct isocost_decomposition (isocost::Decomposition) and its process
  !> grid: counts(1:levels) parts per level along axes(1:levels) (from 0).
  type, bind(c), public :: isocost_decomposition
    integer(c_int) :: ranks = 0, levels = 0
    integer(c_int) :: counts(3) = 0, axes(3) = -1
    real(c_double) :: total_cost = 0, max_time = 0, predicted_le = 0, imbalance = 0
    real(c_double) :: cut_surface = 0
  end type isocost_decomposition

#ifdef ISOCOST_HAVE_FIT
  !> ISOCOST_MAX_FIT_PARAMETERS and struct isocost_fit_summary (isocost::FitSummary).
  integer, parameter, public :: ISOCOST_MAX_FIT_PARAMETERS = 8
  type, bind(c), public :: isocost_fit_summary
    real(c_double) :: rmse = 0, max_rel_error = 0, r_squared = 0
    integer(c_int) :: iterations = 0, converged = 0, n_parameters = 0
    real(c_double) :: parameters(ISOCOST_MAX_FIT_PARAMETERS) = 0
  end type isocost_fit_summary
  ! enum isocost_fit_loss
  integer(c_int), parameter, public :: ISOCOST_FIT_LOSS_NONE = 0
  integer(c_int), parameter, public :: ISOCOST_FIT_LOSS_HUBER = 1
  integer(c_int), parameter, public :: ISOCOST_FIT_LOSS_CAUCHY = 2
  !> struct isocost_fit_options (isocost::FitOptions): fill it with
  !> isocost_fit_options_init() first.
  type, bind(c), public :: isocost_fit_options
    integer(c_int) :: relative = 1, loss = 0
    real(c_double) :: loss_scale = 0
    integer(c_int) :: max_iterations = 0
    real(c_double) :: function_tolerance = 0, lo = 0, hi = 0
  end type isocost_fit_options
  public :: isocost_fit, isocost_fit_ex, isocost_fit_options_init, isocost_fit_density
#endif

  public :: isocost_last_error_c, isocost_status_name_c, c_strlen
  public :: isocost_model_sieve, isocost_model_power, isocost_model_polynomial
  public :: isocost_model_tabulated, isocost_model_discrete, isocost_model_free
  public :: isocost_model_cost, isocost_model_density, isocost_model_domain
  public :: isocost_model_total, isocost_model_describe, isocost_partition, isocost_load_stats
  public :: isocost_imbalance, isocost_phase_stats
  public :: isocost_density_grid, isocost_density_free, isocost_density_info
  public :: isocost_density_describe
  public :: isocost_decompose, isocost_decompose_auto

  interface
    ! const char* isocost_last_error(void)
    type(c_ptr) function isocost_last_error_c() bind(c, name='isocost_last_error')
      import :: c_ptr
    end function
    ! const char* isocost_status_name(int)
    type(c_ptr) function isocost_status_name_c(status) bind(c, name='isocost_status_name')
      import :: c_ptr, c_int
      integer(c_int), value :: status
    end function
    ! size_t strlen(const char*), to copy the C strings above
    integer(c_size_t) function c_strlen(s) bind(c, name='strlen')
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
    end function

    integer(c_int) function isocost_model_sieve(A, p, c, lo, hi, out) bind(c)
      import :: c_int, c_double, c_ptr
      real(c_double), value :: A, p, c, lo, hi
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function isocost_model_power(A, p, B, lo, hi, out) bind(c)
      import :: c_int, c_double, c_ptr
      real(c_double), value :: A, p, B, lo, hi
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function isocost_model_polynomial(coefficients, count, lo, hi, out) bind(c)
      import :: c_int, c_int64_t, c_double, c_ptr
      real(c_double), intent(in) :: coefficients(*)
      integer(c_int64_t), value :: count
      real(c_double), value :: lo, hi
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function isocost_model_tabulated(x, t, count, interpolation, out) bind(c)
      import :: c_int, c_int64_t, c_double, c_ptr
      real(c_double), intent(in) :: x(*), t(*)
      integer(c_int64_t), value :: count
      integer(c_int), value :: interpolation
      type(c_ptr), intent(out) :: out
    end function
    integer(c_int) function isocost_model_discrete(weights, n, out) bind(c)
      import :: c_int, c_int64_t, c_double, c_ptr
      real(c_double), intent(in) :: weights(*)
      integer(c_int64_t), value :: n
      type(c_ptr), intent(out) :: out
    end function
    subroutine isocost_model_free(model) bind(c)
      import :: c_ptr
      type(c_ptr), value :: model
    end subroutine
    integer(c_int) function isocost_model_cost(model, x, cost) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: model
      real(c_double), value :: x
      real(c_double), intent(out) :: cost
    end function
    integer(c_int) function isocost_model_density(model, x, density) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: model
      real(c_double), value :: x
      real(c_double), intent(out) :: density
    end function
    integer(c_int) function isocost_model_domain(model, lo, hi) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: model
      real(c_double), intent(out) :: lo, hi
    end function
    integer(c_int) function isocost_model_total(model, total) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: model
      real(c_double), intent(out) :: total
    end function
    ! text absent: NULL (with size = 0, to ask for the length); length absent: NULL
    integer(c_int) function isocost_model_describe(model, text, size, length) bind(c)
      import :: c_int, c_int64_t, c_char, c_ptr
      type(c_ptr), value :: model
      character(kind=c_char), intent(inout), optional :: text(*)
      integer(c_int64_t), value :: size
      integer(c_int64_t), intent(inout), optional :: length
    end function
    ! speeds absent: NULL, uniform speeds
    integer(c_int) function isocost_partition(model, ranks, speeds, integer, cuts) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: ranks
      real(c_double), intent(in), optional :: speeds(*)
      integer(c_int), value :: integer
      real(c_double), intent(inout) :: cuts(*)
    end function
    integer(c_int) function isocost_load_stats(times, n, out) bind(c)
      import :: c_int, c_double, isocost_load_stats_t
      real(c_double), intent(in) :: times(*)
      integer(c_int), value :: n
      type(isocost_load_stats_t), intent(inout) :: out
    end function
    integer(c_int) function isocost_imbalance(loads, n, out) bind(c)
      import :: c_int, c_double
      real(c_double), intent(in) :: loads(*)
      integer(c_int), value :: n
      real(c_double), intent(inout) :: out
    end function
    ! times(phases, ranks) in Fortran order is C's times[rank·phases + phase]
    integer(c_int) function isocost_phase_stats(times, ranks, phases, per_phase, total, &
                                                synchronised_time, synchronised_efficiency) bind(c)
      import :: c_int, c_double, isocost_load_stats_t
      real(c_double), intent(in) :: times(*)
      integer(c_int), value :: ranks, phases
      type(isocost_load_stats_t), intent(inout), optional :: per_phase(*)
      type(isocost_load_stats_t), intent(inout) :: total
      real(c_double), intent(inout), optional :: synchronised_time, synchronised_efficiency
    end function
    ! lo and hi absent (both): NULL, the box [0, cells]
    integer(c_int) function isocost_density_grid(weights, dims, cells, lo, hi, out) bind(c)
      import :: c_int, c_int64_t, c_double, c_ptr
      real(c_double), intent(in) :: weights(*)
      integer(c_int), value :: dims
      integer(c_int64_t), intent(in) :: cells(*)
      real(c_double), intent(in), optional :: lo(*), hi(*)
      type(c_ptr), intent(out) :: out
    end function
    subroutine isocost_density_free(density) bind(c)
      import :: c_ptr
      type(c_ptr), value :: density
    end subroutine
    integer(c_int) function isocost_density_info(density, dims, total) bind(c)
      import :: c_int, c_double, c_ptr
      type(c_ptr), value :: density
      integer(c_int), intent(inout), optional :: dims
      real(c_double), intent(inout), optional :: total
    end function
    ! as isocost_model_describe
    integer(c_int) function isocost_density_describe(density, text, size, length) bind(c)
      import :: c_int, c_int64_t, c_char, c_ptr
      type(c_ptr), value :: density
      character(kind=c_char), intent(inout), optional :: text(*)
      integer(c_int64_t), value :: size
      integer(c_int64_t), intent(inout), optional :: length
    end function
    ! speeds absent: uniform; info absent: NULL
    integer(c_int) function isocost_decompose(density, levels, counts, axes, speeds, parts, info) &
        bind(c)
      import :: c_int, c_double, c_ptr, isocost_part, isocost_decomposition
      type(c_ptr), value :: density
      integer(c_int), value :: levels
      integer(c_int), intent(in) :: counts(*), axes(*)
      real(c_double), intent(in), optional :: speeds(*)
      type(isocost_part), intent(inout) :: parts(*)
      type(isocost_decomposition), intent(inout), optional :: info
    end function
    integer(c_int) function isocost_decompose_auto(density, ranks, speeds, parts, info) bind(c)
      import :: c_int, c_double, c_ptr, isocost_part, isocost_decomposition
      type(c_ptr), value :: density
      integer(c_int), value :: ranks
      real(c_double), intent(in), optional :: speeds(*)
      type(isocost_part), intent(inout) :: parts(*)
      type(isocost_decomposition), intent(inout), optional :: info
    end function
#ifdef ISOCOST_HAVE_FIT
    ! isocost_fit(lo, hi, seconds, count, spec, out, summary); summary absent: NULL
    integer(c_int) function isocost_fit(lo, hi, seconds, count, spec, out, summary) bind(c)
      import :: c_int, c_int64_t, c_double, c_char, c_ptr, isocost_fit_summary
      real(c_double), intent(in) :: lo(*), hi(*), seconds(*)
      integer(c_int64_t), value :: count
      character(kind=c_char), intent(in) :: spec(*)
      type(c_ptr), intent(out) :: out
      type(isocost_fit_summary), intent(inout), optional :: summary
    end function
    integer(c_int) function isocost_fit_ex(lo, hi, seconds, count, spec, options, out, summary) &
        bind(c)
      import :: c_int, c_int64_t, c_double, c_char, c_ptr, isocost_fit_summary, isocost_fit_options
      real(c_double), intent(in) :: lo(*), hi(*), seconds(*)
      integer(c_int64_t), value :: count
      character(kind=c_char), intent(in) :: spec(*)
      type(isocost_fit_options), intent(in), optional :: options
      type(c_ptr), intent(out) :: out
      type(isocost_fit_summary), intent(inout), optional :: summary
    end function
    integer(c_int) function isocost_fit_options_init(options) bind(c)
      import :: c_int, isocost_fit_options
      type(isocost_fit_options), intent(inout) :: options
    end function
    ! lo(dims, count) and hi(dims, count) in Fortran order are C's lo[k·dims + a]
    ! (column k is box k); summary absent: NULL
    integer(c_int) function isocost_fit_density(lo, hi, costs, count, dims, form, out, summary) &
        bind(c)
      import :: c_int, c_int64_t, c_double, c_char, c_ptr, isocost_fit_summary
      real(c_double), intent(in) :: lo(*), hi(*), costs(*)
      integer(c_int64_t), value :: count
      integer(c_int), value :: dims
      character(kind=c_char), intent(in) :: form(*)
      type(c_ptr), intent(out) :: out
      type(isocost_fit_summary), intent(inout), optional :: summary
    end function
#endif
  end interface
end module isocost_c
