// Internal to the isocost command: what every command writes with — the run
// wrapper with -o, tables, atomic output, JSON numbers and number formats.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "isocost/detail/text.hpp"

namespace isocost::cli {

/// Adds -o/--output (bound to `output`) and sets the command's callback to
/// `run`, rejecting an empty file name first. Under mpiexec `run` runs on
/// rank 0 alone (serial_section()) unless `distributed`: then on every rank,
/// and it calls serial_section() itself for its forms that are not.
void add_output_and_run(CLI::App* cmd, std::string& output, std::function<void()> run,
                        bool distributed = false);

/// Right-aligned text table with a header row.
std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows);
/// The same table streamed to `out`, row r's cells given by `row(r)` for
/// r < n (called twice per row: widths, then output), so that its memory is
/// O(1) per row.
void write_table(std::ostream& out, const std::vector<std::string>& header, std::size_t n,
                 const std::function<std::vector<std::string>(std::size_t)>& row);

/// Writes the finished result: to stdout when `path` is empty or "-",
/// otherwise with detail::write_atomically() (a temporary renamed over a
/// regular file; devices, FIFOs and /dev/stdout written directly; symbolic
/// links kept), so a failure never leaves a partial file behind.
void emit(const std::string& text, const std::string& path);
/// As emit(), but the result is streamed by `write` (large JSON and tables
/// never exist whole in memory).
void emit_to(const std::string& path, const std::function<void(std::ostream&)>& write);

/// A double for JSON: null when not finite.
nlohmann::ordered_json number(double value);

/// A number of the commands' output: `v` with `digits` significant digits,
/// %g style (detail::fixed_digits); g8 and g10 the two usual precisions.
inline std::string g(double v, int digits) { return detail::fixed_digits(v, digits); }
inline std::string g8(double v) { return g(v, 8); }
inline std::string g10(double v) { return g(v, 10); }

}  // namespace isocost::cli
