// Internal to the sample readers (samples.cpp, samples_text.cpp,
// samples_json.cpp): the checks they share, reported at the offending line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "isocost/samples.hpp"

namespace isocost::detail {

/// "lo=…, hi=…, dt=…" and ", rank=…" when the sample has one.
std::string fields_of(const IntervalSample& s);

/// What is wrong with one interval sample ("" if nothing) and which field is
/// to blame, so that file readers can point at that field's line.
struct SampleProblem {
  std::string message;
  const char* field = "";
};
SampleProblem check_interval(const IntervalSample& s);

/// Cumulative points read from a file; x_lines/t_lines give the line of each
/// value. Throws ParseError at the offending line.
Samples cumulative_from_file(std::vector<double> x, std::vector<double> t,
                             const std::vector<std::size_t>& x_lines,
                             const std::vector<std::size_t>& t_lines, const std::string& name,
                             bool repair);

/// The CSV / whitespace reader ("x,t" or "lo,hi,dt" rows).
Samples read_samples_text(const std::string& text, const std::string& name, bool repair);
/// The JSON reader ({"cumulative": […]}, {"intervals": […]} or a bare array).
Samples read_samples_json(const std::string& text, const std::string& name, bool repair);

}  // namespace isocost::detail
