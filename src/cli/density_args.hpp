// Internal to the isocost command: a density and its partition as typed on
// the command line, shared by `partition` and the heat-map mode of `plot`.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/partition.hpp"

namespace isocost::cli {

/// A density and its partition as typed on the command line, shared by
/// `partition` and the heat-map mode of `plot` (all fields are raw text).
struct DensityArgs {
  std::string formula;     ///< --density FORMULA
  std::string box;         ///< --box LO:HI,LO:HI[,LO:HI]
  std::string weights;     ///< --weights FILE
  std::string shape;       ///< --shape NXxNY[xNZ]
  std::string quadrature;  ///< --quadrature gauss_kronrod|tanh_sinh
  std::string tolerance;   ///< --tolerance T
  std::string grid;        ///< --grid PXxPY[xPZ]|auto
  std::string order;       ///< --order xy|yx|xyz|…
  std::string ranks;       ///< --ranks P
  std::string speeds;      ///< --speeds S,…
  std::string node_types;  ///< --node-types NxR,…
  std::string min_width;   ///< --min-width W[,W[,W]]
  std::string method;      ///< --method newton|secant|bisection|toms748
};
/// Adds the options of DensityArgs to `cmd`; `ranks_help` describes --ranks.
void add_density_options(CLI::App* cmd, DensityArgs& args, const std::string& ranks_help);
/// True if --density or --weights was given.
bool density_given(const DensityArgs& args);

/// DensityArgs checked and parsed; nothing has been read or computed yet.
struct DensityRequest {
  int dims = 2;
  bool gridded = false;  ///< --weights (else --density)
  Box box;               ///< --density: the domain
  GridShape shape;       ///< --weights: the cells
  DensityOptions density_options;
  bool partition = false;        ///< a partition was asked for (--grid, --ranks or speeds)
  bool automatic = false;        ///< --grid auto (or no --grid): choose_process_grid()
  ProcessGrid grid;              ///< the given grid, levels in --order
  std::optional<Speeds> speeds;  ///< set whenever `partition` is
  DecomposeOptions options;
};
/// Checks every field of `args` (an Error names the first bad value). With
/// `need_partition`, a missing --grid/--ranks/--speeds is an Error; otherwise
/// it just means "no partition".
DensityRequest parse_density_request(const DensityArgs& args, bool need_partition);
/// Builds the density: expression_density for --density, read_grid_density
/// for --weights.
Density build_density(const DensityArgs& args, const DensityRequest& request);
/// decompose() for a given grid, choose_process_grid() for --grid auto.
Decomposition partition_density(const Density& density, const DensityRequest& request);

}  // namespace isocost::cli
