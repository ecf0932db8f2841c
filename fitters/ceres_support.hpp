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

/// Iterations, time, and the termination as isocost reports it: Ceres'
/// CONVERGENCE is converged, NO_CONVERGENCE (iteration or time budget) is
/// iteration_limit, anything else failed; the message keeps Ceres' words.
template <class Summary>
void record_solve(const ceres::Solver::Summary& summary, Summary& out) {
  out.iterations = static_cast<int>(summary.iterations.size()) - 1;
  out.solve_seconds = summary.total_time_in_seconds;
  out.message = std::string(ceres::TerminationTypeToString(summary.termination_type)) + " (" +
                summary.message + ")";
  switch (summary.termination_type) {
    case ceres::CONVERGENCE:
    case ceres::USER_SUCCESS:
      out.termination = Termination::converged;
      break;
    case ceres::NO_CONVERGENCE:
      out.termination = Termination::iteration_limit;
      break;
    default:
      out.termination = Termination::failed;
  }
}

}  // namespace isocost::detail
