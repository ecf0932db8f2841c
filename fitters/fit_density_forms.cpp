// The text of the fitted density forms (fit_density_forms.hpp).
#include <string>

#include "fit_density_forms.hpp"
#include "isocost/detail/text.hpp"

namespace isocost::detail {

namespace {
constexpr const char* kAxes = "xyz";
}  // namespace

std::string separable_formula(int d, int n) {
  std::string rho = "rho = fx(x)";
  if (d >= 2) rho += "*fy(y)";
  if (d >= 3) rho += "*fz(z)";
  std::string s = rho + ", each f = sum_k b_k*B(k," + std::to_string(n) +
                  ")(u) (Bernstein, b_k >= 0), u = (t - lo)/width";
  if (d >= 2) s += std::string("; ") + (d == 3 ? "fy, fz" : "fy") + " scaled to mean 1";
  return s;
}

std::string polynomial_formula(const Box& box, int n) {
  static const char* vars[] = {"u", "v", "w"};
  std::string s = "rho = sum c";
  for (int a = 0; a < box.dims; ++a) s += "ijk"[a];
  for (int a = 0; a < box.dims; ++a) s += std::string(a ? "*" : " ") + vars[a] + "^" + "ijk"[a];
  s += ", ";
  for (int a = 0; a < box.dims; ++a) s += std::string(a ? " + " : "") + "ijk"[a];
  s += " <= " + std::to_string(n);
  for (int a = 0; a < box.dims; ++a)
    s += std::string(", ") + vars[a] + " = (" + kAxes[a] + " - " + exact(box.lo[a]) + ")/" +
         exact(box.width(a));
  return s;
}

// rho >= 0 on the check lattice (the polynomial form is not nonnegative by
// construction).
}  // namespace isocost::detail
