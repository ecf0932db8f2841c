// Test support: change one field of an options struct (options.hpp), to check
// that every field reaches validation, the JSON form and the agreement hash.
//
//   for (std::size_t k = 0; k < isocost::field_count(o); ++k) {
//     auto changed = o;
//     const std::string name = isocost::testing::mutate_field(changed, k);
//     EXPECT_NE(isocost::options_hash(changed), isocost::options_hash(o)) << name;
//   }
#pragma once

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "isocost/options.hpp"

namespace isocost::testing {

namespace mutation {

/// A value in `r` other than `v`, preferring valid ones near v.
inline double other_number(double v, const Range& r, bool integer) {
  const double inf = std::numeric_limits<double>::infinity();
  const double step = integer ? 1.0 : (std::isfinite(v) && v != 0 ? std::abs(v) * 0.25 : 0.125);
  const double base = std::isfinite(v) ? v : 1.0;
  const double candidates[] = {base + step,
                               base - step,
                               std::isfinite(r.lo) ? (r.lo + base) / 2 : base / 2,
                               std::isfinite(r.hi) ? (base + r.hi) / 2 : base * 2,
                               std::isfinite(r.lo) && std::isfinite(r.hi) ? (r.lo + r.hi) / 2 : 2.0,
                               r.lo,
                               r.hi,
                               2.0,
                               0.5};
  for (double c : candidates) {
    if (integer) c = std::round(c);
    if (c != v && r.contains(c)) return c;
  }
  if (!integer && v != inf && r.infinity) return inf;
  return std::isfinite(v) ? v + 1 : 1.0;  // out of range: the options become invalid
}

template <class T>
T changed(const T& value, const Range& r);

template <class T>
T a_value(const Range& r) {
  if constexpr (HasFields<T>) {
    return T{};  // an empty optional becomes the defaults: a different setting
  } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    const double inf = std::numeric_limits<double>::infinity();
    double v = std::isfinite(r.lo) ? (r.lo_open ? r.lo + 1 : r.lo) : 0.0;
    if (std::isfinite(r.hi) && !r.contains(v)) v = (r.lo + r.hi) / 2;
    if (!r.contains(v) && r.infinity) v = inf;
    return static_cast<T>(v);
  } else {
    return changed(T{}, r);
  }
}

template <class T>
T changed(const T& value, const Range& r) {
  using detail::is_function;
  using detail::is_optional;
  using detail::is_std_array;
  using detail::is_string_map;
  using detail::is_vector;
  if constexpr (std::is_same_v<T, bool>) {
    return !value;
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(other_number(static_cast<double>(value), r, true));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(other_number(static_cast<double>(value), r, false));
  } else if constexpr (std::is_enum_v<T>) {
    using U = std::underlying_type_t<T>;
    for (int d : {1, -1, 2, -2}) {
      const T e = static_cast<T>(static_cast<U>(static_cast<long long>(value) + d));
      if (std::string(to_string(e)) != "?") return e;
    }
    return static_cast<T>(static_cast<U>(static_cast<long long>(value) + 1));
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value + "x";
  } else if constexpr (is_function<T>::value) {
    if (value) return T{};
    return T([](auto&&...) -> typename T::result_type {
      throw std::logic_error("a callback set by mutate_field, not meant to run");
    });
  } else if constexpr (is_optional<T>::value) {
    if (value) return T{};
    return T(a_value<typename T::value_type>(r));
  } else if constexpr (is_vector<T>::value) {
    T v = value;
    if (v.empty())
      v.push_back(a_value<typename T::value_type>(r));
    else
      v[0] = changed(v[0], r);
    return v;
  } else if constexpr (is_std_array<T>::value) {
    T v = value;
    v[0] = changed(v[0], r);
    return v;
  } else if constexpr (is_string_map<T>::value) {
    T v = value;
    v["mutated"] = v.count("mutated") ? v["mutated"] + 1 : 1.0;
    return v;
  } else if constexpr (ValueList<T>) {
    auto values = value.values();
    values[0] = other_number(
        values[0], r.lo == -std::numeric_limits<double>::infinity() ? above(0) : r, false);
    return T::from_values(values);
  } else {
    static_assert(sizeof(T) == 0, "mutate_field: a field type it does not know");
  }
}

struct Mutator {
  std::size_t target = 0;
  std::size_t index = 0;
  std::string prefix = {};
  std::string name = {};

  template <class T>
  void operator()(std::string_view field, T& value, const Range& r = any_value) {
    if (!name.empty()) return;
    if constexpr (HasFields<T>) {
      Mutator inner{target, index, prefix + std::string(field) + "."};
      T::fields(value, inner);
      index = inner.index;
      name = inner.name;
    } else {
      if (index++ == target) {
        value = changed(value, r);
        name = prefix + std::string(field);
      }
    }
  }
};

}  // namespace mutation

/// Changes leaf field number `k` (0 <= k < field_count(o), declaration order,
/// nested fields in place) to another value — valid where its Range allows
/// one — and returns its name ("plan.cut.cost_tolerance").
template <HasFields O>
std::string mutate_field(O& o, std::size_t k) {
  mutation::Mutator m{k};
  O::fields(o, m);
  if (m.name.empty()) throw std::out_of_range("mutate_field: no field " + std::to_string(k));
  return m.name;
}

}  // namespace isocost::testing
