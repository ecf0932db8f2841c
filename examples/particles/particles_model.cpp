#include "particles_model.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "example_support.hpp"

namespace particles {
namespace {

// The live region and the vortex disc, in fractions of the unit square. The
// disc lies inside the Morton block [1/2, 3/4)² (one sixteenth of the order),
// a cell's width clear of its edges at n >= 64.
constexpr double kLiveY = 0.5;
constexpr double kDiscX = 0.625, kDiscY = 0.625, kDiscR = 0.12;
constexpr double kTwoPi = 2 * std::numbers::pi;

// A uniform double in [0, 1) from a particle's id and a draw number k.
double uniform(std::uint64_t seed, std::int64_t id, int k) {
  const std::uint64_t z =
      examples::mix64(seed ^ examples::mix64(static_cast<std::uint64_t>(id) * 8 + k));
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

// The orbit's angular speed: one cell a step at the rim, a shear inside it
// (faster at the centre in angle, slower in distance), so that neighbours
// drift apart and no particle keeps its cell.
double angular_speed(const Model& m, double r) { return (1.5 - 0.5 * r / kDiscR) / (kDiscR * m.n); }

}  // namespace

std::int64_t Model::vortex_particles() const {
  const double disc_cells = std::numbers::pi * kDiscR * kDiscR * static_cast<double>(cells());
  return std::llround((contrast - 1) * per_cell * disc_cells);
}

std::int64_t Model::background_particles() const {
  return std::llround(per_cell * (1 - kLiveY) * static_cast<double>(cells()));
}

std::int64_t morton(std::int64_t i, std::int64_t j) {
  std::int64_t key = 0;
  for (int bit = 0; bit < 31; ++bit) {
    key |= ((i >> bit) & 1) << (2 * bit);
    key |= ((j >> bit) & 1) << (2 * bit + 1);
  }
  return key;
}

std::int64_t cell_of(const Model& m, double x, double y) {
  const auto clamp = [&](double v) {
    return std::clamp<std::int64_t>(static_cast<std::int64_t>(v * m.n), 0, m.n - 1);
  };
  return morton(clamp(x), clamp(y));
}

std::vector<Particle> initial_particles(const Model& m, int rank, int ranks) {
  std::vector<Particle> out;
  const std::int64_t nv = m.vortex_particles(), total = m.particles();
  for (std::int64_t id = rank; id < total; id += ranks) {
    Particle p;
    p.id = id;
    p.w = 0.1 + 0.8 * uniform(m.seed, id, 4);
    if (id < nv) {  // uniform over the disc: radius ∝ √u
      p.a = kDiscR * std::sqrt(uniform(m.seed, id, 0));
      p.b = kTwoPi * uniform(m.seed, id, 1);
      p.x = kDiscX + p.a * std::cos(p.b);
      p.y = kDiscY + p.a * std::sin(p.b);
    } else {  // uniform over the live half; speed 0.5–1.5 cells a step
      p.x = uniform(m.seed, id, 0);
      p.y = kLiveY + (1 - kLiveY) * uniform(m.seed, id, 1);
      const double speed = (0.5 + uniform(m.seed, id, 2)) / m.n;
      const double angle = kTwoPi * uniform(m.seed, id, 3);
      p.a = speed * std::cos(angle);
      p.b = speed * std::sin(angle);
    }
    out.push_back(p);
  }
  return out;
}

void move(const Model& m, Particle& p) {
  if (p.id < m.vortex_particles()) {
    p.b += angular_speed(m, p.a);
    if (p.b >= kTwoPi) p.b -= kTwoPi;
    p.x = kDiscX + p.a * std::cos(p.b);
    p.y = kDiscY + p.a * std::sin(p.b);
    return;
  }
  p.x += p.a;  // periodic in x
  if (p.x >= 1) p.x -= 1;
  if (p.x < 0) p.x += 1;
  p.y += p.b;  // specular walls at y = 1/2 and y = 1
  if (p.y >= 1) {
    p.y = 2 - p.y;
    p.b = -p.b;
  } else if (p.y < kLiveY) {
    p.y = 2 * kLiveY - p.y;
    p.b = -p.b;
  }
}

double work(double w, double input, int units) {
  w += 1e-3 * input;
  w -= std::floor(w);
  for (int k = 0; k < 32 * units; ++k) w = 3.9 * w * (1 - w);
  return w;
}

CellOrder CellOrder::morton(std::int64_t cells, std::int64_t chunk) {
  CellOrder o;
  o.chunk = chunk;
  o.at.resize(static_cast<std::size_t>(cells / chunk));
  for (std::size_t g = 0; g < o.at.size(); ++g) o.at[g] = static_cast<std::int64_t>(g);
  o.pos = o.at;
  return o;
}

CellOrder CellOrder::from(std::vector<std::int64_t> at, std::int64_t chunk) {
  CellOrder o;
  o.chunk = chunk;
  o.at = std::move(at);
  o.pos.resize(o.at.size());
  for (std::size_t k = 0; k < o.at.size(); ++k)
    o.pos[static_cast<std::size_t>(o.at[k])] = static_cast<std::int64_t>(k);
  return o;
}

}  // namespace particles
