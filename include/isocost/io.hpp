// isocost/io.hpp — strict readers for the small text files the CLI takes.
//
// Common rules: one record per line; fields separated by commas and/or
// whitespace; blank lines and lines starting with '#' are skipped; the first
// record may be a header naming the columns (e.g. "rank,phase,time"; a header's
// first field starts with a letter, so a typo in a first value is an error, not
// a header). Numbers must be finite. Any violation throws ParseError with file and line.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "isocost/metrics.hpp"

namespace isocost {

/// Per-rank loads as read from a file.
struct LoadFile {
  /// Scalar format: one time per line, in rank order. For the vector format:
  /// each rank's sum over phases.
  std::vector<double> times;
  /// Vector format: "rank,phase,time" rows; every (rank, phase) pair exactly
  /// once, ranks 0..R−1 all present.
  std::optional<PhaseLoads> phases;
};

/// Reads a load file (scalar or vector format, detected from the first record).
/// Times must be >= 0.
LoadFile read_load_file(const std::string& path);
/// As read_load_file, from a stream; `name` is used in error messages.
LoadFile read_load_file(std::istream& in, const std::string& name);

/// Reads one number per line (optional one-word header). With `nonnegative`,
/// negative values are errors. Throws ParseError if the file holds no value.
std::vector<double> read_column(const std::string& path, const std::string& what, bool nonnegative);
/// As read_column, from a stream.
std::vector<double> read_column(std::istream& in, const std::string& name, const std::string& what,
                                bool nonnegative);

}  // namespace isocost
