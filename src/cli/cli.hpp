// Internal to the isocost command: the entry point, the commands it
// registers and the errors that set its exit codes. What the commands share
// lives by role: arguments.hpp (parsing fields and models), density_args.hpp,
// fit_args.hpp, output.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include "isocost/error.hpp"

namespace isocost::cli {

/// The result was written, but not every cut reached its tolerance: exit code 3.
struct NotConverged : Error {
  using Error::Error;
};
/// Standard output could not be written: exit code 1.
struct OutputFailed : Error {
  using Error::Error;
};

/// The isocost command: builds the app, parses argv, runs the chosen command
/// and returns the process exit code (app.cpp; main() only calls it).
int run(int argc, char** argv);

/// Adds `isocost cut` to the app; the callback runs the command.
void add_cut_command(CLI::App& app);
/// Adds `isocost metrics` to the app.
void add_metrics_command(CLI::App& app);
/// Adds `isocost fit` to the app.
void add_fit_command(CLI::App& app);
/// Adds `isocost plot` to the app.
void add_plot_command(CLI::App& app);
/// Adds `isocost partition` to the app.
void add_partition_command(CLI::App& app);
/// Adds `isocost diffuse` to the app.
void add_diffuse_command(CLI::App& app);

}  // namespace isocost::cli
