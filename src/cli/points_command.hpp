// Internal to the isocost command: `isocost partition --points FILE`, weighted
// points (particles, mesh cell centres) cut into parts along a Hilbert curve
// or by multi-jagged planes, on every rank under mpiexec (each reads its own
// share of the file) and in one process otherwise.
#pragma once

#include <string>
#include "density_args.hpp"

namespace isocost::cli {

/// The points options of `isocost partition` (raw text).
struct PointsArgs {
  std::string points;      ///< --points FILE
  std::string parts;       ///< --parts P
  std::string assignment;  ///< --assignment FILE
};
/// Adds --points, --parts and --assignment to `cmd`.
void add_points_options(CLI::App* cmd, PointsArgs& args);
/// True if --points was given.
bool points_given(const PointsArgs& args);
/// Error for --parts or --assignment without --points.
void reject_points_options(const PointsArgs& args);
/// Runs the points form; `d` holds the shared options (--method, --grid,
/// --speeds, --node-types, --ranks), the rest must be empty.
void run_points(const DensityArgs& d, const PointsArgs& p, const std::string& output, bool json);

}  // namespace isocost::cli
