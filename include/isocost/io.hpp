// isocost/io.hpp — strict readers for the small text files the CLI takes:
// load files, single columns, process graphs and task lists (samples have
// their own reader in samples.hpp).
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

#include "isocost/diffusion.hpp"
#include "isocost/metrics.hpp"
#include "isocost/tasks.hpp"

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
/// With `lines`, each value's line number (from 1) is stored there, for
/// messages about a value that the caller checks further.
std::vector<double> read_column(const std::string& path, const std::string& what, bool nonnegative,
                                std::vector<std::size_t>* lines = nullptr);
/// As read_column, from a stream.
std::vector<double> read_column(std::istream& in, const std::string& name, const std::string& what,
                                bool nonnegative, std::vector<std::size_t>* lines = nullptr);

/// A process graph as an edge list: "i j" per line (node numbers, integers
/// >= 0), with the common rules. `nodes` (from the loads) bounds the node
/// numbers; nodes < 0: as many as the edges name. Throws ParseError for a
/// malformed line, a node out of range or a self-loop; Error for no edges
/// (unless there is one node) and for a disconnected graph (edge_graph()).
ProcessGraph read_graph(const std::string& path, int nodes = -1);
/// As read_graph, from a stream; `name` is used in error messages.
ProcessGraph read_graph(std::istream& in, const std::string& name, int nodes = -1);

/// Tasks, "rank,id,load[,immobile]" per line (an optional header starting
/// with "rank"; immobile is 0 or 1): one list per rank 0..R−1, R = the
/// highest rank named + 1, in file order. Ids are unique integers, loads
/// finite and >= 0. Throws ParseError at the offending line, Error for a file
/// without tasks.
std::vector<std::vector<Task>> read_tasks(const std::string& path);
/// As read_tasks, from a stream; `name` is used in error messages.
std::vector<std::vector<Task>> read_tasks(std::istream& in, const std::string& name);

}  // namespace isocost
