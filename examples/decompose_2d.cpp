// Two-dimensional decomposition of a cost density (Swartz §5): a hot spot on
// the unit square, rho(x, y) = 1 + 20·exp(−|p − c|²/0.02), split over 12 ranks
// first as a jagged 2 × 6 process grid (2 columns in x, each cut into 6 parts
// along y using its own marginal), then with the process grid that
// choose_process_grid() finds best (equal balance, least cut surface). Exits 1 if a decomposition
// loses cost, does not tile the square or has L_E < 99 %.   Run: ./decompose_2d
#include <cmath>
#include <cstdio>
#include <span>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/partition.hpp"

namespace {

// Did the parts keep all of the cost and cover the whole box, and is the
// predicted balance as good as a continuous density allows?
bool check(const isocost::Decomposition& d, const isocost::Density& rho) {
  double cost = 0, volume = 0;
  for (const isocost::Part& part : d.parts) {
    cost += part.cost;
    volume += part.volume;
  }
  const bool ok = d.converged() && std::abs(cost - rho.total()) <= 1e-6 * rho.total() &&
                  std::abs(volume - rho.box().volume()) <= 1e-9 && d.predicted_le >= 99.0;
  if (!ok)
    std::printf("FAIL: cost %.6g of %.6g, volume %.6g, L_E %.2f %%\n", cost, rho.total(), volume,
                d.predicted_le);
  return ok;
}

}  // namespace

int main() {
  // The density: a formula over a box; masses come from adaptive quadrature.
  const isocost::Density rho = isocost::analytic_density(
      [](std::span<const double> p) {
        const double dx = p[0] - 0.3, dy = p[1] - 0.7;
        return 1.0 + 20.0 * std::exp(-(dx * dx + dy * dy) / 0.02);
      },
      isocost::Box::of({0, 0}, {1, 1}));
  std::printf("density: %s, total cost %.4f\n", rho.describe().c_str(), rho.total());

  const auto speeds = isocost::Speeds::uniform(12);

  // 1. A jagged grid we pick ourselves: level 0 cuts x into 2 columns, level 1
  //    cuts each column along y into 6 parts.
  const isocost::ProcessGrid jagged{{2, 6}, {0, 1}};
  const isocost::Decomposition d = isocost::decompose(rho, jagged, speeds);
  std::printf("jagged: %s\n", d.brief_report().c_str());
  for (const isocost::Part& part : d.parts)
    if (part.rank % 6 == 0)  // the bottom part of each column
      std::printf("  rank %2d  [%.3f, %.3f] x [%.3f, %.3f]  cost %.4f\n", part.rank, part.box.lo[0],
                  part.box.hi[0], part.box.lo[1], part.box.hi[1], part.cost);

  // 2. Let the library try every factorisation of 12 and every axis order.
  const isocost::Decomposition best = isocost::choose_process_grid(rho, speeds);
  std::printf("chosen: %s\n", best.brief_report().c_str());

  return check(d, rho) && check(best, rho) ? 0 : 1;
}
