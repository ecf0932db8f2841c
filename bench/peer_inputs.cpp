#include "peer_inputs.hpp"

#include <cmath>
#include <numbers>

#include "isocost/error.hpp"

namespace isocost::bench {

std::uint64_t mix(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

namespace {

// Uniform in [0, 1) from 53 bits of mix(key).
double uniform(std::uint64_t key) { return static_cast<double>(mix(key) >> 11) * 0x1.0p-53; }

double sieve(double i) { return std::pow(i + 1, 0.43) / std::log(i + 2); }

double spike(std::uint64_t i) { return uniform(i ^ 0x5eed0001ULL) < 0.01 ? 100 : 1; }

}  // namespace

const char* shape_name(Shape s) {
  switch (s) {
    case Shape::sieve:
      return "sieve";
    case Shape::bell:
      return "bell";
    case Shape::spikes:
      return "spikes";
    case Shape::step:
      return "step";
  }
  return "?";
}

const char* shape_formula(Shape s, int dims) {
  const bool two = dims == 2;
  switch (s) {
    case Shape::sieve:
      return two ? "sieve((u+v)/2*n^2), sieve(k) = (k+1)^0.43/ln(k+2)" : "(i+1)^0.43/ln(i+2)";
    case Shape::bell:
      return two ? "0.05+exp(-|(u,v)-(0.4,0.6)|^2/(2*0.08^2))" : "0.05+exp(-(x-0.4)^2/(2*0.08^2))";
    case Shape::spikes:
      return two ? "100 if uniform(k ^ 0x5eed0001) < 0.01 else 1, k = iy*n+ix"
                 : "100 if uniform(i ^ 0x5eed0001) < 0.01 else 1";
    case Shape::step:
      return two ? "10 if u >= 0.37 and v >= 0.37 else 1" : "1 if x < 0.37 else 10";
  }
  return "?";
}

Shape parse_shape(const std::string& name) {
  for (Shape s : {Shape::sieve, Shape::bell, Shape::spikes, Shape::step})
    if (name == shape_name(s)) return s;
  throw Error("bench_peers: unknown pattern \"" + name + "\" (sieve, bell, spikes, step)");
}

std::vector<double> weights_1d(Shape s, std::int64_t n, std::int64_t lo, std::int64_t hi) {
  std::vector<double> w(static_cast<std::size_t>(hi - lo));
  for (std::int64_t i = lo; i < hi; ++i) {
    const double x = (static_cast<double>(i) + 0.5) / static_cast<double>(n);
    double v = 1;
    switch (s) {
      case Shape::sieve:
        v = sieve(static_cast<double>(i));
        break;
      case Shape::bell:
        v = 0.05 + std::exp(-(x - 0.4) * (x - 0.4) / (2 * 0.08 * 0.08));
        break;
      case Shape::spikes:
        v = spike(static_cast<std::uint64_t>(i));
        break;
      case Shape::step:
        v = x < 0.37 ? 1 : 10;
        break;
    }
    w[static_cast<std::size_t>(i - lo)] = v;
  }
  return w;
}

std::vector<double> weights_2d(Shape s, std::int64_t n, std::int64_t y0, std::int64_t y1) {
  std::vector<double> w(static_cast<std::size_t>(n * (y1 - y0)));
  const double h = 1.0 / static_cast<double>(n);
  std::size_t k = 0;
  for (std::int64_t iy = y0; iy < y1; ++iy) {
    const double v = (static_cast<double>(iy) + 0.5) * h;
    for (std::int64_t ix = 0; ix < n; ++ix, ++k) {
      const double u = (static_cast<double>(ix) + 0.5) * h;
      double c = 1;
      switch (s) {
        case Shape::sieve:
          c = sieve((u + v) / 2 * static_cast<double>(n * n));
          break;
        case Shape::bell: {
          const double d2 = (u - 0.4) * (u - 0.4) + (v - 0.6) * (v - 0.6);
          c = 0.05 + std::exp(-d2 / (2 * 0.08 * 0.08));
          break;
        }
        case Shape::spikes:
          c = spike(static_cast<std::uint64_t>(iy * n + ix));
          break;
        case Shape::step:
          c = u >= 0.37 && v >= 0.37 ? 10 : 1;
          break;
      }
      w[k] = c;
    }
  }
  return w;
}

Points clustered_points(std::int64_t lo, std::int64_t hi) {
  Points p;
  const auto n = static_cast<std::size_t>(hi - lo);
  p.xyz.resize(3 * n);
  p.w.resize(n);
  for (std::int64_t i = lo; i < hi; ++i) {
    const auto k = static_cast<std::size_t>(i - lo);
    const auto key = static_cast<std::uint64_t>(i) << 3;
    const auto cluster = mix(key) % 4;
    for (std::uint64_t a = 0; a < 3; ++a) {
      double x;
      if (cluster == 3) {
        x = uniform(key + 1 + a);
      } else {
        // Box–Muller from two counter-based uniforms (1 − u keeps the log finite).
        const double r = std::sqrt(-2 * std::log(1 - uniform(key + 4 + a)));
        const double g = r * std::cos(2 * std::numbers::pi * uniform(key + 1 + a));
        x = 0.25 * static_cast<double>(cluster + 1) + 0.05 * g;
      }
      p.xyz[3 * k + a] = x;
    }
    p.w[k] = static_cast<double>(1 + mix(key + 7) % 9);
  }
  return p;
}

Slice slice_of(std::int64_t n, int rank, int size) {
  return {n * rank / size, n * (rank + 1) / size};
}

}  // namespace isocost::bench
