// learn_speeds(): the ranks' speeds and the cost density along the elements
// from rounds of per-rank loads (isocost/learn_speeds.hpp).
#include "isocost/learn_speeds.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "core/common/eigen_real.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

namespace {

// One load: rank r's time for the elements [a, b) in one round.
struct Observation {
  int rank = 0;
  double a = 0, b = 0, load = 0;
};

// ∫ of the unit hat max(0, 1 − |u|) from −∞ to y.
double hat_integral(double y) {
  if (y <= -1) return 0;
  if (y <= 0) return (y + 1) * (y + 1) / 2;
  if (y <= 1) return 1 - (1 - y) * (1 - y) / 2;
  return 1;
}

std::vector<Observation> observations(std::span<const BlockRound> rounds, int& distinct) {
  const BlockRound& first = rounds.front();
  validate_block_offsets(first.offsets);
  const std::size_t P = first.offsets.size() - 1;
  std::vector<Observation> out;
  distinct = 0;
  for (std::size_t j = 0; j < rounds.size(); ++j) {
    const BlockRound& h = rounds[j];
    const std::string name = "learn_speeds: round " + std::to_string(j);
    validate_block_offsets(h.offsets);
    if (h.offsets.size() != first.offsets.size() || h.offsets.back() != first.offsets.back())
      throw Error(detail::expected_got(name,
                                       std::to_string(P) + " ranks and " +
                                           std::to_string(first.offsets.back()) +
                                           " elements (round 0's)",
                                       std::to_string(h.offsets.size() - 1) + " ranks and " +
                                           std::to_string(h.offsets.back()) + " elements"));
    if (h.loads.size() != P)
      throw Error(name + ": " + std::to_string(h.loads.size()) + " loads for " + std::to_string(P) +
                  " ranks");
    for (std::size_t r = 0; r < P; ++r) {
      const double v = h.loads[r];
      if (!(v >= 0) || !std::isfinite(v))
        throw Error(detail::expected_got(name + ": load " + std::to_string(r),
                                         "a finite number >= 0", detail::exact(v)));
      if (h.offsets[r + 1] > h.offsets[r] && v > 0)
        out.push_back({static_cast<int>(r), static_cast<double>(h.offsets[r]),
                       static_cast<double>(h.offsets[r + 1]), v});
    }
    bool fresh = true;
    for (std::size_t i = 0; i < j && fresh; ++i) fresh = rounds[i].offsets != h.offsets;
    distinct += fresh ? 1 : 0;
  }
  return out;
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

bool SpeedLearningOptions::is_valid(std::string* why) const {
  if (!check_fields(*this, why)) return false;
  if (knots == 1) {
    if (why) *why = "knots: expected 0 (chosen from the data) or an integer >= 2, got 1";
    return false;
  }
  return true;
}

std::string LearnedSpeeds::brief_report() const {
  std::ostringstream s;
  if (!identifiable) {
    s << "speeds not learned: " << message;
    return s.str();
  }
  s << "learned speeds";
  for (std::size_t r = 0; r < speeds.size(); ++r) {
    s << (r ? ", " : " ") << detail::exact(std::round(speeds[r] * 1e4) / 1e4);
    if (r < spread.size() && std::isfinite(spread[r]))
      s << " ±" << detail::exact(std::round(spread[r] * 1e4) / 100) << "%";
  }
  s << " from " << rounds << " rounds"
    << (rounds_dropped > 0 ? " (" + std::to_string(rounds_dropped) + " older left out)" : "")
    << " (" << observations << " loads, " << knots << " knots), misfit "
    << detail::exact(std::round(misfit * 1e6) / 1e6) << ", " << iterations << " iterations"
    << (termination == Termination::converged ? "" : " (NOT converged)");
  return s.str();
}

namespace {

// One fit on all of `rounds` (validated by observations()).
LearnedSpeeds fit(std::span<const BlockRound> rounds, const SpeedLearningOptions& options) {
  int distinct = 0;
  const std::vector<Observation> obs = observations(rounds, distinct);
  const int P = static_cast<int>(rounds.front().offsets.size()) - 1;
  const double N = static_cast<double>(rounds.front().offsets.back());

  LearnedSpeeds out;
  out.rounds = static_cast<int>(rounds.size());
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
  const int knots =
      options.knots > 0 ? options.knots : std::clamp(std::min(spare / 3, P + 1), 2, 64);
  out.knots = knots;
  if (distinct < 2) {
    out.message = distinct == 0 ? "no rounds" : "every round cut the elements alike";
  } else if (!(N > 0) || measured < 1) {
    out.message = "no loads on non-empty ranges";
  } else if (spare <= knots) {
    out.message = std::to_string(out.observations) + " loads for " + std::to_string(knots) +
                  " knots and " + std::to_string(measured - 1) + " free speeds";
  }
  if (!out.message.empty()) return out;
  out.identifiable = true;

  // A[i][k]: the integral of knot k's hat over observation i's range.
  const std::size_t K = static_cast<std::size_t>(knots), M = obs.size();
  const double h = N / static_cast<double>(knots - 1);
  std::vector<double> A(M * K);
  for (std::size_t i = 0; i < M; ++i)
    for (std::size_t k = 0; k < K; ++k) {
      const double centre = h * static_cast<double>(k);
      A[i * K + k] =
          h * (hat_integral((obs[i].b - centre) / h) - hat_integral((obs[i].a - centre) / h));
    }

  // Start: a flat density of the loads' mean, every speed 1.
  double total = 0, covered = 0;
  for (const Observation& o : obs) total += o.load, covered += o.b - o.a;
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

}  // namespace

LearnedSpeeds learn_speeds(std::span<const BlockRound> rounds,
                           const SpeedLearningOptions& options) {
  options.validate();
  if (rounds.empty()) throw Error("learn_speeds: expected at least one round, got none");
  LearnedSpeeds out = fit(rounds, options);
  // Rounds from before a change of speed (or of the cost) cannot be fitted
  // with the newer ones: the oldest go while the fit still misses, as long
  // as two rounds remain to learn from.
  std::size_t first = 0;
  while (out.identifiable && out.misfit > options.max_misfit && rounds.size() - first > 2) {
    LearnedSpeeds fewer = fit(rounds.subspan(++first), options);
    if (!fewer.identifiable) break;
    out = std::move(fewer);
    out.rounds_dropped = static_cast<int>(first);
  }
  out.rounds = static_cast<int>(rounds.size() - first);
  return out;
}

}  // namespace isocost
