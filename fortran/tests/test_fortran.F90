! Module isocost against the C interface called directly (module isocost_c,
! the same code path: results equal bit for bit), against known values, and
! every error path: with status= the C status and a message naming the value.
program test_fortran
  use, intrinsic :: iso_c_binding
  use isocost
  use isocost_test_checks
  use isocost_c, only: c_sieve => isocost_model_sieve, c_partition => isocost_partition, &
                       c_free => isocost_model_free, c_cost => isocost_model_cost, &
                       c_density => isocost_model_density, c_load_stats => isocost_load_stats, &
                       c_imbalance => isocost_imbalance, c_describe => isocost_model_describe
#ifdef ISOCOST_HAVE_FIT
  use isocost_c, only: c_fit => isocost_fit
#endif
  implicit none

  call discrete_cuts()
  call sieve_against_c()
  call power_known_cuts()
  call other_models()
  call describe_power()
  call load_stats_known()
  call imbalance_and_phases()
  call error_paths()
#ifdef ISOCOST_HAVE_FIT
  call fit_against_c()
  call fit_errors()
  call fit_auto()
#endif
  print '(i0, a, i0, a)', checks - failures, ' of ', checks, ' checks passed'
  if (failures > 0) error stop 1

contains

  ! The C header's own example: [5,5,9,6,3,8,2,2] into 3 parts.
  subroutine discrete_cuts()
    type(isocost_model) :: m
    real(c_double) :: cuts(0:3), lo, hi, total
    integer :: status
    call isocost_model_discrete([5d0, 5d0, 9d0, 6d0, 3d0, 8d0, 2d0, 2d0], m, status)
    call check(status == ISOCOST_OK, 'discrete model')
    call check(isocost_last_error() == '', 'success clears the message')
    call isocost_partition(m, 3, cuts, status=status)
    call check(status == ISOCOST_OK, 'discrete partition')
    call check(all(cuts == [0d0, 2d0, 5d0, 8d0]), 'discrete cuts [0, 2, 5, 8]')
    call isocost_model_domain(m, lo, hi)
    call isocost_model_total(m, total)
    call check(lo == 0 .and. hi == 8 .and. total == 40, 'discrete domain [0, 8], total 40')
    call isocost_model_free(m)
    call check(.not. c_associated(m%handle), 'free nulls the handle')
    call isocost_model_free(m)  ! a second free is a no-op
  end subroutine discrete_cuts

  ! Swartz's T3D model (eq. (4)) through the module and through C directly,
  ! with speeds and integer cuts: the same numbers bit for bit.
  subroutine sieve_against_c()
    real(c_double), parameter :: A = 3.9098d-7, p = 1.43d0, c = 1.08366d0
    real(c_double), parameter :: speeds(4) = [1d0, 2d0, 1.5d0, 0.5d0]
    type(isocost_model) :: m
    type(c_ptr) :: raw
    real(c_double) :: mine(0:4), theirs(0:4), t1, t2, d1, d2
    integer :: k, whole
    call isocost_model_sieve(A, p, c, 6d0, 2d6, m)
    call check(c_sieve(A, p, c, 6d0, 2d6, raw) == ISOCOST_OK, 'C sieve model')
    do whole = 0, 1
      call isocost_partition(m, 4, mine, speeds, integer=whole == 1)
      theirs = -1
      call check(c_partition(raw, 4_c_int, speeds, int(whole, c_int), theirs) == ISOCOST_OK, &
                 'C partition')
      call check(all(mine == theirs), 'sieve cuts with speeds equal the C ones')
      call isocost_partition(m, 4, mine)
      call check(c_partition(raw, 4_c_int, integer=0_c_int, cuts=theirs) == ISOCOST_OK, &
                 'C partition, uniform')
      call check(all(mine == theirs), 'sieve cuts at uniform speeds equal the C ones')
    end do
    call check(all(mine(1:4) > mine(0:3)), 'cuts increase')
    call check(mine(0) == 6 .and. mine(4) == 2d6, 'cuts span the domain')
    do k = 1, 5
      call isocost_model_cost(m, 4d5 * k, t1)
      call isocost_model_density(m, 4d5 * k, d1)
      call check(c_cost(raw, 4d5 * k, t2) == ISOCOST_OK, 'C cost')
      call check(c_density(raw, 4d5 * k, d2) == ISOCOST_OK, 'C density')
      call check(t1 == t2 .and. d1 == d2, 'cost and density equal the C ones')
    end do
    call c_free(raw)
    call isocost_model_free(m)
  end subroutine sieve_against_c

  ! t(x) = x^2 on [0, 1] into 4 equal parts: x_i = sqrt(i/4).
  subroutine power_known_cuts()
    type(isocost_model) :: m
    real(c_double) :: cuts(0:4)
    integer :: i
    call isocost_model_power(1d0, 2d0, 0d0, 0d0, 1d0, m)
    call isocost_partition(m, 4, cuts)
    do i = 0, 4
      call check(abs(cuts(i) - sqrt(i / 4d0)) <= 1d-12, 'x^2 cut at sqrt(i/4)')
    end do
    call isocost_model_free(m)
  end subroutine power_known_cuts

  ! Polynomial and tabulated forms against exact values.
  subroutine other_models()
    type(isocost_model) :: m
    real(c_double) :: t, d, cuts(0:2)
    ! t(x) = 1 + 2x + 3x^2 on [0, 2]: t(1) − t(0) = 5, t'(1) = 8.
    call isocost_model_polynomial([1d0, 2d0, 3d0], 0d0, 2d0, m)
    call isocost_model_cost(m, 1d0, t)
    call isocost_model_density(m, 1d0, d)
    call check(abs(t - 5) <= 1d-12 .and. abs(d - 8) <= 1d-12, 'polynomial cost 5, density 8')
    ! Linear through (0,0), (1,1), (3,2): half of the cost is reached at x = 1.
    call isocost_model_tabulated([0d0, 1d0, 3d0], [0d0, 1d0, 2d0], m, ISOCOST_INTERPOLATION_LINEAR)
    call isocost_partition(m, 2, cuts)
    call check(abs(cuts(1) - 1) <= 1d-12 .and. cuts(2) == 3, 'tabulated linear halves at x = 1')
    call isocost_model_free(m)
    ! An allocatable model is finalized (released) on deallocation.
    block
      type(isocost_model), allocatable :: owned
      allocate (owned)
      call isocost_model_power(1d0, 1d0, 0d0, 0d0, 1d0, owned)
      call check(c_associated(owned%handle), 'allocatable model built')
      deallocate (owned)
    end block
  end subroutine other_models

  ! The description of t(x) = 2x^3 on [0, 1]: the whole text, as C writes it
  ! into a buffer of its own; C truncates to size − 1 characters and a NUL.
  subroutine describe_power()
    type(isocost_model) :: m, never
    character(len=:), allocatable :: text
    character(kind=c_char) :: buffer(200), short(6)
    integer(c_int64_t) :: length
    integer :: status, i
    call isocost_model_power(2d0, 3d0, 0d0, 0d0, 1d0, m)
    text = isocost_model_describe(m, status)
    call check(status == ISOCOST_OK, 'describe a power model')
    call check(index(text, 'power') > 0 .and. len(text) > 10, '"'//text//'" names power')
    call check(text == isocost_model_describe(m), 'a second call gives the same text')
    call check(index(text, achar(0)) == 0 .and. text(len(text):) /= ' ', &
               'no NUL, no padding in "'//text//'"')
    buffer = 'x'
    call check(c_describe(m%handle, buffer, 200_c_int64_t, length) == ISOCOST_OK, 'C describe')
    call check(length == len(text), 'C''s length is the text''s')
    call check(all([(buffer(i) == text(i:i), i = 1, len(text))]) .and. &
               buffer(len(text) + 1) == c_null_char, 'the text is C''s, bit for bit')
    short = 'x'
    call check(c_describe(m%handle, short, 6_c_int64_t) == ISOCOST_OK, 'C describe, truncated')
    call check(all([(short(i) == text(i:i), i = 1, 5)]) .and. short(6) == c_null_char, &
               'C truncates to 5 characters and a NUL')
    text = isocost_model_describe(never, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_model_describe: model is NULL')
    call check(text == '', 'a failed describe gives ""')
    call isocost_model_free(m)
  end subroutine describe_power

  ! Swartz eqs. (2)-(3) by hand: times 1, 2, 3, 4 give T_avg = 2.5, L_I = 60 %.
  subroutine load_stats_known()
    type(isocost_load_stats_t) :: s, c_s
    real(c_double), parameter :: times(4) = [1d0, 2d0, 3d0, 4d0]
    call isocost_load_stats(times, s)
    call check(s%t_min == 1 .and. s%t_max == 4 .and. s%t_avg == 2.5d0, 'min, max, avg')
    call check(abs(s%l_i - 60) <= 1d-12 .and. abs(s%l_e - 40) <= 1d-12, 'L_I 60, L_E 40')
    call check(abs(s%efficiency - 0.625d0) <= 1d-15, 'efficiency 0.625')
    call check(c_load_stats(times, 4_c_int, c_s) == ISOCOST_OK, 'C load stats')
    call check(s%l_e == c_s%l_e .and. s%efficiency == c_s%efficiency, 'stats equal the C ones')
  end subroutine load_stats_known

  ! Loads 1, 2, 3: imbalance 3/2 − 1. Two phases on three ranks, times(phase,
  ! rank): every rank's total is 4 (balanced), each phase alone is not, and
  ! synchronising after each phase costs 3 + 3 = 6 for a mean total of 4.
  subroutine imbalance_and_phases()
    real(c_double) :: lambda, c_lambda, times(2, 3), sync_time, sync_eff
    type(isocost_load_stats_t) :: total, phases(2), row
    integer :: status, p
    call isocost_imbalance([1d0, 2d0, 3d0], lambda)
    call check(lambda == 0.5d0, 'imbalance of 1, 2, 3 is 0.5')
    call check(c_imbalance([1d0, 2d0, 3d0], 3_c_int, c_lambda) == ISOCOST_OK, 'C imbalance')
    call check(lambda == c_lambda, 'imbalance equals the C one')
    times = reshape([1d0, 3d0, 2d0, 2d0, 3d0, 1d0], [2, 3])
    call isocost_phase_stats(times, total, phases, sync_time, sync_eff)
    call check(total%t_avg == 4 .and. total%l_i == 0 .and. total%efficiency == 1, &
               'every rank totals 4: balanced')
    call check(sync_time == 6 .and. abs(sync_eff - 4d0 / 6) <= 1d-15, 'synchronised: 6, 2/3')
    do p = 1, 2
      call isocost_load_stats(times(p, :), row)
      call check(phases(p)%l_e == row%l_e .and. phases(p)%t_max == row%t_max, &
                 'a phase''s stats are the load stats of its row')
    end do
    call isocost_phase_stats(times, total, phases(1:1), status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_phase_stats: per_phase: expected 2 elements (the size of size(times, 1)), got 1')
    call isocost_phase_stats(0 * times, total, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_phase_stats: load: all loads are zero; expected a positive total')
    call isocost_imbalance([real(c_double) ::], lambda, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_imbalance: n: expected an integer >= 1, got 0')
    call isocost_imbalance([1d0, -2d0, 3d0], lambda, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_imbalance: loads: load of rank 1: expected a finite number >= 0, got -2')
    call isocost_imbalance([0d0, 0d0], lambda, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'all loads are zero')
  end subroutine imbalance_and_phases

  subroutine error_paths()
    type(isocost_model) :: m, never
    real(c_double) :: cuts(0:3), x, lo, hi
    type(isocost_load_stats_t) :: s
    integer :: status
    ! A model never built (or already freed) is a NULL model to C.
    call isocost_partition(never, 3, cuts, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_partition: model is NULL')
    call isocost_model_cost(never, 1d0, x, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_model_cost: model is NULL')
    call isocost_model_domain(never, lo, hi, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'model is NULL')
    ! Bad values, named by C.
    call isocost_model_discrete([1d0, 2d0, 3d0], m)
    call isocost_partition(m, 0, cuts, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_partition: ranks: expected an integer >= 1, got 0')
    call isocost_partition(m, 3, cuts, [1d0, 0d0, 1d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'speed of rank 1')
    call isocost_model_cost(m, 7d0, x, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_model_cost')
    call check(index(isocost_last_error(), '7') > 0, 'the message names x = 7')
    call isocost_model_discrete([real(c_double) ::], m, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_model_discrete: n: expected an integer >= 1, got 0')
    call check(.not. c_associated(m%handle), 'a failed constructor leaves no model')
    call isocost_model_sieve(3.9d-7, 1.43d0, 1.08366d0, 2d0, 1d6, m, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_model_sieve')
    call isocost_model_polynomial([1d0], 0d0, 1d0, m, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'count: expected an integer >= 2, got 1')
    call isocost_load_stats([real(c_double) ::], s, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_load_stats: n:')
    call isocost_load_stats([1d0, -2d0], s, status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_load_stats')
    call check(index(isocost_last_error(), '-2') > 0, 'the message names the time -2')
    ! Sizes checked here, before C: the message names both arrays.
    call isocost_model_discrete([1d0, 2d0, 3d0], m)
    call isocost_partition(m, 2, cuts, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_partition: cuts: expected 3 elements (the size of ranks + 1), got 4')
    call isocost_partition(m, 3, cuts, [1d0, 1d0], status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_partition: speeds: expected 3 elements (the size of ranks), got 2')
    call isocost_model_tabulated([0d0, 1d0], [0d0], m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_model_tabulated: t: expected 2 elements (the size of x), got 1')
    ! The next call clears a message found here, as C clears its own.
    call isocost_model_discrete([1d0], m, status)
    call check(status == ISOCOST_OK, 'one weight is a model')
    call check(isocost_last_error() == '', 'success clears it')
    call isocost_model_free(m)
    call check(isocost_status_name(ISOCOST_ERROR_NOT_CONVERGED) == 'ISOCOST_ERROR_NOT_CONVERGED', &
               'status name')
  end subroutine error_paths
#ifdef ISOCOST_HAVE_FIT
  ! Eight exact interval timings of Swartz's eq. (4) on [1e3, 1e6]: the fit
  ! recovers A and p, and equals the C fit bit for bit.
  subroutine exact_samples(lo, hi, seconds)
    real(c_double), intent(out) :: lo(8), hi(8), seconds(8)
    type(isocost_model) :: truth
    real(c_double) :: edges(0:8), t(0:8)
    integer :: k
    call isocost_model_sieve(3.9098d-7, 1.43d0, 1.08366d0, 1d3, 1d6, truth)
    call isocost_partition(truth, 8, edges)
    do k = 0, 8
      call isocost_model_cost(truth, edges(k), t(k))
    end do
    lo = edges(0:7)
    hi = edges(1:8)
    seconds = t(1:8) - t(0:7)
    call isocost_model_free(truth)
  end subroutine exact_samples

  subroutine fit_against_c()
    real(c_double) :: lo(8), hi(8), seconds(8), mine(0:4), theirs(0:4)
    type(isocost_model) :: m
    type(c_ptr) :: raw
    type(isocost_fit_summary) :: s, c_s
    type(isocost_fit_options) :: o
    call exact_samples(lo, hi, seconds)
    call isocost_fit(lo, hi, seconds, 'sieve', m, s)
    call check(s%converged == 1 .and. s%n_parameters == 4, 'sieve fit: converged, 4 parameters')
    call check(abs(s%parameters(1) / 3.9098d-7 - 1) < 1d-6, 'fitted A = 3.9098e-7')
    call check(abs(s%parameters(2) - 1.43d0) < 1d-6, 'fitted p = 1.43')
    call check(s%parameters(3) == 1.08366d0 .and. s%parameters(4) == 1, 'c and q held')
    call check(c_fit(lo, hi, seconds, 8_c_int64_t, 'sieve'//c_null_char, raw, c_s) == ISOCOST_OK, &
               'C fit')
    call check(s%rmse == c_s%rmse .and. all(s%parameters == c_s%parameters) .and. &
               s%iterations == c_s%iterations, 'summary equals the C one')
    call isocost_partition(m, 4, mine, integer=.true.)
    call check(c_partition(raw, 4_c_int, integer=1_c_int, cuts=theirs) == ISOCOST_OK, 'C cuts')
    call check(all(mine == theirs), 'cuts of the fitted model equal the C ones')
    call c_free(raw)
    ! Options: the defaults, then a domain of our own.
    call isocost_fit_options_init(o)
    call check(o%relative == 1 .and. o%max_iterations == 200 .and. o%loss == ISOCOST_FIT_LOSS_NONE, &
               'default options')
    o%lo = 100
    o%hi = 2d6
    call isocost_fit(lo, hi, seconds, 'sieve', m, options=o)
    call isocost_partition(m, 4, mine)
    call check(mine(0) == 100 .and. mine(4) == 2d6, 'options%lo and %hi set the domain')
    call isocost_model_free(m)
  end subroutine fit_against_c

  subroutine fit_errors()
    real(c_double) :: lo(8), hi(8), seconds(8)
    type(isocost_model) :: m
    type(isocost_fit_summary) :: s
    type(isocost_fit_options) :: o
    integer :: status
    call exact_samples(lo, hi, seconds)
    call isocost_fit(lo, hi, seconds, 'sieve2', m, s, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, "isocost_fit: model: expected sieve, sieve+c, " // &
                     "sieve+q, sieve+c+q, power, poly:N, exp, expr:FORMULA, pchip or makima, got 'sieve2'")
    call check(.not. c_associated(m%handle), 'no model after a failed fit')
    call isocost_fit(lo, hi(1:7), seconds, 'sieve', m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit: hi: expected 8 elements (the size of lo), got 7')
    call isocost_fit(lo, hi, seconds(1:3), 'sieve', m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit: seconds: expected 8 elements (the size of lo), got 3')
    call isocost_fit(lo(1:0), hi(1:0), seconds(1:0), 'power', m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, &
                     'isocost_fit: count: expected an integer >= 1, got 0')
    call isocost_fit(lo(1:2), hi(1:2), seconds(1:2), 'sieve+c+q', m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, '2 samples for 4 parameters')
    seconds(3) = -1
    call isocost_fit(lo, hi, seconds, 'power', m, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'isocost_fit: samples: sample 2 (')
    call check(index(isocost_last_error(), 'dt=-1): expected dt > 0') > 0, 'names dt = -1')
    call exact_samples(lo, hi, seconds)
    call isocost_fit_options_init(o)
    o%max_iterations = 0
    call isocost_fit(lo, hi, seconds, 'power', m, options=o, status=status)
    call check_error(status, ISOCOST_ERROR_INVALID_ARGUMENT, 'max_iterations')
    call check(index(isocost_last_error(), 'isocost_fit_ex') > 0, 'options go through _ex')
  end subroutine fit_errors

  ! spec "auto": select_model()'s choice, the same as C's; its description
  ! names it (non-empty, the C model's), and it predicts the exact timings.
  subroutine fit_auto()
    real(c_double) :: lo(8), hi(8), seconds(8), t_lo, t_hi
    type(isocost_model) :: m
    type(c_ptr) :: raw
    type(isocost_fit_summary) :: s, c_s
    character(len=:), allocatable :: text
    character(kind=c_char) :: buffer(400)
    integer(c_int64_t) :: length
    integer :: status, k
    call exact_samples(lo, hi, seconds)
    call isocost_fit(lo, hi, seconds, 'auto', m, s, status=status)
    call check(status == ISOCOST_OK, 'fit "auto": '//isocost_last_error())
    text = isocost_model_describe(m)
    call check(len(text) > 0, 'the chosen model has a description')
    call check(c_fit(lo, hi, seconds, 8_c_int64_t, 'auto'//c_null_char, raw, c_s) == ISOCOST_OK, &
               'C fit "auto"')
    call check(c_describe(raw, buffer, 400_c_int64_t, length) == ISOCOST_OK, 'C describe')
    call check(length == len(text), 'the C model''s description has the length of ours')
    call check(all([(buffer(k) == text(k:k), k = 1, min(len(text), 399))]), &
               'the C model''s description: '//text)
    call check(s%rmse == c_s%rmse .and. s%n_parameters == c_s%n_parameters .and. &
               all(s%parameters == c_s%parameters), '"auto" summary equals the C one')
    do k = 1, 8
      call isocost_model_cost(m, lo(k), t_lo)
      call isocost_model_cost(m, hi(k), t_hi)
      call check(abs(t_hi - t_lo - seconds(k)) <= 1d-3 * seconds(k), &
                 'the chosen model predicts the exact timings within 0.1 %')
    end do
    call c_free(raw)
    call isocost_model_free(m)
  end subroutine fit_auto
#endif
end program test_fortran
