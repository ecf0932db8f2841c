! isocost_c_mpi — the raw interface of include/isocost/isocost_mpi.h (the
! MPI part of the C interface, built with ISOCOST_BUILD_MPI): the balancer and
! the distributed partitioners, in their _f forms, which take a Fortran
! communicator handle (MPI_Fint: comm%mpi_val of mpi_f08, or the integer of
! the mpi module). Module isocost wraps them; names are the C names.
module isocost_c_mpi
  use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_int64_t, c_size_t, c_double, &
                                         c_char, c_ptr, c_null_ptr, c_null_char
  implicit none
  private

  ! enum isocost_policy and enum isocost_action
  integer(c_int), parameter, public :: ISOCOST_POLICY_CHOOSE = 0
  integer(c_int), parameter, public :: ISOCOST_POLICY_GLOBAL = 1
  integer(c_int), parameter, public :: ISOCOST_POLICY_DIFFUSION = 2
  integer(c_int), parameter, public :: ISOCOST_ACTION_NONE = 0
  integer(c_int), parameter, public :: ISOCOST_ACTION_GLOBAL = 1
  integer(c_int), parameter, public :: ISOCOST_ACTION_DIFFUSION = 2

  !> isocost_balancer_options: fill it with isocost_balancer_options_init().
  !> log_path is a C string; module isocost sets it from a Fortran one.
  type, bind(c), public :: isocost_balancer_options
    integer(c_int) :: check_every = 0
    real(c_double) :: drift_threshold = 0, min_efficiency = 0
    integer(c_int) :: window = 0, cpu_clock = 0, steps_ahead = 0, policy = 0
    real(c_double) :: decision_seconds = 0, comm_latency = 0, comm_per_byte = 0
    integer(c_int) :: verify = 0
    type(c_ptr) :: log_path = c_null_ptr
    integer(c_int) :: profit_trigger = 0, edges = 0
  end type isocost_balancer_options

  !> isocost_balancer_decision: what a check decided (isocost_decision_reason()
  !> of module isocost gives the reason as a Fortran string).
  type, bind(c), public :: isocost_balancer_decision
    integer(c_long_long) :: step = 0
    integer(c_int) :: checked = 0, fired = 0, drift_fired = 0, efficiency_fired = 0
    real(c_double) :: t_min = 0, t_avg = 0, t_max = 0, drift = 0, efficiency = 0
    integer(c_int) :: action = 0
    real(c_double) :: decision_seconds = 0
    integer(c_int64_t) :: new_local_begin = 0, new_local_count = 0
    character(kind=c_char) :: reason(256) = c_null_char
  end type isocost_balancer_decision

  public :: isocost_balancer_options_init, isocost_balancer_create_f, isocost_balancer_free
  public :: isocost_balancer_begin_step, isocost_balancer_end_step, isocost_balancer_record_step
  public :: isocost_balancer_set_costs, isocost_balancer_check, isocost_balancer_last_decision
  public :: isocost_balancer_migrate, isocost_balancer_local, isocost_balancer_offsets
  public :: isocost_partition_weights_f, isocost_partition_points_f, isocost_decompose_grid_f
  public :: isocost_fortran_comm_size, isocost_fortran_all_ok

  interface
    integer(c_int) function isocost_balancer_options_init(options) bind(c)
      import :: c_int, isocost_balancer_options
      type(isocost_balancer_options), intent(inout) :: options
    end function
    ! offsets absent: near-equal blocks; options absent: the defaults
    integer(c_int) function isocost_balancer_create_f(comm, n, offsets, options, out) bind(c)
      import :: c_int, c_int64_t, c_ptr, isocost_balancer_options
      integer(c_int), value :: comm
      integer(c_int64_t), value :: n
      integer(c_int64_t), intent(in), optional :: offsets(*)
      type(isocost_balancer_options), intent(in), optional :: options
      type(c_ptr), intent(out) :: out
    end function
    subroutine isocost_balancer_free(balancer) bind(c)
      import :: c_ptr
      type(c_ptr), value :: balancer
    end subroutine
    integer(c_int) function isocost_balancer_begin_step(balancer) bind(c)
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer
    end function
    integer(c_int) function isocost_balancer_end_step(balancer) bind(c)
      import :: c_int, c_ptr
      type(c_ptr), value :: balancer
    end function
    integer(c_int) function isocost_balancer_record_step(balancer, seconds) bind(c)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: balancer
      real(c_double), value :: seconds
    end function
    integer(c_int) function isocost_balancer_set_costs(balancer, costs, count) bind(c)
      import :: c_int, c_ptr, c_double, c_int64_t
      type(c_ptr), value :: balancer
      real(c_double), intent(in), optional :: costs(*)
      integer(c_int64_t), value :: count
    end function
    integer(c_int) function isocost_balancer_check(balancer, bytes_per_element, out) bind(c)
      import :: c_int, c_ptr, c_double, isocost_balancer_decision
      type(c_ptr), value :: balancer
      real(c_double), value :: bytes_per_element
      type(isocost_balancer_decision), intent(inout), optional :: out
    end function
    integer(c_int) function isocost_balancer_last_decision(balancer, out) bind(c)
      import :: c_int, c_ptr, isocost_balancer_decision
      type(c_ptr), value :: balancer
      type(isocost_balancer_decision), intent(inout) :: out
    end function
    ! arrays absent (NULL) when narrays is 0
    integer(c_int) function isocost_balancer_migrate(balancer, narrays, old_arrays, new_arrays, &
                                                     element_bytes) bind(c)
      import :: c_int, c_ptr, c_size_t
      type(c_ptr), value :: balancer
      integer(c_int), value :: narrays
      type(c_ptr), intent(in), optional :: old_arrays(*), new_arrays(*)
      integer(c_size_t), intent(in), optional :: element_bytes(*)
    end function
    integer(c_int) function isocost_balancer_local(balancer, begin, count) bind(c)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: balancer
      integer(c_int64_t), intent(inout), optional :: begin, count
    end function
    integer(c_int) function isocost_balancer_offsets(balancer, offsets) bind(c)
      import :: c_int, c_ptr, c_int64_t
      type(c_ptr), value :: balancer
      integer(c_int64_t), intent(inout) :: offsets(*)
    end function
    integer(c_int) function isocost_partition_weights_f(comm, weights, count, parts, speeds, &
                                                        optimal, cuts, max_time) bind(c)
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: comm
      real(c_double), intent(in), optional :: weights(*)
      integer(c_int64_t), value :: count
      integer(c_int), value :: parts
      real(c_double), intent(in), optional :: speeds(*)
      integer(c_int), value :: optimal
      integer(c_int64_t), intent(inout) :: cuts(*)
      real(c_double), intent(inout), optional :: max_time
    end function
    ! coords(dims, count) in Fortran order is C's coords[i·dims + axis]
    integer(c_int) function isocost_partition_points_f(comm, dims, coords, weights, count, parts, &
                                                       speeds, part, max_time) bind(c)
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: comm, dims
      real(c_double), intent(in), optional :: coords(*), weights(*)
      integer(c_int64_t), value :: count
      integer(c_int), value :: parts
      real(c_double), intent(in), optional :: speeds(*)
      integer(c_int), intent(inout), optional :: part(*)
      real(c_double), intent(inout), optional :: max_time
    end function
    ! part_lo(3, P) in Fortran order is C's part_lo[r·3 + axis]
    integer(c_int) function isocost_decompose_grid_f(comm, dims, cells, lo, hi, weights, levels, &
                                                     counts, axes, speeds, part_lo, part_hi, &
                                                     max_time) bind(c)
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: comm, dims
      integer(c_int64_t), intent(in) :: cells(*), lo(*), hi(*)
      real(c_double), intent(in), optional :: weights(*)
      integer(c_int), value :: levels
      integer(c_int), intent(in) :: counts(*), axes(*)
      real(c_double), intent(in), optional :: speeds(*)
      integer(c_int64_t), intent(inout) :: part_lo(*), part_hi(*)
      real(c_double), intent(inout), optional :: max_time
    end function
    ! fortran/comm_size.cpp: the size of a Fortran communicator, 0 for
    ! MPI_COMM_NULL (for the size checks of module isocost).
    integer(c_int) function isocost_fortran_comm_size(comm) bind(c)
      import :: c_int
      integer(c_int), value :: comm
    end function
    ! fortran/comm_size.cpp: 1 when ok is nonzero on every rank (collective).
    integer(c_int) function isocost_fortran_all_ok(comm, ok) bind(c)
      import :: c_int
      integer(c_int), value :: comm, ok
    end function
  end interface
end module isocost_c_mpi
