// Reading samples from CSV / whitespace text ("x,t", "lo,hi,dt" or
// "lo,hi,dt,rank" rows, the splitting rules of io.hpp), and the checks both
// sample readers share.
#include <cmath>
#include <sstream>

#include "core/data/records.hpp"
#include "core/data/samples_internal.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/limits.hpp"

namespace isocost::detail {

std::string fields_of(const IntervalSample& s) {
  return "lo=" + exact(s.lo) + ", hi=" + exact(s.hi) + ", dt=" + exact(s.dt) +
         (s.rank != -1 ? ", rank=" + std::to_string(s.rank) : "");
}

SampleProblem check_interval(const IntervalSample& s) {
  if (!std::isfinite(s.lo)) return {"expected a finite lo", "lo"};
  if (!std::isfinite(s.hi)) return {"expected a finite hi", "hi"};
  if (!std::isfinite(s.dt)) return {"expected a finite dt", "dt"};
  if (!(s.lo < s.hi)) return {"expected lo < hi", "hi"};
  if (!(s.dt > 0)) return {"expected dt > 0 (every measured range takes some time)", "dt"};
  if (s.rank < -1 || s.rank > kMaxRankIndex)
    return {"expected a rank in [0, " + std::to_string(kMaxRankIndex) + "] or -1 (not known)",
            "rank"};
  return {};
}

namespace {

double text_number(const Record& r, std::size_t k, const char* what, const std::string& name) {
  double v;
  if (!detail::parse_number(r.fields[k], v) || !std::isfinite(v))
    throw ParseError(name, r.line,
                     std::string(what) + ": expected a finite number, got " + quote(r.fields[k]));
  return v;
}

}  // namespace

// Cumulative points read from a file; x_lines/t_lines give the line of each value.
Samples cumulative_from_file(std::vector<double> x, std::vector<double> t,
                             const std::vector<std::size_t>& x_lines,
                             const std::vector<std::size_t>& t_lines, const std::string& name,
                             bool repair) {
  if (x.size() < 2)
    throw ParseError(
        name, t_lines.back(),
        "expected at least 2 cumulative samples (x,t), got " + std::to_string(x.size()));
  for (std::size_t k = 1; k < x.size(); ++k) {
    if (!(x[k] > x[k - 1]))
      throw ParseError(name, x_lines[k],
                       "x must increase strictly, but sample " + std::to_string(k) +
                           " has x=" + exact(x[k]) + " after x=" + exact(x[k - 1]) + " (line " +
                           std::to_string(x_lines[k - 1]) + ")");
    if (!repair && t[k] < t[k - 1])
      throw ParseError(name, t_lines[k],
                       "cumulative t must not decrease, but sample " + std::to_string(k) +
                           " has t=" + exact(t[k]) + " after t=" + exact(t[k - 1]) + " (line " +
                           std::to_string(t_lines[k - 1]) +
                           "); if this is measurement noise, --repair replaces t by its isotonic "
                           "regression");
  }
  try {
    return Samples::from_cumulative(std::move(x), std::move(t), repair);
  } catch (const Error& e) {
    // What is left is about the data as a whole (e.g. t never rises).
    throw ParseError(name, t_lines.back(), e.what());
  }
}

Samples read_samples_text(const std::string& text, const std::string& name, bool repair) {
  std::istringstream stream(text);
  const auto records = detail::read_records(stream, name);
  std::size_t start = 0;
  std::size_t columns = 0;  // 2: cumulative x,t; 3: intervals lo,hi,dt; 4: and the rank
  std::size_t layout_line = 0;
  if (!records.empty() && is_header(records[0])) {
    const Record& h = records[0];
    std::string joined;
    std::vector<std::string> names;
    for (const auto& f : h.fields) {
      names.push_back(lower(f));
      joined += (joined.empty() ? "" : ",") + f;
    }
    using V = std::vector<std::string>;
    if (names == V{"x", "t"})
      columns = 2;
    else if (names == V{"lo", "hi", "dt"} || names == V{"x_lo", "x_hi", "dt"})
      columns = 3;
    else if (names == V{"lo", "hi", "dt", "rank"} || names == V{"x_lo", "x_hi", "dt", "rank"})
      columns = 4;
    else
      throw ParseError(name, h.line,
                       "expected numbers or a header 'x,t', 'lo,hi,dt', 'x_lo,x_hi,dt', "
                       "'lo,hi,dt,rank' or 'x_lo,x_hi,dt,rank', got " +
                           quote(joined));
    start = 1;
    layout_line = h.line;
  }
  if (start == records.size())
    throw ParseError(name, records.empty() ? 1 : records.back().line, "no samples in the file");
  if (columns == 0) {
    columns = records[start].fields.size();
    layout_line = records[start].line;
    if (columns < 2 || columns > 4)
      throw ParseError(name, layout_line,
                       "expected 2 fields (x,t: cumulative), 3 fields (lo,hi,dt: intervals) or 4 "
                       "fields (lo,hi,dt,rank: intervals and the rank that timed each), got " +
                           std::to_string(columns));
  }
  const std::string layout = columns == 2 ? "x,t" : columns == 3 ? "lo,hi,dt" : "lo,hi,dt,rank";

  std::vector<double> x, t;
  std::vector<std::size_t> lines;
  std::vector<IntervalSample> intervals;
  for (std::size_t i = start; i < records.size(); ++i) {
    const Record& r = records[i];
    if (r.fields.size() != columns) {
      const std::size_t n = r.fields.size();
      const bool other_kind = columns == 2 ? n == 3 || n == 4 : n == 2;
      const bool rank_kind = columns != 2 && (n == 3 || n == 4);
      throw ParseError(name, r.line,
                       "expected " + std::to_string(columns) + " fields (" + layout +
                           ", as on line " + std::to_string(layout_line) + "), got " +
                           std::to_string(n) +
                           (other_kind  ? ": cumulative (x,t) and interval (lo,hi,dt) rows cannot "
                                          "be mixed in one file"
                            : rank_kind ? ": either every row has a rank or none does"
                                        : ""));
    }
    if (columns == 2) {
      x.push_back(text_number(r, 0, "x", name));
      t.push_back(text_number(r, 1, "t", name));
      lines.push_back(r.line);
    } else {
      IntervalSample s{text_number(r, 0, "lo", name), text_number(r, 1, "hi", name),
                       text_number(r, 2, "dt", name)};
      if (columns == 4)
        s.rank = static_cast<int>(parse_index(name, r.line, r.fields[3], "rank", kMaxRankIndex));
      if (const SampleProblem p = check_interval(s); !p.message.empty())
        throw ParseError(
            name, r.line,
            "sample " + std::to_string(intervals.size()) + " (" + fields_of(s) + "): " + p.message);
      intervals.push_back(s);
    }
  }
  if (columns == 2)
    return cumulative_from_file(std::move(x), std::move(t), lines, lines, name, repair);
  return Samples(std::move(intervals));
}

}  // namespace isocost::detail
