// The joint fit of speeds and a cost density on a basis (speed_fit.hpp): a
// linear least-squares problem in (density, speeds), reweighted to the
// loads' relative misfit, then the speeds' spreads. A load touches the few
// basis functions over its range and one speed, so the integrals are kept
// as sparse rows and the normal equations are solved by eliminating the
// speeds (their block is diagonal): O(loads · touched² + knots³) a solve,
// whatever the number of ranks.
#include "core/pipeline/speed_fit.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace isocost::detail {

namespace {

using Observation = SpeedObservation;

// ∫ of the unit hat max(0, 1 − |u|) from −∞ to y.
double hat_integral(double y) {
  if (y <= -1) return 0;
  if (y <= 0) return (y + 1) * (y + 1) / 2;
  if (y <= 1) return 1 - (1 - y) * (1 - y) / 2;
  return 1;
}

// The basis' integrals over each load's range, its nonzeros only.
struct Rows {
  std::vector<std::size_t> start;  // row i: entries [start[i], start[i + 1])
  std::vector<std::size_t> col;
  std::vector<double> val;
};

Rows sparse_rows(const std::vector<double>& dense, std::size_t M, std::size_t K) {
  Rows a;
  a.start.push_back(0);
  for (std::size_t i = 0; i < M; ++i) {
    for (std::size_t k = 0; k < K; ++k)
      if (const double v = dense[i * K + k]; v != 0) a.col.push_back(k), a.val.push_back(v);
    a.start.push_back(a.col.size());
  }
  return a;
}

// Cholesky of the symmetric positive definite K×K `S` (row-major) in
// place, its lower factor; false when a pivot is not positive. Row i's
// entries before its first nonzero stay zero in the factor (its envelope):
// a density's knots couple only with their neighbours', so along one axis
// the work is O(K·band²), not O(K³).
struct Cholesky {
  std::vector<double> L;
  std::vector<std::size_t> first;  // row i's first nonzero column
  std::size_t K = 0;

  bool factor(std::vector<double> S, std::size_t n) {
    K = n;
    L = std::move(S);
    first.assign(K, 0);
    for (std::size_t i = 0; i < K; ++i) {
      first[i] = i;
      for (std::size_t j = 0; j < i; ++j)
        if (L[i * K + j] != 0) {
          first[i] = j;
          break;
        }
    }
    for (std::size_t i = 0; i < K; ++i)
      for (std::size_t j = first[i]; j <= i; ++j) {
        double v = L[i * K + j];
        for (std::size_t k = std::max(first[i], first[j]); k < j; ++k)
          v -= L[i * K + k] * L[j * K + k];
        if (j < i) {
          L[i * K + j] = v / L[j * K + j];
        } else {
          if (!(v > 0)) return false;
          L[i * K + i] = std::sqrt(v);
        }
      }
    return true;
  }
  // Solves L·Lᵀ·x = b, b overwritten.
  void solve(std::vector<double>& b) const {
    for (std::size_t i = 0; i < K; ++i) {
      for (std::size_t k = first[i]; k < i; ++k) b[i] -= L[i * K + k] * b[k];
      b[i] /= L[i * K + i];
    }
    for (std::size_t i = K; i-- > 0;) {
      b[i] /= L[i * K + i];
      for (std::size_t k = first[i]; k < i; ++k) b[k] -= L[i * K + k] * b[i];
    }
  }
};

// The problem and its state: density c (K) and inverse speeds u (P).
struct Fit {
  const std::vector<Observation>& obs;
  const Rows& A;
  const std::vector<int>& seen;
  std::size_t K, P;
  std::vector<double> c, u;

  // Σ_k A_ik c_k.
  double cost(std::size_t i, const std::vector<double>& cc) const {
    double s = 0;
    for (std::size_t e = A.start[i]; e < A.start[i + 1]; ++e) s += A.val[e] * cc[A.col[e]];
    return s;
  }
  // Normal equations of rows each touching the knots of one load and its
  // rank's unknown: Ncc (K×K), Nuc (P×K, a rank's row together) and D (the
  // diagonal block of the ranks).
  struct Normal {
    std::vector<double> Ncc, Nuc, D;
  };
  Normal empty_normal() const {
    return {std::vector<double>(K * K), std::vector<double>(K * P), std::vector<double>(P)};
  }
  // Adds load i's row: `scale`·A_ik on the knots, `rank` on its rank's unknown.
  void add_row(Normal& n, std::size_t i, double scale, double rank,
               std::vector<double>& row) const {
    const auto q = static_cast<std::size_t>(obs[i].rank);
    row.clear();
    for (std::size_t e = A.start[i]; e < A.start[i + 1]; ++e) row.push_back(A.val[e] * scale);
    for (std::size_t a = 0; a < row.size(); ++a) {
      const std::size_t ka = A.col[A.start[i] + a];
      for (std::size_t b = 0; b < row.size(); ++b)
        n.Ncc[ka * K + A.col[A.start[i] + b]] += row[a] * row[b];
      n.Nuc[q * K + ka] += row[a] * rank;
    }
    n.D[q] += rank * rank;
  }
  // The Gauss-Newton normal equations of the log residuals
  // r_i = log(u_r·cost_i) − log t_i in (c, log u): ∂r_i/∂c_k = A_ik/cost_i
  // (c itself, so that a knot driven to 0 keeps its column),
  // ∂r_i/∂log u_r = 1.
  Normal normal() const {
    Normal n = empty_normal();
    std::vector<double> row;
    for (std::size_t i = 0; i < obs.size(); ++i) add_row(n, i, 1 / cost(i, c), 1.0, row);
    return n;
  }

  // The Schur complement S = Ncc − Nucᵀ·D⁻¹·Nuc over the ranks measured.
  std::vector<double> schur(const Normal& n) const {
    std::vector<double> S = n.Ncc;
    std::vector<std::size_t> nz;
    for (std::size_t q = 0; q < P; ++q) {
      if (!(n.D[q] > 0)) continue;
      nz.clear();
      for (std::size_t k = 0; k < K; ++k)
        if (n.Nuc[q * K + k] != 0) nz.push_back(k);
      for (const std::size_t a : nz)
        for (const std::size_t b : nz) S[a * K + b] -= n.Nuc[q * K + a] * n.Nuc[q * K + b] / n.D[q];
    }
    return S;
  }
};

// The fit itself. With v_r = 1/u_r (the speed), load_i·v_r = A_i·c is
// linear in (c, v): minimising Σ_i w_i²·(A_i·c/t_i − v_r)² with Σ_r v_r
// fixed is one linear solve, the speeds eliminated (their block is
// diagonal). With w_i = 1/v_r each term is the load's relative misfit
// (A_i·c/v_r − t_i)/t_i; the weights come from the last solve, so a few
// solves (iteratively reweighted) reach the fit of the relative misfits.
// Returns the solves made, negative when one failed (singular equations, or
// a speed <= 0: no fit of this form); `converged` when the speeds changed by
// at most options.tolerance in the last.
int solve_linear(Fit& f, const SpeedLearningOptions& options, bool& converged) {
  const std::size_t K = f.K, P = f.P;
  std::vector<double> v(P, 1.0), row;
  converged = false;
  int it = 0;
  while (it < options.max_iterations && !converged) {
    ++it;
    // Row i: (A_i/t_i, −1 on its rank's speed), weighed by 1/v_r.
    Fit::Normal n = f.empty_normal();
    for (std::size_t i = 0; i < f.obs.size(); ++i) {
      const double w = 1 / v[static_cast<std::size_t>(f.obs[i].rank)];
      f.add_row(n, i, w / f.obs[i].load, -w, row);
    }
    // [Ncc Nucᵀ; Nuc D]·(c, v) = (0, 1): S·c = −Nucᵀ·D⁻¹·1, v = D⁻¹·(1 − Nuc·c).
    // With exact loads S is singular along the answer; a nudge of its trace
    // makes this one step of inverse iteration onto it.
    std::vector<double> S = f.schur(n), c(K);
    double trace = 0;
    for (std::size_t k = 0; k < K; ++k) trace += S[k * K + k];
    for (std::size_t k = 0; k < K; ++k) S[k * K + k] += 1e-10 * trace / static_cast<double>(K);
    for (std::size_t q = 0; q < P; ++q)
      if (n.D[q] > 0)
        for (std::size_t k = 0; k < K; ++k) c[k] -= n.Nuc[q * K + k] / n.D[q];
    Cholesky chol;
    if (!chol.factor(std::move(S), K)) return -it;
    chol.solve(c);
    std::vector<double> next(P, 1.0);
    double mean = 0;
    for (std::size_t q = 0; q < P; ++q) {
      if (!(n.D[q] > 0) || f.seen[q] == 0) continue;
      double s = 1;
      for (std::size_t k = 0; k < K; ++k) s -= n.Nuc[q * K + k] * c[k];
      next[q] = s / n.D[q];
      mean += next[q];
    }
    // Mean speed 1 over the measured ranks; the density in the same units.
    std::size_t measured = 0;
    for (std::size_t q = 0; q < P; ++q) measured += f.seen[q] > 0 && n.D[q] > 0 ? 1 : 0;
    mean /= static_cast<double>(measured);
    if (!(mean > 0)) return -it;
    double change = 0;
    for (std::size_t q = 0; q < P; ++q) {
      if (!(n.D[q] > 0) || f.seen[q] == 0) continue;
      next[q] /= mean;
      if (!(next[q] > 0)) return -it;
      change = std::max(change, std::abs(next[q] / v[q] - 1));
    }
    for (double& x : c) x /= mean;
    v = std::move(next);
    f.c = c;
    for (std::size_t q = 0; q < P; ++q) f.u[q] = 1 / v[q];
    converged = change <= options.tolerance;
  }
  return it;
}

// var(log s_r) times σ² from the Gauss-Newton normal equations in (c, log u)
// (c itself, so that a knot driven to 0 keeps its column). The speeds'
// common scale is the density's (c·α, u/α predict the same): with the scale
// pinned through the density, var(log u_q − mean log u) over the ranks
// measured is what a gauge Σ log u = 0 would give. NaN where the equations
// leave a speed undetermined.
std::vector<double> spreads(const Fit& f, double sigma2) {
  const std::size_t K = f.K, P = f.P;
  std::vector<double> out(P, std::numeric_limits<double>::quiet_NaN());
  Fit::Normal n = f.normal();
  // Unit diagonal on the density's side (Jacobi scaling: the columns differ
  // by orders of magnitude). The scale is pinned at the knot where c (the
  // direction c·α, u/α) is largest after the scaling: one diagonal entry,
  // which keeps the matrix banded.
  std::vector<double> scale(K);
  std::size_t pin = 0;
  for (std::size_t k = 0; k < K; ++k) {
    scale[k] = n.Ncc[k * K + k] > 0 ? 1 / std::sqrt(n.Ncc[k * K + k]) : 1.0;
    if (std::abs(f.c[k] / scale[k]) > std::abs(f.c[pin] / scale[pin])) pin = k;
  }
  if (!(std::abs(f.c[pin]) > 0)) return out;
  for (std::size_t a = 0; a < K; ++a) {
    for (std::size_t b = 0; b < K; ++b) n.Ncc[a * K + b] *= scale[a] * scale[b];
    for (std::size_t q = 0; q < P; ++q) n.Nuc[q * K + a] *= scale[a];
  }
  n.Ncc[pin * K + pin] += 1;
  Cholesky chol;
  if (!chol.factor(f.schur(n), K)) return out;
  // Cov_uu = D⁻¹ + G·S⁻¹·Gᵀ with G_q = Nuc_q / D_q. With m the mean over
  // the measured ranks: var(u_q − m) = Cov_qq − 2·mean_r Cov_qr + mean Cov.
  std::vector<std::size_t> measured;
  for (std::size_t q = 0; q < P; ++q)
    if (n.D[q] > 0 && f.seen[q] > 0) measured.push_back(q);
  const auto R = static_cast<double>(measured.size());
  std::vector<double> g_sum(K), h(K);  // Σ_r G_r, and S⁻¹·Σ_r G_r
  for (const std::size_t q : measured)
    for (std::size_t k = 0; k < K; ++k) g_sum[k] += n.Nuc[q * K + k] / n.D[q];
  h = g_sum;
  chol.solve(h);
  double d_sum = 0, all = 0;
  for (const std::size_t q : measured) d_sum += 1 / n.D[q];
  for (std::size_t k = 0; k < K; ++k) all += g_sum[k] * h[k];
  all = (d_sum + all) / (R * R);
  std::vector<double> g(K), y(K);
  for (const std::size_t q : measured) {
    for (std::size_t k = 0; k < K; ++k) g[k] = n.Nuc[q * K + k] / n.D[q];
    y = g;
    chol.solve(y);
    double own = 1 / n.D[q], row = 1 / n.D[q];
    for (std::size_t k = 0; k < K; ++k) own += g[k] * y[k], row += g[k] * h[k];
    const double v = own - 2 * row / R + all;
    out[q] = std::sqrt(std::max(0.0, v * sigma2));
  }
  return out;
}

// Where the linear fit leaves the positive quadrant (a density the knots
// cannot follow, rounds that cut nearly alike), the nearest positive fit:
// alternating multiplicative updates, each the exact minimiser of the
// Kullback-Leibler misfit in its half, from a flat density and equal
// speeds (positive throughout, the misfit never rising). Slower to settle
// than the solve, but it keeps the speeds > 0.
void alternate(Fit& f, int iterations) {
  const std::size_t K = f.K, P = f.P, M = f.obs.size();
  double total = 0, covered = 0;
  for (const Observation& o : f.obs) total += o.load;
  for (const double a : f.A.val) covered += a;
  std::fill(f.c.begin(), f.c.end(), total / covered);
  std::fill(f.u.begin(), f.u.end(), 1.0);
  std::vector<double> num(K), den(K), t_sum(P), c_sum(P);
  for (int it = 0; it < iterations; ++it) {
    // The density's half: c_k ← c_k · Σ_i u A_ik t_i/pred_i / Σ_i u A_ik.
    std::fill(num.begin(), num.end(), 0.0);
    std::fill(den.begin(), den.end(), 0.0);
    for (std::size_t i = 0; i < M; ++i) {
      const double ui = f.u[static_cast<std::size_t>(f.obs[i].rank)];
      const double pred = ui * f.cost(i, f.c);
      const double ratio = pred > 0 ? f.obs[i].load / pred : 0;
      for (std::size_t e = f.A.start[i]; e < f.A.start[i + 1]; ++e) {
        num[f.A.col[e]] += ui * f.A.val[e] * ratio;
        den[f.A.col[e]] += ui * f.A.val[e];
      }
    }
    for (std::size_t k = 0; k < K; ++k) f.c[k] = den[k] > 0 ? f.c[k] * num[k] / den[k] : f.c[k];
    // The speeds' half, exact: u_r = Σ t / Σ cost over rank r's loads.
    std::fill(t_sum.begin(), t_sum.end(), 0.0);
    std::fill(c_sum.begin(), c_sum.end(), 0.0);
    for (std::size_t i = 0; i < M; ++i) {
      t_sum[static_cast<std::size_t>(f.obs[i].rank)] += f.obs[i].load;
      c_sum[static_cast<std::size_t>(f.obs[i].rank)] += f.cost(i, f.c);
    }
    double mean = 0, measured = 0;
    for (std::size_t q = 0; q < P; ++q)
      if (f.seen[q] > 0 && c_sum[q] > 0)
        f.u[q] = t_sum[q] / c_sum[q], mean += 1 / f.u[q], ++measured;
    // Mean speed 1 over the measured ranks; the density in the same units.
    mean /= measured;
    for (std::size_t q = 0; q < P; ++q)
      if (f.seen[q] > 0) f.u[q] *= mean;
    for (double& v : f.c) v /= mean;
  }
}

}  // namespace

void hat_integrals(double lo, double hi, int knots, double a, double b, std::span<double> out) {
  if (knots == 1) {
    out[0] = b - a;
    return;
  }
  // Only the hats within a knot of [a, b] reach into it.
  const double h = (hi - lo) / static_cast<double>(knots - 1);
  std::fill(out.begin(), out.begin() + knots, 0.0);
  const auto from = static_cast<int>(std::clamp(std::floor((a - lo) / h), 0.0, knots - 1.0));
  const auto to = static_cast<int>(std::clamp(std::ceil((b - lo) / h), 0.0, knots - 1.0));
  for (int k = from; k <= to; ++k) {
    const double centre = lo + h * static_cast<double>(k);
    out[static_cast<std::size_t>(k)] =
        h * (hat_integral((b - centre) / h) - hat_integral((a - centre) / h));
  }
}

void hat_integrals(std::span<const double> at, double a, double b, std::span<double> out) {
  if (at.size() == 1) {
    out[0] = b - a;
    return;
  }
  // Hat k rises over [at[k-1], at[k]] and falls over [at[k], at[k+1]]: its
  // integral up to y is the rising triangle's part plus the falling one's.
  const auto upto = [&](std::size_t k, double y) {
    double s = 0;
    if (k > 0) {
      const double l = at[k - 1], w = at[k] - l;
      s += y <= l ? 0 : y >= at[k] ? w / 2 : (y - l) * (y - l) / (2 * w);
    }
    if (k + 1 < at.size()) {
      const double r = at[k + 1], w = r - at[k];
      s += y <= at[k] ? 0 : y >= r ? w / 2 : w / 2 - (r - y) * (r - y) / (2 * w);
    }
    return s;
  };
  for (std::size_t k = 0; k < at.size(); ++k) out[k] = upto(k, b) - upto(k, a);
}

LearnedSpeeds fit_speeds(const std::vector<SpeedObservation>& obs, int P, int distinct,
                         const std::function<SpeedBasis(int spare)>& basis,
                         const SpeedLearningOptions& options) {
  LearnedSpeeds out;
  out.observations = static_cast<int>(obs.size());
  out.speeds.assign(static_cast<std::size_t>(P), 1.0);
  out.spread.assign(static_cast<std::size_t>(P), std::numeric_limits<double>::quiet_NaN());
  std::vector<int> seen(static_cast<std::size_t>(P), 0);
  for (const Observation& o : obs) ++seen[static_cast<std::size_t>(o.rank)];
  const int measured =
      static_cast<int>(std::count_if(seen.begin(), seen.end(), [](int n) { return n > 0; }));
  // Equations left for the density once every measured rank's speed but one
  // (their common scale is the density's) is paid for.
  const int spare = out.observations - (measured - 1);
  const SpeedBasis b = basis(spare);
  const int knots = b.knots;
  out.knots = knots;
  if (distinct < 2) {
    out.message = distinct == 0 ? "no rounds" : "every round cut the elements alike";
  } else if (measured < 1) {
    out.message = "no loads on non-empty ranges";
  } else if (spare <= knots) {
    out.message = std::to_string(out.observations) + " loads for " + std::to_string(knots) +
                  " knots and " + std::to_string(measured - 1) + " free speeds";
  }
  if (!out.message.empty()) return out;
  out.identifiable = true;
  const std::size_t K = static_cast<std::size_t>(knots), M = obs.size();
  const Rows A = sparse_rows(b.integrals, M, K);

  Fit f{obs,
        A,
        seen,
        K,
        static_cast<std::size_t>(P),
        std::vector<double>(K, 0.0),
        std::vector<double>(static_cast<std::size_t>(P), 1.0)};
  std::vector<double>& c = f.c;
  std::vector<double>& u = f.u;
  bool converged = false;
  const int solves = solve_linear(f, options, converged);
  out.iterations = std::abs(solves);
  out.termination = converged ? Termination::converged : Termination::iteration_limit;
  double squares = 0;
  const auto misses = [&] {
    squares = 0;
    for (std::size_t i = 0; i < M; ++i) {
      const double cost = f.cost(i, c);
      if (!(cost > 0)) return false;
      const double e =
          (u[static_cast<std::size_t>(obs[i].rank)] * cost - obs[i].load) / obs[i].load;
      squares += e * e;
    }
    return true;
  };
  if (solves < 0 || !misses()) {
    // No positive fit of this form: the nearest positive one.
    alternate(f, 50 * options.max_iterations);
    out.iterations += 50 * options.max_iterations;
    out.termination = Termination::iteration_limit;
    if (!misses()) {
      out.identifiable = false;
      out.termination = Termination::failed;
      out.misfit = std::numeric_limits<double>::infinity();
      out.message = "the loads admit no speeds > 0 and density of this form";
      return out;
    }
  }
  out.misfit = std::sqrt(squares / static_cast<double>(M));
  for (int r = 0; r < P; ++r)
    if (seen[static_cast<std::size_t>(r)] > 0)
      out.speeds[static_cast<std::size_t>(r)] = 1 / u[static_cast<std::size_t>(r)];
  const int dof = static_cast<int>(M) - (knots + measured - 1);
  if (dof > 0) out.spread = spreads(f, squares / dof);
  return out;
}

LearnedSpeeds fit_speeds_choosing_knots(const std::vector<SpeedObservation>& obs, int P,
                                        int distinct, int most,
                                        const std::function<SpeedBasis(int knots)>& basis,
                                        const SpeedLearningOptions& options) {
  std::vector<int> seen(static_cast<std::size_t>(P), 0);
  for (const Observation& o : obs) seen[static_cast<std::size_t>(o.rank)] = 1;
  const int free = std::max(0, static_cast<int>(std::count(seen.begin(), seen.end(), 1)) - 1);
  const int spare = static_cast<int>(obs.size()) - free;
  const int lo = options.knots > 0 ? options.knots : std::clamp(std::min(spare / 3, most), 2, 64);
  const int hi = options.knots > 0 ? options.knots : std::clamp(std::min(spare / 2, most), lo, 64);
  LearnedSpeeds best;
  double best_score = std::numeric_limits<double>::infinity();
  for (int k = lo; k <= hi; ++k) {
    LearnedSpeeds l = fit_speeds(
        obs, P, distinct, [&](int) { return basis(k); }, options);
    if (k == lo) best = l;  // what is reported when no count is identifiable
    const double M = l.observations, p = k + free;
    if (!l.identifiable || !(M - p - 1 > 0)) continue;
    // AICc of Gaussian relative misfits (their sum of squares M·misfit²).
    const double rss = std::max(M * l.misfit * l.misfit, 1e-30 * M);
    const double score = M * std::log(rss / M) + 2 * p + 2 * p * (p + 1) / (M - p - 1);
    if (score < best_score) best_score = score, best = std::move(l);
  }
  return best;
}

}  // namespace isocost::detail
