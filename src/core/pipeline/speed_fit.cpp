// The joint fit of speeds and a cost density on a basis (speed_fit.hpp):
// alternating multiplicative updates, then Levenberg-Marquardt on the logs
// of the loads, then the speeds' spreads from the Jacobian's QR.
#include "core/pipeline/speed_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/common/eigen_real.hpp"

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

using Matrix = Eigen::Matrix<detail::Real, Eigen::Dynamic, Eigen::Dynamic>;
using Vector = Eigen::Matrix<detail::Real, Eigen::Dynamic, 1>;

// The log residuals r_i = log(pred_i) − log(t_i) of density c and inverse
// speeds u, and Σ r_i²; with J, its first rows get their Jacobian in
// (c, log u): ∂r_i/∂c_k = A_ik / cost_i (c itself, so that a knot driven to
// 0 keeps its column), ∂r_i/∂log u_r = 1 for the observation's rank.
double log_residuals(const std::vector<Observation>& obs, const std::vector<double>& A,
                     const std::vector<double>& c, const std::vector<double>& u, Vector& r,
                     Matrix* J) {
  const auto K = static_cast<Eigen::Index>(c.size());
  double sum = 0;
  for (std::size_t i = 0; i < obs.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    double cost = 0;
    for (Eigen::Index k = 0; k < K; ++k)
      cost += A[i * c.size() + static_cast<std::size_t>(k)] * c[static_cast<std::size_t>(k)];
    r(row) = std::log(u[static_cast<std::size_t>(obs[i].rank)] * cost) - std::log(obs[i].load);
    sum += static_cast<double>(r(row) * r(row));
    if (!J) continue;
    for (Eigen::Index k = 0; k < K; ++k)
      (*J)(row, k) = A[i * c.size() + static_cast<std::size_t>(k)] / cost;
    (*J)(row, K + obs[i].rank) = 1.0;
  }
  return sum;
}

// var(log s_r) from the Gauss-Newton normal equations of the log residuals
// in (c, log u), the speeds' common scale and any rank never measured held
// by rows of their own.
std::vector<double> spreads(const std::vector<Observation>& obs, const std::vector<double>& A,
                            const std::vector<double>& c, const std::vector<double>& u,
                            const std::vector<int>& seen, double sigma2, int P) {
  const auto K = static_cast<Eigen::Index>(c.size());
  const Eigen::Index n = K + P;
  std::vector<double> out(static_cast<std::size_t>(P), std::numeric_limits<double>::quiet_NaN());
  if (n > 600) return out;
  const auto M = static_cast<Eigen::Index>(obs.size());
  Matrix J = Matrix::Zero(M + 1 + P, n);
  Vector r(M);
  log_residuals(obs, A, c, u, r, &J);
  // The speeds' common scale, and a rank never measured, held by rows of
  // their own (its speed stays 1).
  for (int q = 0; q < P; ++q) {
    J(M, K + q) = 1.0;
    if (seen[static_cast<std::size_t>(q)] == 0) J(M + 1 + q, K + q) = 1.0;
  }
  // Columns scaled to unit length first: the density's and the speeds'
  // differ by orders of magnitude, which would read as rank deficiency.
  Vector norms = J.colwise().norm().transpose();
  for (Eigen::Index j = 0; j < n; ++j) {
    if (!(norms(j) > 0)) return out;
    J.col(j) /= norms(j);
  }
  // (JᵀJ)⁻¹ from J's own QR (not the normal equations, whose condition is
  // J's squared): J·Π = Q·R, so the variance of unknown j is ‖R⁻ᵀ·Πᵀ·e_j‖².
  const auto qr = J.colPivHouseholderQr();
  if (qr.rank() < n) return out;
  const Matrix R = qr.matrixR().topLeftCorner(n, n).template triangularView<Eigen::Upper>();
  for (int q = 0; q < P; ++q) {
    Vector e = Vector::Zero(n);
    e(K + q) = 1.0;
    const Vector pe = qr.colsPermutation().transpose() * e;
    const Vector y = R.transpose().template triangularView<Eigen::Lower>().solve(pe);
    const double v = static_cast<double>(y.squaredNorm() / (norms(K + q) * norms(K + q)));
    out[static_cast<std::size_t>(q)] = std::sqrt(std::max(0.0, v * sigma2));
  }
  return out;
}

// Levenberg-Marquardt on the log residuals in θ = (log c, log u) from the
// alternating updates' point: they find the valley quickly but crawl along
// it when the rounds' cuts differ little (two rounds a few elements apart).
// Returns true when the steps stopped improving (converged). Skipped beyond
// 600 unknowns.
bool polish(const std::vector<Observation>& obs, const std::vector<double>& A,
            const std::vector<int>& seen, std::vector<double>& c, std::vector<double>& u,
            int max_steps) {
  const auto K = static_cast<Eigen::Index>(c.size()), P = static_cast<Eigen::Index>(u.size());
  const Eigen::Index n = K + P, M = static_cast<Eigen::Index>(obs.size());
  if (n > 600) return false;
  for (double& v : c) v = std::max(v, 1e-300);  // finite logs
  Vector r(M);
  Matrix J = Matrix::Zero(M, n);
  // log_residuals()'s Jacobian in c, times c_k: in log c.
  const auto linearise = [&] {
    const double sum = log_residuals(obs, A, c, u, r, &J);
    for (Eigen::Index k = 0; k < K; ++k) J.col(k) *= c[static_cast<std::size_t>(k)];
    return sum;
  };
  double cost = linearise(), lambda = 1e-3;
  for (int step = 0; step < max_steps; ++step) {
    Matrix N = J.transpose() * J;
    const Vector g = J.transpose() * r;
    for (Eigen::Index j = 0; j < n; ++j) {
      // A rank never measured keeps its speed (its column is zero).
      if (j >= K && seen[static_cast<std::size_t>(j - K)] == 0) N(j, j) = 1.0;
      N(j, j) += lambda * (N(j, j) + 1e-12);
    }
    const Vector delta = -N.ldlt().solve(g);
    std::vector<double> c2(c), u2(u);
    for (Eigen::Index k = 0; k < K; ++k)
      c2[static_cast<std::size_t>(k)] *= std::exp(static_cast<double>(delta(k)));
    for (Eigen::Index q = 0; q < P; ++q)
      if (seen[static_cast<std::size_t>(q)] > 0)
        u2[static_cast<std::size_t>(q)] *= std::exp(static_cast<double>(delta(K + q)));
    Vector r2(M);
    const double cost2 = log_residuals(obs, A, c2, u2, r2, nullptr);
    if (std::isfinite(cost2) && cost2 <= cost) {
      const bool done = cost - cost2 <= 1e-15 * std::max(cost, 1e-300) || cost2 < 1e-28;
      c = std::move(c2);
      u = std::move(u2);
      cost = linearise();
      lambda = std::max(lambda / 10, 1e-12);
      if (done) return true;
    } else {
      lambda *= 10;
      if (lambda > 1e12) return true;  // no step improves: a minimum
    }
  }
  return false;
}

}  // namespace

void hat_integrals(double lo, double hi, int knots, double a, double b, std::span<double> out) {
  if (knots == 1) {
    out[0] = b - a;
    return;
  }
  const double h = (hi - lo) / static_cast<double>(knots - 1);
  for (int k = 0; k < knots; ++k) {
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
  const std::vector<double>& A = b.integrals;
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

  // Start: a flat density of the loads' mean, every speed 1.
  double total = 0, covered = 0;
  for (const Observation& o : obs) total += o.load;
  for (const double a : A) covered += a;
  std::vector<double> c(K, total / covered), u(static_cast<std::size_t>(P), 1.0);
  std::vector<double> cost(M), pred(M), num(K), den(K);
  const auto predict = [&] {
    for (std::size_t i = 0; i < M; ++i) {
      double s = 0;
      for (std::size_t k = 0; k < K; ++k) s += A[i * K + k] * c[k];
      cost[i] = s;
      pred[i] = u[static_cast<std::size_t>(obs[i].rank)] * s;
    }
  };
  out.termination = Termination::iteration_limit;
  for (int it = 1; it <= options.max_iterations; ++it) {
    out.iterations = it;
    // The density's half: c_k ← c_k · Σ_i u A_ik t_i/pred_i / Σ_i u A_ik.
    predict();
    std::fill(num.begin(), num.end(), 0.0);
    std::fill(den.begin(), den.end(), 0.0);
    for (std::size_t i = 0; i < M; ++i) {
      const double ui = u[static_cast<std::size_t>(obs[i].rank)];
      const double ratio = pred[i] > 0 ? obs[i].load / pred[i] : 0;
      for (std::size_t k = 0; k < K; ++k) {
        num[k] += ui * A[i * K + k] * ratio;
        den[k] += ui * A[i * K + k];
      }
    }
    for (std::size_t k = 0; k < K; ++k) c[k] = den[k] > 0 ? c[k] * num[k] / den[k] : c[k];
    // The speeds' half, exact: u_r = Σ t / Σ cost over rank r's loads.
    predict();
    std::vector<double> t_sum(static_cast<std::size_t>(P)), c_sum(static_cast<std::size_t>(P));
    for (std::size_t i = 0; i < M; ++i) {
      t_sum[static_cast<std::size_t>(obs[i].rank)] += obs[i].load;
      c_sum[static_cast<std::size_t>(obs[i].rank)] += cost[i];
    }
    double change = 0, mean_speed = 0;
    for (int r = 0; r < P; ++r) {
      const auto q = static_cast<std::size_t>(r);
      if (seen[q] == 0 || !(c_sum[q] > 0)) continue;
      const double next = t_sum[q] / c_sum[q];
      change = std::max(change, std::abs(next / u[q] - 1));
      u[q] = next;
      mean_speed += 1 / next;
    }
    // Mean speed 1 over the measured ranks: u scales by m, the density by 1/m.
    mean_speed /= measured;
    for (int r = 0; r < P; ++r)
      if (seen[static_cast<std::size_t>(r)] > 0) u[static_cast<std::size_t>(r)] *= mean_speed;
    for (double& v : c) v /= mean_speed;
    if (change <= options.tolerance) {
      out.termination = Termination::converged;
      break;
    }
  }
  if (polish(obs, A, seen, c, u, 200)) out.termination = Termination::converged;
  // Mean speed 1 over the measured ranks again.
  double mean_speed = 0;
  for (int r = 0; r < P; ++r)
    if (seen[static_cast<std::size_t>(r)] > 0) mean_speed += 1 / u[static_cast<std::size_t>(r)];
  mean_speed /= measured;
  for (int r = 0; r < P; ++r)
    if (seen[static_cast<std::size_t>(r)] > 0) u[static_cast<std::size_t>(r)] *= mean_speed;
  for (double& v : c) v /= mean_speed;
  predict();
  double squares = 0;
  for (std::size_t i = 0; i < M; ++i) {
    const double e = (pred[i] - obs[i].load) / obs[i].load;
    squares += e * e;
  }
  out.misfit = std::sqrt(squares / static_cast<double>(M));
  for (int r = 0; r < P; ++r)
    if (seen[static_cast<std::size_t>(r)] > 0)
      out.speeds[static_cast<std::size_t>(r)] = 1 / u[static_cast<std::size_t>(r)];
  const int dof = static_cast<int>(M) - (knots + measured - 1);
  if (dof > 0) {
    const double sigma2 = squares / dof;
    out.spread = spreads(obs, A, c, u, seen, sigma2, P);
    for (int r = 0; r < P; ++r)
      if (seen[static_cast<std::size_t>(r)] == 0)
        out.spread[static_cast<std::size_t>(r)] = std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

}  // namespace isocost::detail
