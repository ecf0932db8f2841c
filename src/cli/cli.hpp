// Internal to the isocost command: subcommand registration and shared output.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "isocost/error.hpp"
#include "isocost/metrics.hpp"

namespace isocost::cli {

/// The result was written, but not every cut reached its tolerance: exit code 3.
struct NotConverged : Error {
  using Error::Error;
};
/// Standard output could not be written: exit code 1.
struct OutputFailed : Error {
  using Error::Error;
};

/// Adds `isocost cut` to the app; the callback runs the command.
void add_cut_command(CLI::App& app);
/// Adds `isocost metrics` to the app.
void add_metrics_command(CLI::App& app);

/// Adds -o/--output (bound to `output`) and sets the command's callback to
/// `run`, rejecting an empty file name first.
void add_output_and_run(CLI::App* cmd, std::string& output, std::function<void()> run);

/// Right-aligned text table with a header row.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);

/// Writes the finished result: to stdout when `path` is empty, otherwise to a
/// temporary file in the same directory renamed over `path`, so a failure never
/// leaves a partial file behind.
void emit(const std::string& text, const std::string& path);

/// A double for JSON: null when not finite.
nlohmann::ordered_json number(double value);
/// LoadStats as a JSON object (the stable "stats" shape in the README).
nlohmann::ordered_json stats_json(const LoadStats& s);

/// Parses a finite double from a whole command-line field; throws Error naming
/// `what` otherwise.
double parse_double(const std::string& text, const std::string& what);
/// Splits "a,b,c" on commas.
std::vector<std::string> split(const std::string& text, char separator);

}  // namespace isocost::cli
