// Reachable boundaries of non-empty parts, slice by slice (reach.hpp).
#include "core/shared/reach.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "isocost/error.hpp"

namespace isocost::detail {

namespace {
constexpr std::int64_t kBlock = 64;  // cells (or blocks) per block of the next level
}  // namespace

HeavyCells::HeavyCells(std::span<const double> pre) : pre_(pre) {
  const auto n = static_cast<std::int64_t>(pre.size()) - 1;
  for (const double v : pre) largest_ = std::max(largest_, std::abs(v));
  std::vector<double> level(
      std::max<std::size_t>(1, static_cast<std::size_t>((n + kBlock - 1) / kBlock)), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    auto& m = level[static_cast<std::size_t>(i / kBlock)];
    m = std::max(m, pre[static_cast<std::size_t>(i + 1)] - pre[static_cast<std::size_t>(i)]);
  }
  while (level.size() > 1) {
    std::vector<double> up((level.size() + kBlock - 1) / kBlock, 0.0);
    for (std::size_t b = 0; b < level.size(); ++b)
      up[b / kBlock] = std::max(up[b / kBlock], level[b]);
    levels_.push_back(std::move(level));
    level = std::move(up);
  }
  levels_.push_back(std::move(level));
}

double HeavyCells::below(double c) const {
  // A cell fails pre[i+1] <= pre[i] + c only if its rounded weight exceeds
  // c less the rounding of either side (a few ulps of the largest sum).
  return c - 1e-15 * (largest_ + std::abs(c));
}

std::int64_t HeavyCells::next(std::int64_t from, std::int64_t to, double c) const {
  const double below = this->below(c);
  std::int64_t i = from;
  while (i < to) {
    bool skipped = false;
    for (auto l = static_cast<std::int64_t>(levels_.size()) - 1; l >= 0 && !skipped; --l) {
      const std::int64_t size = kBlock << (6 * l);  // 64^(l+1) cells
      if (i % size == 0 && i + size <= to &&
          levels_[static_cast<std::size_t>(l)][static_cast<std::size_t>(i / size)] < below) {
        i += size;
        skipped = true;
      }
    }
    if (skipped) continue;
    if (pre_[static_cast<std::size_t>(i + 1)] > pre_[static_cast<std::size_t>(i)] + c) return i;
    ++i;
  }
  return to;
}

bool backward_bounds(std::span<const double> pre, std::int64_t first, std::span<const double> s,
                     double B, Backward& st, std::vector<std::int64_t>& lb, double& next) {
  const auto n = static_cast<std::int64_t>(pre.size()) - 1;
  while (st.j >= 0) {
    const double c = B * s[static_cast<std::size_t>(st.j)];
    if (st.q - 1 < first) return true;
    const std::int64_t hi = std::min(st.q - 1, first + n);
    const auto end = pre.begin() + (hi - first) + 1;
    // The first p whose part reaches q, tested as the forward rows test it.
    const std::int64_t p =
        first + (std::partition_point(pre.begin(), end, [&](double v) { return st.t > v + c; }) -
                 pre.begin());
    if (p == first && first > 0) return true;  // it may start earlier still
    // The bound moves down once the part from the boundary below p fits.
    const std::int64_t below = std::min(p, first + n + 1) - 1;
    if (below >= first)
      next = std::min(next, (st.t - pre[static_cast<std::size_t>(below - first)]) /
                                s[static_cast<std::size_t>(st.j)]);
    Backward on{st.j - 1, p, st.t};
    if (p > first + n) {
      on = {st.j - 1, first + n, pre[static_cast<std::size_t>(n)]};  // a weaker bound, still one
    } else if (p < st.q) {
      on.t = pre[static_cast<std::size_t>(p - first)];
    }
    lb[static_cast<std::size_t>(st.j)] = std::max(p, st.j);
    st = on;
  }
  return false;
}

ReachableRows::ReachableRows(std::span<const double> pre, std::int64_t first, std::int64_t N,
                             std::span<const double> s)
    : pre_(pre),
      first_(first),
      n_(static_cast<std::int64_t>(pre.size()) - 1),
      N_(N),
      s_(s),
      heavy_(pre) {}

std::int64_t ReachableRows::reach(double limit) const {
  return first_ + (std::upper_bound(pre_.begin(), pre_.end(), limit) - pre_.begin()) - 1;
}

std::vector<Boundary> ReachableRows::run(double B, std::span<const Boundary> in,
                                         std::span<const std::int64_t> lb) {
  const auto m = static_cast<std::int64_t>(s_.size());
  const std::int64_t last = first_ + n_;
  spans_.clear();
  starts_.assign(static_cast<std::size_t>(m) + 2, 0);
  next_ = std::numeric_limits<double>::infinity();
  std::vector<Boundary> out(static_cast<std::size_t>(m) + 1);
  out[0] = in[0];  // R_0 = {0}, owned by no slice
  heavy_list_.clear();
  const double c_min = B * *std::min_element(s_.begin(), s_.end());
  for (std::int64_t i = heavy_.next(0, n_, c_min); i < n_; i = heavy_.next(i + 1, n_, c_min))
    heavy_list_.push_back(first_ + i);
  std::vector<std::int64_t> heavy;
  for (std::int64_t j = 0; j < m; ++j) {
    const auto uj = static_cast<std::size_t>(j);
    const double c = B * s_[uj];
    const std::size_t row0 = starts_[uj], row1 = starts_[uj + 1], begin = spans_.size();
    // R_{j+1}'s window here: useful (>= lb), after j + 1 cells, leaving
    // a cell for each later part.
    const std::int64_t lo = std::max({lb[uj + 1], j + 1, first_ + 1});
    const std::int64_t hi = std::min(N_ - (m - j - 1), last);
    const auto emit = [&](std::int64_t a, std::int64_t b) {
      a = std::max(a, lo);
      b = std::min(b, hi);
      if (a > b) return;
      if (spans_.size() > begin && spans_.back().hi + 1 >= a)
        spans_.back().hi = std::max(spans_.back().hi, b);
      else
        spans_.push_back({a, b});
    };
    // Boundary k, not in R_{j+1}, whose part would start at t_from: it
    // joins at B = (P[k] − t_from)/s_j, the first of a gap where P is least.
    const auto gap = [&](std::int64_t k, std::int64_t end, double t_from) {
      k = std::max(k, lo);
      if (k <= std::min(end, hi)) next_ = std::min(next_, (at(k) - t_from) / s_[uj]);
    };
    if (lo <= hi) {
      // Up to R_j's first element here, parts start at in[j].
      const std::int64_t x0 = row1 > row0 ? spans_[row0].lo : last;
      if (in[uj].pos >= 0) {
        const std::int64_t r = reach(in[uj].t + c);
        emit(first_ + 1, std::min(x0, r));
        gap(std::max(r + 1, first_ + 1), x0, in[uj].t);
      }
      for (std::size_t i = row0; i < row1; ++i) {
        const Span sp = spans_[i];  // a copy: emit() may reallocate
        const std::int64_t next_lo = i + 1 < row1 ? spans_[i + 1].lo : last;
        // Boundary k in (sp.lo, sp.hi + 1]: its part is cell k − 1 alone.
        const std::int64_t cell_end = std::min(sp.hi, last - 1);
        heavy.clear();
        if (heavy_.any(c)) heavy_in(sp.lo, cell_end, c, heavy);
        heavy.push_back(cell_end + 1);  // a sentinel
        std::int64_t cell = sp.lo;
        for (const std::int64_t h : heavy) {
          if (cell > cell_end) break;
          if (h > cell) emit(cell + 1, h);
          if (h <= cell_end) gap(h + 1, h + 1, at(h));  // cell h alone is too heavy
          cell = h + 1;
        }
        // Cell cell_end fits: the boundaries go on past it.
        const bool all_light =
            sp.lo <= cell_end && (heavy.size() == 1 || heavy[heavy.size() - 2] < cell_end);
        // Beyond sp.hi + 1, parts start at sp.hi.
        if (all_light && sp.hi < last) {
          const std::int64_t r = reach(at(sp.hi) + c);
          emit(sp.hi + 2, std::min(next_lo, r));
          gap(std::max(r + 1, sp.hi + 2), next_lo, at(sp.hi));
        }
      }
    }
    starts_[uj + 2] = spans_.size();
    out[uj + 1] =
        spans_.size() > begin ? Boundary{spans_.back().hi, at(spans_.back().hi)} : in[uj + 1];
  }
  return out;
}

void ReachableRows::heavy_in(std::int64_t from, std::int64_t to, double c,
                             std::vector<std::int64_t>& out) const {
  for (auto it = std::lower_bound(heavy_list_.begin(), heavy_list_.end(), from);
       it != heavy_list_.end() && *it <= to; ++it)
    if (at(*it + 1) > at(*it) + c) out.push_back(*it);
}

bool ReachableRows::reaches_end() const {
  const auto m = s_.size();
  return first_ + n_ == N_ && starts_[m + 1] > starts_[m] && spans_[starts_[m + 1] - 1].hi == N_;
}

Boundary ReachableRows::latest_below(std::int64_t j, std::int64_t k) const {
  const auto b = spans_.begin() + static_cast<std::ptrdiff_t>(starts_[static_cast<std::size_t>(j)]);
  const auto e =
      spans_.begin() + static_cast<std::ptrdiff_t>(starts_[static_cast<std::size_t>(j) + 1]);
  const auto it = std::partition_point(b, e, [&](const Span& sp) { return sp.lo < k; });
  if (it == b) return {};
  const std::int64_t pos = std::min(std::prev(it)->hi, k - 1);
  return {pos, at(pos)};
}

bool reach_probe(std::span<const double> P, std::span<const double> s, double B,
                 ReachableRows& rows, std::vector<std::int64_t>& cuts, double& next) {
  const auto n = static_cast<std::int64_t>(P.size()) - 1;
  const auto m = static_cast<std::int64_t>(s.size());
  std::vector<std::int64_t> lb(static_cast<std::size_t>(m) + 1, 0);
  lb[static_cast<std::size_t>(m)] = n;
  Backward st{m - 1, n, P[static_cast<std::size_t>(n)]};
  next = std::numeric_limits<double>::infinity();
  backward_bounds(P, 0, s, B, st, lb, next);
  std::vector<Boundary> in(static_cast<std::size_t>(m) + 1);
  in[0] = {0, P[0]};
  rows.run(B, in, lb);
  next = std::min(next, rows.next_event());
  next = std::isfinite(next) ? std::max(B, next) : B;  // none: no bound
  if (!rows.reaches_end()) return false;
  cuts.assign(static_cast<std::size_t>(m) + 1, 0);
  cuts[static_cast<std::size_t>(m)] = n;
  for (std::int64_t j = m - 1; j >= 1; --j) {
    const Boundary b = rows.latest_below(j, cuts[static_cast<std::size_t>(j) + 1]);
    if (b.pos < 0) throw Error("bottleneck_cuts: internal error: a reached boundary has no start");
    cuts[static_cast<std::size_t>(j)] = b.pos;
  }
  return true;
}

}  // namespace isocost::detail
