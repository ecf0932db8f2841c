#include "isocost/io.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <map>
#include <string_view>

#include "core/data/records.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"

namespace isocost {

using detail::is_header;
using detail::lower;
using detail::quote;
using detail::read_records;
using detail::Record;

namespace {

double number(const Record& r, std::size_t k, const std::string& name, const std::string& what,
              bool nonnegative) {
  double v;
  if (!detail::parse_number(r.fields[k], v) || !std::isfinite(v))
    throw ParseError(name, r.line,
                     detail::expected_got(what, "a finite number", quote(r.fields[k])));
  if (nonnegative && v < 0)
    throw ParseError(name, r.line, detail::expected_got(what, "a number >= 0", quote(r.fields[k])));
  return v == 0 ? 0.0 : v;  // -0 is 0 (it would print as "-0")
}

void expect_fields(const Record& r, std::size_t n, const std::string& name,
                   const std::string& layout) {
  if (r.fields.size() != n)
    throw ParseError(name, r.line,
                     "expected " + std::to_string(n) + " field" + (n == 1 ? "" : "s") + " (" +
                         layout + "), got " + std::to_string(r.fields.size()));
}

void expect_header(const Record& r, const std::vector<std::string>& names,
                   const std::string& name) {
  bool ok = r.fields.size() == names.size();
  for (std::size_t k = 0; ok && k < names.size(); ++k) ok = lower(r.fields[k]) == names[k];
  if (!ok) {
    std::string layout;
    for (const auto& n : names) layout += (layout.empty() ? "" : ",") + n;
    throw ParseError(name, r.line,
                     "expected numbers or the header '" + layout + "', got " +
                         quote(r.fields[0] + (r.fields.size() > 1 ? ",…" : "")));
  }
}

}  // namespace

std::vector<double> read_column(std::istream& in, const std::string& name, const std::string& what,
                                bool nonnegative, std::vector<std::size_t>* lines) {
  auto records = read_records(in, name);
  std::vector<double> values;
  if (lines) lines->clear();
  for (std::size_t i = 0; i < records.size(); ++i) {
    const auto& r = records[i];
    if (i == 0 && is_header(r) && r.fields.size() == 1) continue;  // one-word header
    expect_fields(r, 1, name, what);
    values.push_back(number(r, 0, name, what, nonnegative));
    if (lines) lines->push_back(r.line);
  }
  if (values.empty())
    throw ParseError(name, records.empty() ? 1 : records.back().line,
                     "no " + what + " values in the file");
  return values;
}

std::vector<double> read_column(const std::string& path, const std::string& what, bool nonnegative,
                                std::vector<std::size_t>* lines) {
  auto in = detail::open_for_reading(path);
  return read_column(in, path, what, nonnegative, lines);
}

LoadFile read_load_file(std::istream& in, const std::string& name) {
  auto records = read_records(in, name);
  if (records.empty()) throw ParseError(name, 1, "no loads in the file");
  std::size_t start = 0;
  bool vector_format = records[0].fields.size() == 3;
  if (is_header(records[0])) {
    if (records[0].fields.size() == 3)
      expect_header(records[0], {"rank", "phase", "time"}, name);
    else if (records[0].fields.size() != 1)
      throw ParseError(name, records[0].line,
                       "expected one time per line or 'rank,phase,time' rows, got " +
                           quote(records[0].fields[0] + "…"));
    start = 1;
  }
  LoadFile out;
  if (!vector_format) {
    for (std::size_t i = start; i < records.size(); ++i) {
      expect_fields(records[i], 1, name, "one time per line");
      out.times.push_back(number(records[i], 0, name, "time", true));
    }
    if (out.times.empty()) throw ParseError(name, records.back().line, "no loads in the file");
    return out;
  }
  // Vector format: rank,phase,time.
  std::vector<std::string> phases;
  std::map<std::string, std::size_t> phase_index;
  std::map<std::pair<std::size_t, std::size_t>, std::pair<double, std::size_t>> cells;
  std::size_t max_rank = 0;
  for (std::size_t i = start; i < records.size(); ++i) {
    const auto& r = records[i];
    expect_fields(r, 3, name, "rank,phase,time");
    // Every rank below it gets a row: bounded before anything is allocated.
    const auto k = static_cast<std::size_t>(
        detail::parse_index(name, r.line, r.fields[0], "rank", kMaxRankIndex));
    const std::string& phase = r.fields[1];
    if (phase.empty()) throw ParseError(name, r.line, "phase: expected a name, got an empty field");
    if (!phase_index.count(phase)) {
      phase_index[phase] = phases.size();
      phases.push_back(phase);
    }
    const double t = number(r, 2, name, "time", true);
    auto [it, inserted] =
        cells.emplace(std::make_pair(k, phase_index[phase]), std::make_pair(t, r.line));
    if (!inserted)
      throw ParseError(name, r.line,
                       "rank " + std::to_string(k) + ", phase " + quote(phase) +
                           " appears twice (first on line " + std::to_string(it->second.second) +
                           ")");
    max_rank = std::max(max_rank, k);
  }
  if (cells.empty()) throw ParseError(name, records.back().line, "no loads in the file");
  // A missing (rank, phase) pair is found before the table is allocated, so the
  // memory follows the file's size, not its largest rank.
  if (cells.size() != (max_rank + 1) * phases.size()) {
    std::size_t k = 0, f = 0;
    for (const auto& [key, value] : cells) {  // sorted by rank, then phase
      if (key != std::make_pair(k, f)) break;
      if (++f == phases.size()) {
        f = 0;
        ++k;
      }
    }
    throw ParseError(name, records.back().line,
                     "rank " + std::to_string(k) + " has no time for phase " + quote(phases[f]) +
                         " (every rank 0.." + std::to_string(max_rank) + " needs every phase)");
  }
  PhaseLoads loads;
  loads.phases = phases;
  loads.ranks = max_rank + 1;
  loads.times.assign(loads.ranks * phases.size(), 0.0);
  for (std::size_t k = 0; k < loads.ranks; ++k)
    for (std::size_t f = 0; f < phases.size(); ++f) {
      auto it = cells.find({k, f});
      if (it == cells.end())
        throw ParseError(name, records.back().line,
                         "rank " + std::to_string(k) + " has no time for phase " +
                             quote(phases[f]) + " (every rank 0.." + std::to_string(max_rank) +
                             " needs every phase)");
      loads.times[k * phases.size() + f] = it->second.first;
    }
  out.times.assign(loads.ranks, 0.0);
  for (std::size_t k = 0; k < loads.ranks; ++k)
    for (std::size_t f = 0; f < phases.size(); ++f) out.times[k] += loads.at(k, f);
  out.phases = std::move(loads);
  return out;
}

LoadFile read_load_file(const std::string& path) {
  auto in = detail::open_for_reading(path);
  return read_load_file(in, path);
}

}  // namespace isocost
