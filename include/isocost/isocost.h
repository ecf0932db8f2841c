/* isocost/isocost.h — the C interface of isocost (target isocost::c).
 *
 * Valid C99 and C++; it includes only <stdint.h>. It covers the built-in
 * one-dimensional cost models, tabulated samples and discrete weights, 1-D
 * partitions with speeds, fitting a model to interval timings (when built with
 * the fitters), multi-dimensional partitions of gridded costs, and load
 * metrics. No MPI here: see isocost_mpi.h.
 * See docs/c_api.md.
 *
 * Conventions, for every function below:
 * - A status is returned as an int: ISOCOST_OK (0) or one of the
 *   ISOCOST_ERROR_* codes. No C++ exception ever crosses this interface.
 * - Every call that returns a status also sets this thread's message,
 *   isocost_last_error(): "" on success (success clears it), otherwise one
 *   line naming the function and the bad argument or value, e.g.
 *   "isocost_partition: ranks: expected an integer >= 1, got 0".
 * - Every pointer argument is checked: NULL where a pointer is required is
 *   ISOCOST_ERROR_INVALID_ARGUMENT with "… ARGUMENT is NULL".
 * - On failure nothing is written to output arguments, except that a model
 *   constructor (and isocost_fit) sets *out = NULL (when out itself is not
 *   NULL), and a call that returns ISOCOST_ERROR_NOT_CONVERGED writes its
 *   outputs (cuts, a fitted model) as its comment says.
 * - Models are immutable: one model may be used from several threads at once.
 *
 *   isocost_model* m = NULL;
 *   double w[] = {5, 5, 9, 6, 3, 8, 2, 2}, cuts[4];
 *   if (isocost_model_discrete(w, 8, &m) != ISOCOST_OK ||
 *       isocost_partition(m, 3, NULL, 1, cuts) != ISOCOST_OK)
 *     fprintf(stderr, "%s\n", isocost_last_error());
 *   isocost_model_free(m);  // cuts = {0, 2, 5, 8}
 */
#ifndef ISOCOST_ISOCOST_H
#define ISOCOST_ISOCOST_H

#include <stdint.h>

#ifdef __cplusplus
#define ISOCOST_NOEXCEPT noexcept
extern "C" {
#else
#define ISOCOST_NOEXCEPT
#endif

/* ------------------------------------------------------------------------
 * Status codes and errors */

/** What a call returned. */
enum isocost_status {
  /** Success. */
  ISOCOST_OK = 0,
  /** A NULL pointer, a count or rank number out of range, or a value the
   *  library rejects (isocost::Error: a bad domain, a negative or NaN weight,
   *  a model that decreases, x outside the domain, …). */
  ISOCOST_ERROR_INVALID_ARGUMENT = 1,
  /** Memory could not be allocated (std::bad_alloc). */
  ISOCOST_ERROR_NO_MEMORY = 2,
  /** A computation that produced no answer (isocost_fit(): the fit yielded
   *  no model), or any other failure inside the library (an unexpected C++
   *  exception, whose what() is the message). */
  ISOCOST_ERROR_FAILED = 3,
  /** isocost_partition(): the cuts were written, but some cut's root find did
   *  not converge (iteration limit, or tolerance not confirmed); the message
   *  is the partition's brief report. isocost_fit(): Ceres ran out of
   *  iterations; the last iterate's model and the summary were written. */
  ISOCOST_ERROR_NOT_CONVERGED = 4
};

/** The message of the last call on this thread that returned a status: ""
 *  after a success and before any call. Never NULL. The pointer stays valid
 *  until the next isocost call on this thread; copy the text to keep it.
 *  Each thread has its own message. Does not change the message itself. */
const char* isocost_last_error(void) ISOCOST_NOEXCEPT;

/** A short constant name for a status: "ISOCOST_OK", …, "unknown status". */
const char* isocost_status_name(int status) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * One-dimensional cost models t(x)
 *
 * A model is the cumulative cost t(x) of all work in [lo, x) over a domain
 * [lo, hi]: t(lo) = 0, nondecreasing, t(hi) = TT > 0. Cost is in whatever
 * unit the parameters give (seconds, for timings); only the shape matters to
 * a partition. Each constructor allocates a model owned by the caller, who
 * releases it with isocost_model_free(); on failure *out is set to NULL. */

/** An opaque, immutable cost model (an isocost::CostModel). */
typedef struct isocost_model isocost_model;

/** The sieve model of Swartz eq. (4): t(x) = T(x) − T(lo) with
 *  T(x) = A·x^p / (ln x − c), i.e. isocost::sieve_model() with
 *  SieveParams{.A = A, .p = p, .c = c, .q = 1}. Requires A > 0, p > 0, finite
 *  lo < hi and lo >= exp(c + 1/p) (where the model starts to increase).
 *  Swartz's Cray T3D fit: A = 3.9098e-7 s, p = 1.43, c = 1.08366, x = the
 *  integer being tested for primality. */
int isocost_model_sieve(double A, double p, double c, double lo, double hi,
                        isocost_model** out) ISOCOST_NOEXCEPT;

/** Power law t(x) = A·x^p + B on [lo, hi] (B cancels): isocost::power_model().
 *  Requires finite lo < hi, lo >= 0, A·p > 0, and lo > 0 when p < 0. */
int isocost_model_power(double A, double p, double B, double lo, double hi,
                        isocost_model** out) ISOCOST_NOEXCEPT;

/** Polynomial t(x) = c[0] + c[1]·x + … + c[count−1]·x^(count−1) on [lo, hi]:
 *  isocost::polynomial_model() with x0 = 0, scale = 1. count >= 2
 *  coefficients, all finite, copied; t must be nondecreasing on [lo, hi]
 *  (checked exactly; a decrease is an error naming the x). */
int isocost_model_polynomial(const double* coefficients, int64_t count, double lo, double hi,
                             isocost_model** out) ISOCOST_NOEXCEPT;

/** Interpolation of isocost_model_tabulated(). */
enum isocost_interpolation {
  /** Monotone piecewise cubic Hermite (Boost.Math pchip), >= 4 samples; the
   *  library's default. */
  ISOCOST_INTERPOLATION_PCHIP = 0,
  /** Modified Akima (Boost.Math makima), >= 4 samples; may overshoot, which
   *  is an error if t would decrease. */
  ISOCOST_INTERPOLATION_MAKIMA = 1,
  /** Piecewise linear, >= 2 samples. */
  ISOCOST_INTERPOLATION_LINEAR = 2
};

/** Interpolation through cumulative samples (x[k], t[k]), k < count:
 *  isocost::tabulated_model(). x strictly increasing, t nondecreasing, all
 *  finite, t[count−1] > t[0]; the domain is [x[0], x[count−1]] and
 *  cost(x) = I(x) − t[0]. `interpolation` is an isocost_interpolation. Both
 *  arrays are copied. */
int isocost_model_tabulated(const double* x, const double* t, int64_t count, int interpolation,
                            isocost_model** out) ISOCOST_NOEXCEPT;

/** Per-cell weights w[0] … w[n−1]: isocost::discrete_model(weights, 0). Each
 *  finite and >= 0, not all zero, n >= 1; copied. Cell k covers [k, k+1), the
 *  domain is [0, n], t(k) = w[0] + … + w[k−1], and every partition of it has
 *  integer cuts (the cell boundary whose prefix sum is nearest each target,
 *  ties to the smaller). */
int isocost_model_discrete(const double* weights, int64_t n, isocost_model** out) ISOCOST_NOEXCEPT;

/** Releases a model; NULL is a no-op. */
void isocost_model_free(isocost_model* model) ISOCOST_NOEXCEPT;

/** The cumulative cost t(x) for lo <= x <= hi (x outside is an error). */
int isocost_model_cost(const isocost_model* model, double x, double* cost) ISOCOST_NOEXCEPT;

/** The density t'(x) >= 0 for lo <= x <= hi (x outside is an error). */
int isocost_model_density(const isocost_model* model, double x, double* density) ISOCOST_NOEXCEPT;

/** The domain [lo, hi] of a model; both pointers required. */
int isocost_model_domain(const isocost_model* model, double* lo, double* hi) ISOCOST_NOEXCEPT;

/** The total cost TT = t(hi) > 0. */
int isocost_model_total(const isocost_model* model, double* total) ISOCOST_NOEXCEPT;

/** Writes the model's one-line description (isocost::CostModel::describe(),
 *  e.g. "sieve t(x) = A*x^p/(ln x - c), A=… p=… c=… on [lo, hi]"; for a model
 *  fitted with spec "auto", the form chosen) into text as a NUL-terminated
 *  string of at most size − 1 characters; *length (may be NULL) receives the
 *  full length, so size = 0 with text = NULL asks for it. */
int isocost_model_describe(const isocost_model* model, char* text, int64_t size,
                           int64_t* length) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * Partitions */

/** Cuts a model into `ranks` >= 1 contiguous parts: isocost::partition() with
 *  default PartitionOptions (Newton's method safeguarded by a bracket, warm
 *  start) except `integer`. Rank i owns [cuts[i], cuts[i+1]) with
 *  t(cuts[i]) = TT·S_i/S, S_i = speeds[0] + … + speeds[i−1], S = S_ranks.
 *  - speeds: `ranks` relative speeds (work per second), each finite and > 0,
 *    or NULL for uniform speeds (all 1).
 *  - integer: nonzero for integer cuts (lo and hi must be integers; each cut
 *    is the integer b minimising |t(b) − target|, ties to the smaller b).
 *    Discrete models are always integer, whatever this says.
 *  - cuts: room for ranks + 1 doubles, written with cuts[0] = lo,
 *    cuts[ranks] = hi, nondecreasing.
 *  Not collective: no MPI. Returns ISOCOST_ERROR_NOT_CONVERGED, with the cuts
 *  written, when some cut did not converge. */
int isocost_partition(const isocost_model* model, int ranks, const double* speeds, int integer,
                      double* cuts) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * Multi-dimensional partitions (isocost::decompose, Swartz §5)
 *
 * A density is the cost of every cell of a 1-, 2- or 3-D grid; a
 * decomposition cuts it into one box per rank by recursive sectioning: level l
 * cuts each piece of the previous level into counts[l] slabs along axis
 * axes[l], each level an exact 1-D partition of the piece's marginal on grid
 * lines (minimising the heaviest slab per speed). One level is rows or slabs,
 * {px, py} along {0, 1} a jagged 2-D grid (px columns in x, each cut in y on
 * its own), three levels ParaDiS's x → y → z sectioning. */

/** An opaque, immutable density of per-cell costs (an isocost::Density); one
 *  density may be decomposed from several threads at once. */
typedef struct isocost_density isocost_density;

/** Per-cell costs on a grid of cells[0] × … × cells[dims−1] cells, x fastest:
 *  the cost of cell (i, j, k) is weights[i + cells[0]·(j + cells[1]·k)].
 *  isocost::grid_density(). dims is 1, 2 or 3; each cells[a] >= 1; weights
 *  finite and >= 0, not all zero, copied. The cells tile the box [lo, hi]
 *  (dims values each), or, when lo and hi are both NULL, [0, cells[a]] along
 *  each axis (cell units: boxes are then cell indices). On failure *out = NULL. */
int isocost_density_grid(const double* weights, int dims, const int64_t* cells, const double* lo,
                         const double* hi, isocost_density** out) ISOCOST_NOEXCEPT;

/** Releases a density; NULL is a no-op. */
void isocost_density_free(isocost_density* density) ISOCOST_NOEXCEPT;

/** The number of dimensions (1..3) and the total cost of a density. Either
 *  output may be NULL. */
int isocost_density_info(const isocost_density* density, int* dims, double* total) ISOCOST_NOEXCEPT;

/** The density's one-line description (isocost::Density::describe(); for a
 *  fitted one, its form and coefficients), as isocost_model_describe(). */
int isocost_density_describe(const isocost_density* density, char* text, int64_t size,
                             int64_t* length) ISOCOST_NOEXCEPT;

/** One rank's box (isocost::Part). Entries past the density's dims are 0. */
struct isocost_part {
  double lo[3], hi[3];            /**< the box [lo, hi] */
  int64_t cell_lo[3], cell_hi[3]; /**< its cells [cell_lo, cell_hi) per axis */
  double cost;                    /**< the cost of its cells */
  double time;                    /**< cost / speed */
  double volume;                  /**< the box's volume (area in 2-D) */
  double surface;                 /**< area of its faces shared with other parts */
};

/** What a decomposition predicts (isocost::Decomposition), and its process
 *  grid. Write `struct isocost_decomposition`. */
struct isocost_decomposition {
  int ranks;           /**< number of parts */
  int levels;          /**< levels of the process grid, 0..dims (0: one rank,
                            the whole box) */
  int counts[3];       /**< parts per level; entries past levels are 0 */
  int axes[3];         /**< axis cut at each level; entries past levels are −1 */
  double total_cost;   /**< the density's total = Σ part costs */
  double max_time;     /**< the heaviest part's cost / speed */
  double predicted_le; /**< L_E of the parts' times, percent (Swartz eq. 3) */
  double imbalance;    /**< max_time / (total_cost / Σ speeds) − 1 >= 0 */
  double cut_surface;  /**< total area of the internal cuts */
};

/** Cuts a density by the process grid counts[0..levels−1] along
 *  axes[0..levels−1] (1 <= levels <= dims, distinct axes < dims, counts >= 1):
 *  isocost::decompose() with default options. ranks = counts[0]·…·counts[levels−1].
 *  Ranks are numbered by level index, the last level fastest.
 *  - speeds: `ranks` relative speeds, each finite and > 0, or NULL (uniform).
 *  - parts: room for `ranks` structs, written in rank order.
 *  - info: may be NULL.
 *  A grid with fewer cells along an axis than that axis needs parts is an
 *  error (every part gets at least one cell along each axis it is cut on). */
int isocost_decompose(const isocost_density* density, int levels, const int* counts,
                      const int* axes, const double* speeds, struct isocost_part* parts,
                      struct isocost_decomposition* info) ISOCOST_NOEXCEPT;

/** As isocost_decompose(), for `ranks` >= 1 with the process grid chosen by
 *  isocost::choose_process_grid(): the balanced one with the smallest cut
 *  surface (else the least heavy heaviest part); info->levels, counts and
 *  axes say which. */
int isocost_decompose_auto(const isocost_density* density, int ranks, const double* speeds,
                           struct isocost_part* parts,
                           struct isocost_decomposition* info) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * Load statistics */

/** Statistics of one time per rank (isocost::LoadStats, Swartz eqs 2–3 and
 *  Watts). Times in any unit; t_min, t_max and t_avg are in that unit.
 *  A plain struct tag, like POSIX's struct stat: the function
 *  isocost_load_stats() shares its name, so write `struct isocost_load_stats`. */
struct isocost_load_stats {
  double t_min;      /**< T_min = min_i T_i */
  double t_max;      /**< T_max = max_i T_i */
  double t_avg;      /**< T_avg = (1/n)·Σ T_i */
  double l_i;        /**< L_I = (T_max − T_avg)/T_avg·100, percent (Swartz eq. 2);
                          0 when perfectly balanced */
  double l_e;        /**< L_E = 100 − L_I, percent (Swartz eq. 3); may be < 0 */
  double efficiency; /**< E = T_avg/T_max, a fraction in (0, 1] (Watts' mineff) */
};

/** Load statistics of n >= 1 per-rank times, each finite and >= 0, not all
 *  zero: isocost::load_stats(). */
int isocost_load_stats(const double* times, int n, struct isocost_load_stats* out) ISOCOST_NOEXCEPT;

/** The imbalance max/mean − 1 of n >= 1 loads (per-part costs or times),
 *  each finite and >= 0, not all zero: isocost::imbalance() (λ/100, Pearce
 *  eq. 1). 0 when perfectly balanced. */
int isocost_imbalance(const double* loads, int n, double* out) ISOCOST_NOEXCEPT;

/** Statistics of vector loads (Watts §4.2): times[rank·phases + phase] is the
 *  time of `rank` (< ranks) in `phase` (< phases); isocost::phase_stats().
 *  Writes per_phase[0..phases−1] (each phase's own statistics; may be NULL),
 *  *total (of each rank's sum over phases), and, when not NULL,
 *  *synchronised_time = Σ_phase max_rank time and *synchronised_efficiency =
 *  the mean total / synchronised_time (what is left when phases synchronise).
 *  A phase may be all zero (its l_i, l_e and efficiency are then those of
 *  isocost::LoadStats for zero loads); the grand total may not. */
int isocost_phase_stats(const double* times, int ranks, int phases,
                        struct isocost_load_stats* per_phase, struct isocost_load_stats* total,
                        double* synchronised_time,
                        double* synchronised_efficiency) ISOCOST_NOEXCEPT;

/* ------------------------------------------------------------------------
 * Fitting a model to interval timings (isocost::fit, Ceres Solver)
 *
 * Defined in the isocost::c library only when isocost was built with
 * ISOCOST_BUILD_FITTERS=ON (the default); the installed `c` component then
 * needs the `fitters` one. */

/** Room for fitted parameters in struct isocost_fit_summary. */
#define ISOCOST_MAX_FIT_PARAMETERS 8

/** What a fit reports (isocost::FitSummary). Write `struct isocost_fit_summary`. */
struct isocost_fit_summary {
  double rmse;          /**< root mean square residual, relative to each sample's
                             seconds unless options.relative = 0 */
  double max_rel_error; /**< max_k |t(hi_k) − t(lo_k) − seconds_k| / seconds_k */
  double r_squared;     /**< 1 − SS_res/SS_tot on the seconds */
  int iterations;       /**< Ceres iterations (0 for pchip/makima) */
  int converged;        /**< 1 when the fit converged, else 0 */
  int n_parameters;     /**< <= ISOCOST_MAX_FIT_PARAMETERS; 0 for pchip/makima */
  /** The parameter values in isocost::fit_parameter_names() order: sieve A, p,
   *  c, q (c and q held at 1.08366 and 1 unless "sieve+c"/"sieve+q"); power
   *  A, p; poly:N c1 … cN; exp A, b; a formula's identifiers other than x.
   *  Entries past n_parameters are 0. */
  double parameters[ISOCOST_MAX_FIT_PARAMETERS];
};

/** Robust loss of struct isocost_fit_options (isocost::FitLoss). */
enum isocost_fit_loss {
  ISOCOST_FIT_LOSS_NONE = 0,
  ISOCOST_FIT_LOSS_HUBER = 1,
  ISOCOST_FIT_LOSS_CAUCHY = 2
};

/** Settings of isocost_fit_ex() (isocost::FitOptions). Fill it with
 *  isocost_fit_options_init() first, then change what you need. */
struct isocost_fit_options {
  int relative;              /**< nonzero (default): residuals relative to each
                                  sample's seconds; 0: absolute, in units of
                                  the mean seconds */
  int loss;                  /**< an isocost_fit_loss (default NONE) */
  double loss_scale;         /**< > 0, in residual units (default 0.05) */
  int max_iterations;        /**< >= 1 (default 200) */
  double function_tolerance; /**< > 0 (default 1e-12) */
  /** The domain of the returned model; NaN (default) for the samples' span.
   *  The model must increase on it. */
  double lo, hi;
};

/** Sets every field of *options to its default (those of isocost::FitOptions). */
int isocost_fit_options_init(struct isocost_fit_options* options) ISOCOST_NOEXCEPT;

/** Fits a model to `count` >= 1 interval samples: the work in [lo[k], hi[k])
 *  took seconds[k] (finite, lo[k] < hi[k], seconds[k] > 0; the samples of one
 *  run tile the domain, those of several runs may overlap). isocost::fit() on
 *  Samples of {lo[k], hi[k], seconds[k]} with default FitOptions.
 *  - spec: isocost::parse_fit_spec() text: "sieve" (Swartz eq. (4): fits A
 *    and p), "sieve+c", "sieve+q", "sieve+c+q", "power", "poly:N"
 *    (1 <= N <= 10), "exp", "expr:FORMULA" (muParser, e.g. "expr:A*x^p"),
 *    "pchip" or "makima" (interpolation of one tiling run, no parameters),
 *    or "auto": isocost::select_model()'s choice among sieve, sieve+c,
 *    sieve+q, power, poly:2, poly:3, exp, pchip and makima by
 *    cross-validation (isocost_model_describe() names the one chosen; the
 *    summary holds its parameters).
 *    A spec with more than ISOCOST_MAX_FIT_PARAMETERS parameters is an error
 *    when summary is not NULL.
 *  - out: receives the fitted model, owned by the caller (isocost_model_free).
 *  - summary: may be NULL.
 *  Outcomes:
 *  - ISOCOST_OK: converged; *out and *summary written.
 *  - ISOCOST_ERROR_NOT_CONVERGED: Ceres ran out of iterations; *out is the
 *    model of the last iterate and *summary is written (converged = 0), the
 *    message is the summary's one-line report. Free the model.
 *  - ISOCOST_ERROR_FAILED: the fit produced no model (Ceres failed, or the
 *    fitted parameters give no increasing model on the domain); *out = NULL,
 *    *summary is written (converged = 0), the message says why.
 *  - ISOCOST_ERROR_INVALID_ARGUMENT: a NULL pointer, count < 1, a bad sample
 *    (named by index), a bad spec, too few samples for the parameters;
 *    *out = NULL and *summary untouched. */
int isocost_fit(const double* lo, const double* hi, const double* seconds, int64_t count,
                const char* spec, isocost_model** out,
                struct isocost_fit_summary* summary) ISOCOST_NOEXCEPT;

/** isocost_fit() with options (NULL: the defaults); a bad option is
 *  ISOCOST_ERROR_INVALID_ARGUMENT naming it. */
int isocost_fit_ex(const double* lo, const double* hi, const double* seconds, int64_t count,
                   const char* spec, const struct isocost_fit_options* options, isocost_model** out,
                   struct isocost_fit_summary* summary) ISOCOST_NOEXCEPT;

/** Fits a cost density rho(x, y[, z]) to `count` >= 1 box timings in `dims`
 *  (1..3) dimensions: the work inside box k took costs[k] (finite, > 0).
 *  Box k spans lo[k·dims + a] < hi[k·dims + a] along axis a. The density's
 *  domain is the samples' bounding box. isocost::fit_density() with default
 *  settings (relative residuals).
 *  - form: "separable:N" (a product of one Bernstein polynomial of degree
 *    N <= 10 per axis, >= 0 by construction; "separable" is degree 3),
 *    "poly:N" (total degree N <= 6, checked >= 0), or "auto":
 *    isocost::select_density(), the lowest AICc among separable:0…4 and
 *    poly:0…4 (isocost_density_describe() names the one chosen).
 *  - out: the fitted density, owned by the caller (isocost_density_free),
 *    for isocost_decompose() and isocost_decompose_auto().
 *  - summary: may be NULL; its rmse, max_rel_error, r_squared, iterations
 *    and converged are written; n_parameters is 0 (a 3-D density has up to
 *    33: isocost_density_describe() gives them).
 *  Outcomes as isocost_fit(): ISOCOST_OK; ISOCOST_ERROR_NOT_CONVERGED (*out
 *  is the last iterate's density: free it); ISOCOST_ERROR_INVALID_ARGUMENT
 *  (a NULL pointer, a bad box or cost named by index, a bad form, samples
 *  that cannot determine the form: *out = NULL). */
int isocost_fit_density(const double* lo, const double* hi, const double* costs, int64_t count,
                        int dims, const char* form, isocost_density** out,
                        struct isocost_fit_summary* summary) ISOCOST_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif /* ISOCOST_ISOCOST_H */
