// read_grid_density(): per-cell weights as text or the raw "ISOCOSTW" format.
// The first 4 bytes choose the expected shape (dims, cells per axis); the rest
// is the file, written to a temporary file because the reader takes a path.
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <optional>

#include "fuzz_support.hpp"
#include "isocost/density.hpp"

using isocost::fuzz::accepts;
using isocost::fuzz::check;

namespace {

// One file per process, reused by every input (the reader opens it by name);
// removed at exit (libFuzzer ends with exit()).
struct Scratch {
  Scratch() {
    char name[] = "/tmp/isocost-fuzz-grid-XXXXXX";
    if (!mkdtemp(name)) std::abort();
    dir = name;
    path = dir + "/weights";
  }
  ~Scratch() {
    unlink(path.c_str());
    rmdir(dir.c_str());
  }
  std::string dir, path;
};

const std::string& scratch_path() {
  static const Scratch scratch;
  return scratch.path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4 || size > (1 << 16) + 4) return -1;
  isocost::GridShape shape;
  shape.dims = 1 + data[0] % 3;
  for (int a = 0; a < 3; ++a) shape.cells[static_cast<std::size_t>(a)] = 1 + data[a + 1];
  {
    std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 4), static_cast<std::streamsize>(size - 4));
    if (!out) std::abort();
  }
  std::optional<isocost::Density> d;
  if (!accepts([&] { d = isocost::read_grid_density(scratch_path(), shape); })) return 0;

  check(d->dims() == shape.dims, "grid: dims differ from the shape");
  check(std::isfinite(d->total()) && d->total() > 0, "grid: total not finite and > 0");
  const isocost::GridShape* g = d->grid();
  check(g != nullptr, "grid: no grid");
  for (int a = 0; a < shape.dims; ++a)
    check(g->cells[static_cast<std::size_t>(a)] == shape.cells[static_cast<std::size_t>(a)],
          "grid: cells differ from the shape");
  // The whole grid, by cells and by box, holds the total.
  const double all = d->cell_mass({0, 0, 0}, g->cells);
  check(std::abs(all - d->total()) <= 1e-9 * d->total(), "grid: cell_mass(all) != total");
  double box_mass = 0;
  check(accepts([&] { box_mass = d->mass(d->box()); }), "grid: mass(box) refused");
  check(std::abs(box_mass - d->total()) <= 1e-9 * d->total(), "grid: mass(box) != total");
  // Half the box along x holds between nothing and everything.
  isocost::Box half = d->box();
  half.hi[0] = half.lo[0] + 0.5 * half.width(0);
  double half_mass = 0;
  check(accepts([&] { half_mass = d->mass(half); }), "grid: mass(half box) refused");
  check(half_mass >= 0 && half_mass <= d->total() * (1 + 1e-12), "grid: half-box mass outside");
  return 0;
}
