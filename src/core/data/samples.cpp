#include "isocost/samples.hpp"

// Samples (samples.hpp): the validated value type, samples from a
// partition, isotonic repair, tabulation, and read_samples() choosing the
// text (samples_text.cpp) or JSON (samples_json.cpp) reader.
#include "isocost/samples.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <numeric>
#include <utility>

#include "core/data/records.hpp"
#include "core/data/samples_internal.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost {

using detail::exact;

namespace {

std::string range_of(const IntervalSample& s) {
  return "[" + exact(s.lo) + ", " + exact(s.hi) + ")";
}

// Indices of `v` ordered by lo (ties by hi), stable so messages are reproducible.
std::vector<std::size_t> order_by_lo(const std::vector<IntervalSample>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return v[a].lo < v[b].lo || (v[a].lo == v[b].lo && v[a].hi < v[b].hi);
  });
  return order;
}

}  // namespace

// ---------------------------------------------------------------------------
// Samples

Samples::Samples(std::vector<IntervalSample> intervals) : intervals_(std::move(intervals)) {
  if (intervals_.empty()) throw Error("samples: expected at least one sample, got none");
  lo_ = std::numeric_limits<double>::infinity();
  hi_ = -lo_;
  for (std::size_t k = 0; k < intervals_.size(); ++k) {
    const IntervalSample& s = intervals_[k];
    if (const detail::SampleProblem p = detail::check_interval(s); !p.message.empty())
      throw Error("samples: sample " + std::to_string(k) + " (" + detail::fields_of(s) +
                  "): " + p.message);
    // A rank on some samples only would leave the others' speed unknown.
    if ((s.rank >= 0) != (intervals_.front().rank >= 0))
      throw Error("samples: sample " + std::to_string(k) + " (" + detail::fields_of(s) + "): " +
                  (s.rank >= 0 ? "has a rank, but sample 0 has none"
                               : "has no rank, but sample 0 has one") +
                  "; every sample has a rank or none does");
    lo_ = std::min(lo_, s.lo);
    hi_ = std::max(hi_, s.hi);
  }
}

Samples Samples::from_cumulative(std::vector<double> x, std::vector<double> t, bool repair) {
  const std::string what = "cumulative samples: ";
  if (x.size() != t.size())
    throw Error(what + std::to_string(x.size()) + " x values but " + std::to_string(t.size()) +
                " t values");
  if (x.size() < 2)
    throw Error(what + "expected at least 2 points (x, t), got " + std::to_string(x.size()));
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (!std::isfinite(x[k]) || !std::isfinite(t[k]))
      throw Error(what + "point " + std::to_string(k) + " (x=" + exact(x[k]) +
                  ", t=" + exact(t[k]) + ") is not finite");
    if (k > 0 && !(x[k] > x[k - 1]))
      throw Error(what + "x must increase strictly, but point " + std::to_string(k) +
                  " has x=" + exact(x[k]) + " after x=" + exact(x[k - 1]));
  }
  if (repair) {
    t = isotonic_regression(t);
  } else {
    for (std::size_t k = 1; k < t.size(); ++k)
      if (t[k] < t[k - 1])
        throw Error(what + "t must not decrease, but point " + std::to_string(k) +
                    " has t=" + exact(t[k]) + " after t=" + exact(t[k - 1]) + " (x=" + exact(x[k]) +
                    "); repair replaces t by its isotonic regression");
  }
  // A point still at t_0 would be an interval with dt = 0, which no interval
  // sample may have (it carries no cost); such a flat start is dropped.
  std::vector<IntervalSample> intervals;
  for (std::size_t k = 1; k < x.size(); ++k)
    if (const double dt = t[k] - t[0]; dt > 0) intervals.push_back({x[0], x[k], dt});
  if (intervals.empty())
    throw Error(what + "t never rises above t_0=" + exact(t[0]) + ": the total cost must be > 0");
  return Samples(std::move(intervals));
}

bool Samples::tiles() const {
  if (intervals_.empty()) return false;
  const auto order = order_by_lo(intervals_);
  for (std::size_t k = 1; k < order.size(); ++k)
    if (intervals_[order[k - 1]].hi != intervals_[order[k]].lo) return false;
  return true;
}

bool Samples::cumulative() const {
  if (intervals_.empty()) return false;
  return std::all_of(intervals_.begin(), intervals_.end(),
                     [&](const IntervalSample& s) { return s.lo == lo_; });
}

void Samples::cumulative_points(std::vector<double>& x, std::vector<double>& t) const {
  if (intervals_.empty()) throw Error("samples: there are no samples to accumulate");
  x.assign(1, lo_);
  t.assign(1, 0.0);
  if (cumulative()) {
    std::vector<std::size_t> order(intervals_.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return intervals_[a].hi < intervals_[b].hi;
    });
    std::size_t previous = 0;
    for (const std::size_t k : order) {
      const IntervalSample& s = intervals_[k];
      // The same interval measured twice: identical repeats collapse, a
      // disagreement has no single cumulative curve through it.
      if (x.size() > 1 && s.hi == x.back()) {
        if (s.dt != t.back())
          throw Error("samples: samples " + std::to_string(previous) + " and " + std::to_string(k) +
                      " both cover " + range_of(s) + " but took dt=" + exact(t.back()) +
                      " and dt=" + exact(s.dt) +
                      "; average repeated measurements or fit a parametric model");
        continue;
      }
      // A longer interval from the common left end cannot have cost less:
      // there is no cumulative curve t(x) through such points (the fuzzer's
      // "0,3,1 / 0,1,2" once came back as a decreasing t).
      if (x.size() > 1 && s.dt < t.back())
        throw Error("samples: sample " + std::to_string(previous) + " [" + exact(lo_) + ", " +
                    exact(x.back()) + ") took dt=" + exact(t.back()) + " but the longer sample " +
                    std::to_string(k) + " " + range_of(s) + " took only dt=" + exact(s.dt) +
                    "; the cumulative cost must not decrease (fit a parametric model, or give "
                    "the points as cumulative (x, t) and --repair)");
      x.push_back(s.hi);
      t.push_back(s.dt);
      previous = k;
    }
    return;
  }
  const auto order = order_by_lo(intervals_);
  long double sum = 0;  // extended accumulation, as for discrete weights
  for (std::size_t k = 0; k < order.size(); ++k) {
    const IntervalSample& s = intervals_[order[k]];
    if (k > 0 && s.lo != x.back()) {
      const IntervalSample& p = intervals_[order[k - 1]];
      throw Error(
          "samples: neither cumulative (one common left end) nor tiling the domain: "
          "sample " +
          std::to_string(order[k - 1]) + " " + range_of(p) + " and sample " +
          std::to_string(order[k]) + " " + range_of(s) +
          (s.lo < p.hi ? " overlap" : " leave a gap") +
          "; samples from several runs need a parametric fit");
    }
    sum += s.dt;
    x.push_back(s.hi);
    t.push_back(static_cast<double>(sum));
  }
}

Samples Samples::merged(const Samples& other) const {
  if (other.intervals_.empty()) return *this;
  if (intervals_.empty()) return other;
  std::vector<IntervalSample> all = intervals_;
  all.insert(all.end(), other.intervals_.begin(), other.intervals_.end());
  return Samples(std::move(all));
}

// ---------------------------------------------------------------------------

Samples samples_from_partition(std::span<const double> cuts, std::span<const double> times,
                               const Speeds* speeds) {
  const std::string what = "samples from a partition: ";
  if (times.empty()) throw Error(what + "expected at least one rank's time, got none");
  if (cuts.size() != times.size() + 1)
    throw Error(what + "expected P + 1 = " + std::to_string(times.size() + 1) + " cuts for P = " +
                std::to_string(times.size()) + " times, got " + std::to_string(cuts.size()));
  if (speeds != nullptr && static_cast<std::size_t>(speeds->ranks()) != times.size())
    throw Error(what + "speeds are given for " + std::to_string(speeds->ranks()) +
                " ranks but there are " + std::to_string(times.size()) + " times");
  for (std::size_t i = 0; i < cuts.size(); ++i) {
    if (!std::isfinite(cuts[i]))
      throw Error(what + detail::expected_got("cut " + std::to_string(i), "a finite value",
                                              exact(cuts[i])));
    if (i > 0 && cuts[i] < cuts[i - 1])
      throw Error(what +
                  detail::expected_got("cut " + std::to_string(i),
                                       "a value >= " + exact(cuts[i - 1]) + " (cut " +
                                           std::to_string(i - 1) + "; cuts must not decrease)",
                                       exact(cuts[i])));
  }
  std::vector<IntervalSample> out;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (cuts[i] == cuts[i + 1]) continue;  // an idle rank measured nothing
    const double time = times[i];
    if (!std::isfinite(time) || !(time > 0))
      throw Error(what +
                  detail::expected_got("time of rank " + std::to_string(i) + ", which owns [" +
                                           exact(cuts[i]) + ", " + exact(cuts[i + 1]) + ")",
                                       "a finite time > 0", exact(time)));
    const double dt = speeds != nullptr ? time * speeds->speed(static_cast<int>(i)) : time;
    out.push_back({cuts[i], cuts[i + 1], dt});
  }
  if (out.empty())
    throw Error(what + "every rank's range is empty (all cuts are " + exact(cuts[0]) + ")");
  return Samples(std::move(out));
}

Samples read_samples(std::istream& in, const std::string& name, bool repair) {
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw Error(name + ": read error");
  detail::strip_bom(text);
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) throw ParseError(name, 1, "no samples in the file");
  if (text[first] == '{' || text[first] == '[')
    return detail::read_samples_json(text, name, repair);
  return detail::read_samples_text(text, name, repair);
}

Samples read_samples(const std::string& path, bool repair) {
  auto in = detail::open_for_reading(path);
  return read_samples(in, path, repair);
}

std::vector<double> isotonic_regression(std::span<const double> y,
                                        std::span<const double> weights) {
  if (!weights.empty() && weights.size() != y.size())
    throw Error("isotonic regression: " + std::to_string(y.size()) + " values but " +
                std::to_string(weights.size()) + " weights");
  struct Block {
    double mean;
    double weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  blocks.reserve(y.size());
  for (std::size_t k = 0; k < y.size(); ++k) {
    const double w = weights.empty() ? 1.0 : weights[k];
    if (!std::isfinite(y[k]))
      throw Error(detail::expected_got("isotonic regression: value " + std::to_string(k),
                                       "a finite value", exact(y[k])));
    if (!std::isfinite(w) || !(w > 0))
      throw Error(detail::expected_got("isotonic regression: weight " + std::to_string(k),
                                       "a finite value > 0", exact(w)));
    blocks.push_back({y[k], w, 1});
    // Pool while the last two blocks are out of order. Every pool removes a
    // block for good, so the whole pass is O(n). Equal neighbours stay apart,
    // which leaves already-monotone input bit for bit unchanged.
    while (blocks.size() >= 2 && blocks[blocks.size() - 2].mean > blocks.back().mean) {
      const Block b = blocks.back();
      blocks.pop_back();
      Block& a = blocks.back();
      const double total = a.weight + b.weight;
      // The weighted mean as an update of a's mean: no products w·y that could overflow.
      a.mean += (b.mean - a.mean) * (b.weight / total);
      a.weight = total;
      a.count += b.count;
    }
  }
  std::vector<double> z;
  z.reserve(y.size());
  for (const Block& b : blocks) z.insert(z.end(), b.count, b.mean);
  return z;
}

CostModel tabulate(const Samples& samples, Interpolation interpolation) {
  try {
    std::vector<double> x, t;
    samples.cumulative_points(x, t);
    return tabulated_model(std::move(x), std::move(t), interpolation);
  } catch (const Error& e) {
    throw Error(std::string("cannot tabulate: ") + e.what());
  }
}

}  // namespace isocost
