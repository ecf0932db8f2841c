// The particle model of examples/particles (Watts §4.1–4.2): a DSMC-like
// cell grid, its particles and their motion, the real floating-point work a
// particle or a cell costs, and the cell orders the balancers cut.
//
// The domain is the unit square in n × n cells, numbered in Morton (Z) order
// so that a range of the 1-D order is a compact patch of the plane. As in
// Watts's GEC reactor grid (§4.1.2: 330 000 of 580 000 cells live), half the
// cells are dead: particles fly only in the upper half, y in [1/2, 1). There
// a background gas of `per_cell` particles per cell streams freely (periodic
// in x, specular walls in y), and a vortex disc holds `contrast` times the
// background density, its particles circling the disc's centre. Both
// densities are stationary while every particle moves about a cell a step, so
// particles leave their cells, and their owners' ranges, every step. The
// Morton order puts the dead half in the first half of the order and the disc
// inside one sixteenth of it: on 16 ranks an equal split of the cells leaves
// the push work ~12 % efficient, Watts's "approximately 11 percent".
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace particles {

/// The run's size and work; the same on every rank.
struct Model {
  int n = 256;              ///< cells per side, a power of 2
  double per_cell = 2;      ///< background particles per live cell
  double contrast = 10;     ///< the disc's density over the background's
  int collide_units = 9;    ///< DSMC: units of work per particle and step
  int push_units = 6;       ///< PIC push: units per particle and step
  int field_units = 12;     ///< PIC field solve: units per cell and step
  std::uint64_t seed = 12;  ///< the particles' initial state

  std::int64_t cells() const { return std::int64_t{n} * n; }
  std::int64_t vortex_particles() const;      ///< ids [0, this) circle the disc
  std::int64_t background_particles() const;  ///< ids after them stream freely
  std::int64_t particles() const { return vortex_particles() + background_particles(); }
};

/// One particle, trivially copyable so that exchange() moves it as bytes.
/// Background particles carry their velocity in (a, b); vortex particles
/// their radius and angle about the disc's centre, so that their orbits are
/// exact and their density stays that of the start.
struct Particle {
  double x = 0, y = 0;  ///< position
  double a = 0, b = 0;  ///< (vx, vy) per step, or (radius, angle)
  double w = 0;         ///< the particle's own state, changed by its work
  std::int64_t id = 0;
};

/// The Morton key of cell (i, j): the bits of i and j interleaved, j's the
/// higher of each pair, so the lower half of the plane comes first.
std::int64_t morton(std::int64_t i, std::int64_t j);
/// The Morton key of the cell holding (x, y).
std::int64_t cell_of(const Model& m, double x, double y);

/// This rank's share of the particles (every P-th id), at their start.
/// Every rank draws each particle from its id alone, so the particles do not
/// depend on the rank count.
std::vector<Particle> initial_particles(const Model& m, int rank, int ranks);

/// One time step of free flight (or of the orbit): deterministic, the same
/// bits on any rank.
void move(const Model& m, Particle& p);

/// One unit of work is 32 steps of the logistic map r·w·(1 − w): chaotic, so
/// the result depends on every input bit, and a dependency chain the compiler
/// cannot skip. `input` (a cell's particle count or field value) is mixed in
/// first; the work does not depend on it, only the value does.
double work(double w, double input, int units);

/// A cell order made of chunks: the Morton order is cut into chunks of `chunk`
/// consecutive cells (a power of 4: square patches of the plane), and the
/// chunks are laid out in the order `at` (at[k] = the chunk in position k).
/// Element e of a balancer's 1-D distribution is then the cell
/// at[e / chunk]·chunk + e % chunk. The identity is the plain Morton order.
struct CellOrder {
  std::int64_t chunk = 1;
  std::vector<std::int64_t> at;   ///< position → chunk
  std::vector<std::int64_t> pos;  ///< chunk → position

  static CellOrder morton(std::int64_t cells, std::int64_t chunk);
  /// The chunks in the order `at` (a permutation of 0 … G − 1), e.g. a
  /// PiecePlan's order (isocost/pieces.hpp, Watts §4.2).
  static CellOrder from(std::vector<std::int64_t> at, std::int64_t chunk);
  std::int64_t element_of(std::int64_t cell) const {
    return pos[static_cast<std::size_t>(cell / chunk)] * chunk + cell % chunk;
  }
  std::int64_t cell_at(std::int64_t element) const {
    return at[static_cast<std::size_t>(element / chunk)] * chunk + element % chunk;
  }
};

}  // namespace particles
