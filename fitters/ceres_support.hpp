// Internal to the fitters: the Ceres set-up every fit shares.
#pragma once

#include <ceres/ceres.h>

#include <memory>
#include <string>

#include "isocost/error.hpp"
#include "isocost/fitters/fit.hpp"

namespace isocost::detail {

/// The robust loss for the options (null for none); the problem must not own it.
inline std::unique_ptr<ceres::LossFunction> make_loss(FitLoss loss, double scale) {
  if (loss == FitLoss::huber) return std::make_unique<ceres::HuberLoss>(scale);
  if (loss == FitLoss::cauchy) return std::make_unique<ceres::CauchyLoss>(scale);
  return nullptr;
}

/// Levenberg–Marquardt with dense QR (few parameters, many residuals), silent.
inline ceres::Solver::Options solver_options(int max_iterations, double function_tolerance) {
  ceres::Solver::Options solver;
  solver.linear_solver_type = ceres::DENSE_QR;
  solver.max_num_iterations = max_iterations;
  solver.function_tolerance = function_tolerance;
  solver.parameter_tolerance = 1e-14;
  solver.gradient_tolerance = 1e-16;
  solver.logging_type = ceres::SILENT;
  return solver;
}

/// Copies iterations, time and termination into `out`; throws Error naming
/// `what` with Ceres' termination reason unless the solve converged.
inline void record_solve(const ceres::Solver::Summary& summary, const std::string& what,
                         FitSummary& out) {
  out.iterations = static_cast<int>(summary.iterations.size()) - 1;
  out.solve_seconds = summary.total_time_in_seconds;
  out.termination = std::string(ceres::TerminationTypeToString(summary.termination_type)) + " (" +
                    summary.message + ")";
  if (summary.termination_type != ceres::CONVERGENCE &&
      summary.termination_type != ceres::USER_SUCCESS)
    throw Error(what + " did not converge: " + out.termination);
}

}  // namespace isocost::detail
