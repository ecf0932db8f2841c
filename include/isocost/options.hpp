// isocost/options.hpp — the one contract every Options struct follows.
//
// Every `*Options` struct lists its fields once, in a static member template
// `fields(self, visitor)`; that list drives
//   - validation:  check_fields(options, &why) — each field against its Range,
//                  nested options recursively (their own is_valid());
//   - the JSON form: options_json(options) — every field, in order, for the
//                  "options" a result reports and for logs;
//   - the cross-rank agreement hash: options_hash(options) — every field, so
//                  two ranks with any field different never agree (the mpi
//                  layer compares it before any collective path diverges).
// A field added to a struct but not to its list is a field nobody checks,
// prints or compares: review `fields` together with the declarations.
//
//   struct CutOptions {
//     CutMethod method = CutMethod::newton;
//     double cost_tolerance = 1e-12;
//     int max_iterations = 100;
//     template <class Self, class V>
//     static void fields(Self& self, V&& v) {
//       v("method", self.method);
//       v("cost_tolerance", self.cost_tolerance, at_least(0));
//       v("max_iterations", self.max_iterations, at_least(1));
//     }
//     bool is_valid(std::string* why) const { return check_fields(*this, why); }
//     void validate() const { validate_options(*this, "cut options"); }
//   };
//
// Field types: bool; integers; double (finite unless the Range says
// or_infinity()); enums with a to_string() found by ADL that returns "?" for
// values that are not enumerators; std::string; std::optional, std::vector
// and std::array of those; std::map<std::string, double>; std::function
// (only whether it is set is checked, printed and hashed); value types with
// `values()` and `from_values()` (Speeds: a vector of doubles); and nested
// structs with their own `fields`. A Range given for a vector, array or
// optional applies to each element.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "isocost/detail/text.hpp"

namespace isocost {

/// An interval of allowed values of a numeric field. NaN is never allowed;
/// ±∞ only with or_infinity().
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  bool infinity = false;  ///< +∞ allowed (e.g. "no cap")

  /// The same range with +∞ allowed too.
  constexpr Range or_infinity() const noexcept {
    Range r = *this;
    r.infinity = true;
    return r;
  }
  /// True if v is allowed.
  bool contains(double v) const noexcept {
    if (std::isnan(v)) return false;
    if (std::isinf(v)) return infinity && v > 0 && hi == std::numeric_limits<double>::infinity();
    return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  }
  /// "a finite number >= 0", "in (0, 1]", ">= 1" (integers), "+inf or a finite number > 0".
  std::string describe(bool integer) const;
};

/// Any finite value (integers: any value).
inline constexpr Range any_value{};
/// v >= lo.
constexpr Range at_least(double lo) noexcept {
  return {lo, std::numeric_limits<double>::infinity()};
}
/// v > lo.
constexpr Range above(double lo) noexcept {
  return {lo, std::numeric_limits<double>::infinity(), true, false};
}
/// lo <= v <= hi.
constexpr Range closed(double lo, double hi) noexcept { return {lo, hi}; }
/// lo < v < hi.
constexpr Range open(double lo, double hi) noexcept { return {lo, hi, true, true}; }
/// lo < v <= hi.
constexpr Range left_open(double lo, double hi) noexcept { return {lo, hi, true, false}; }
/// lo <= v < hi.
constexpr Range right_open(double lo, double hi) noexcept { return {lo, hi, false, true}; }

namespace detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_std_array : std::false_type {};
template <class T, std::size_t N>
struct is_std_array<std::array<T, N>> : std::true_type {};
template <class T>
struct is_function : std::false_type {};
template <class F>
struct is_function<std::function<F>> : std::true_type {};
template <class T>
struct is_string_map : std::false_type {};
template <class C, class A>
struct is_string_map<std::map<std::string, double, C, A>> : std::true_type {};

/// A visitor that accepts any field and does nothing (to detect `fields`).
struct NullVisitor {
  template <class T>
  void operator()(std::string_view, const T&) const {}
  template <class T>
  void operator()(std::string_view, const T&, const Range&) const {}
};

}  // namespace detail

/// True for structs that list their fields (`static void fields(self, v)`).
template <class T>
concept HasFields = requires(const T& t) {
  T::fields(t, detail::NullVisitor{});
};

/// True for value types that are a list of doubles (Speeds).
template <class T>
concept ValueList = requires(const T& t) {
  { t.values() } -> std::convertible_to<std::vector<double>>;
  { T::from_values(std::vector<double>{}) } -> std::convertible_to<T>;
};

/// True for enums with a to_string() found by argument-dependent lookup.
template <class T>
concept NamedEnum = std::is_enum_v<T> && requires(T e) {
  std::string(to_string(e));
};

namespace detail {

/// Number formatting shared with the JSON writer (text.hpp's exact()).
std::string json_number(double value);
/// A JSON string literal with escapes.
std::string json_quote(std::string_view text);

// -- validation --------------------------------------------------------------

struct FieldChecker {
  std::string prefix = {};
  std::string* why = nullptr;
  bool ok = true;

  void fail(std::string_view name, const std::string& expected, const std::string& got) {
    if (!ok) return;
    ok = false;
    if (why) *why = prefix + expected_got(name, expected, got);
  }

  template <class T>
  void check(std::string_view name, const T& value, const Range& range) {
    if (!ok) return;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                  is_function<T>::value) {
      // Any value is valid.
    } else if constexpr (std::is_arithmetic_v<T>) {
      if (!range.contains(static_cast<double>(value)))
        fail(name, range.describe(std::is_integral_v<T>),
             std::is_integral_v<T> ? std::to_string(value) : exact(static_cast<double>(value)));
    } else if constexpr (NamedEnum<T>) {
      if (std::string(to_string(value)) == "?")
        fail(name, "one of its named values",
             std::to_string(static_cast<long long>(static_cast<std::underlying_type_t<T>>(value))));
    } else if constexpr (is_optional<T>::value) {
      if (value) check(name, *value, range);
    } else if constexpr (is_vector<T>::value || is_std_array<T>::value) {
      for (std::size_t i = 0; i < value.size() && ok; ++i)
        check(std::string(name) + "[" + std::to_string(i) + "]", value[i], range);
    } else if constexpr (is_string_map<T>::value) {
      for (const auto& [key, v] : value) check(std::string(name) + "." + key, v, range);
    } else if constexpr (ValueList<T>) {
      const auto values = value.values();
      for (std::size_t i = 0; i < values.size() && ok; ++i)
        check(std::string(name) + "[" + std::to_string(i) + "]", values[i], range);
    } else if constexpr (HasFields<T>) {
      std::string nested;
      if constexpr (requires { value.is_valid(&nested); }) {
        if (!value.is_valid(&nested)) {
          ok = false;
          if (why) *why = prefix + std::string(name) + "." + nested;
        }
      } else {
        FieldChecker inner{prefix + std::string(name) + ".", why};
        T::fields(value, inner);
        ok = inner.ok;
      }
    } else {
      static_assert(sizeof(T) == 0, "a field type options.hpp does not know");
    }
  }
  template <class T>
  void operator()(std::string_view name, const T& value, const Range& range = any_value) {
    check(name, value, range);
  }
};

// -- hashing (FNV-1a, 64 bits) -------------------------------------------------

struct FieldHasher {
  std::uint64_t h = 1469598103934665603ull;

  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void text(std::string_view s) {
    const std::uint64_t n = s.size();
    bytes(&n, sizeof n);
    bytes(s.data(), s.size());
  }
  void number(double v) {
    if (v == 0) v = 0;  // -0 and +0 are the same setting
    bytes(&v, sizeof v);
  }

  template <class T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      const unsigned char b = v ? 1 : 0;
      bytes(&b, 1);
    } else if constexpr (std::is_integral_v<T>) {
      const long long x = static_cast<long long>(v);
      bytes(&x, sizeof x);
    } else if constexpr (std::is_floating_point_v<T>) {
      number(static_cast<double>(v));
    } else if constexpr (std::is_enum_v<T>) {
      const long long x = static_cast<long long>(static_cast<std::underlying_type_t<T>>(v));
      bytes(&x, sizeof x);
    } else if constexpr (std::is_same_v<T, std::string>) {
      text(v);
    } else if constexpr (is_function<T>::value) {
      value(static_cast<bool>(v));  // only whether it is set can be compared
    } else if constexpr (is_optional<T>::value) {
      value(v.has_value());
      if (v) value(*v);
    } else if constexpr (is_vector<T>::value || is_std_array<T>::value) {
      value(v.size());
      for (const auto& x : v) value(x);
    } else if constexpr (is_string_map<T>::value) {
      value(v.size());
      for (const auto& [key, x] : v) {
        text(key);
        number(x);
      }
    } else if constexpr (ValueList<T>) {
      value(v.values());
    } else if constexpr (HasFields<T>) {
      T::fields(v, *this);
    } else {
      static_assert(sizeof(T) == 0, "a field type options.hpp does not know");
    }
  }
  template <class T>
  void operator()(std::string_view name, const T& v, const Range& = any_value) {
    text(name);
    value(v);
  }
};

// -- JSON ----------------------------------------------------------------------

struct FieldJson {
  std::string out;
  bool first = true;

  template <class T>
  static std::string value(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(v);
    } else if constexpr (std::is_floating_point_v<T>) {
      return json_number(static_cast<double>(v));
    } else if constexpr (NamedEnum<T>) {
      return json_quote(std::string(to_string(v)));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return json_quote(v);
    } else if constexpr (is_function<T>::value) {
      return v ? "\"set\"" : "null";
    } else if constexpr (is_optional<T>::value) {
      return v ? value(*v) : "null";
    } else if constexpr (is_vector<T>::value || is_std_array<T>::value) {
      std::string s = "[";
      for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + value(v[i]);
      return s + "]";
    } else if constexpr (is_string_map<T>::value) {
      std::string s = "{";
      bool f = true;
      for (const auto& [key, x] : v) {
        s += (f ? "" : ",") + json_quote(key) + ":" + json_number(x);
        f = false;
      }
      return s + "}";
    } else if constexpr (ValueList<T>) {
      return value(v.values());
    } else if constexpr (HasFields<T>) {
      FieldJson inner;
      T::fields(v, inner);
      return inner.finish();
    } else {
      static_assert(sizeof(T) == 0, "a field type options.hpp does not know");
    }
  }
  template <class T>
  void operator()(std::string_view name, const T& v, const Range& = any_value) {
    out += (first ? "{" : ",") + json_quote(name) + ":" + value(v);
    first = false;
  }
  std::string finish() const { return first ? "{}" : out + "}"; }
};

// Leaf fields as "path<TAB>value" lines, values as in the JSON form.
struct FieldLines {
  std::string prefix = {};
  std::string out = {};
  template <class T>
  void operator()(std::string_view name, const T& v, const Range& = any_value) {
    if constexpr (HasFields<T>) {
      FieldLines inner{prefix + std::string(name) + ".", {}};
      T::fields(v, inner);
      out += inner.out;
    } else {
      out += prefix + std::string(name) + "\t" + FieldJson::value(v) + "\n";
    }
  }
};

struct FieldCounter {
  std::size_t n = 0;
  template <class T>
  void operator()(std::string_view, const T& v, const Range& = any_value) {
    if constexpr (HasFields<T>)
      T::fields(v, *this);
    else
      ++n;
  }
};

}  // namespace detail

/// True if every field of `options` is within its Range (nested options: their
/// is_valid()); otherwise false and, if `why` is given, "field: expected
/// <expected>, got <value>" for the first bad field ("a.b: expected …" when
/// nested).
template <HasFields O>
bool check_fields(const O& options, std::string* why) {
  detail::FieldChecker c{"", why};
  O::fields(options, c);
  return c.ok;
}

/// A hash of every field of `options` (FNV-1a over names and values): equal
/// options hash equal on every rank; any changed field changes it.
template <HasFields O>
std::uint64_t options_hash(const O& options) {
  detail::FieldHasher h;
  O::fields(options, h);
  return h.h;
}

/// Every field of `options` as one JSON object on one line, in declaration
/// order: numbers exactly (shortest round trip), +∞ as the string "inf", enums
/// by name, an unset optional or callback as null, a set callback as "set".
template <HasFields O>
std::string options_json(const O& options) {
  detail::FieldJson j;
  O::fields(options, j);
  return j.finish();
}

/// Every leaf field of `options` as one "path<TAB>value" line, in order
/// ("cut.cost_tolerance\t1e-12\n"; values as in options_json()): what the
/// mpi layer compares field by field to name the fields two ranks disagree on.
template <HasFields O>
std::string options_lines(const O& options) {
  detail::FieldLines lines;
  O::fields(options, lines);
  return lines.out;
}

/// The fields where `mine` and `theirs` (two options_lines() texts) differ:
/// "alpha 0.1 (rank 0: 0.05), scheme \"cn\" (rank 0: \"lsq\")" with `who` as
/// the other side's name; "" when they are equal.
std::string field_differences(const std::string& mine, const std::string& theirs,
                              std::string_view who);

/// The number of leaf fields of `options` (nested options counted by their
/// own leaves): what options_hash() covers.
template <HasFields O>
std::size_t field_count(const O& options) {
  detail::FieldCounter c;
  O::fields(options, c);
  return c.n;
}

/// Throws Error("<what>: <why>").
[[noreturn]] void throw_invalid_options(std::string_view what, const std::string& why);

/// The usual validate(): throws Error("<what>: <why>") unless options.is_valid().
template <class O>
void validate_options(const O& options, std::string_view what) {
  std::string why;
  if (!options.is_valid(&why)) throw_invalid_options(what, why);
}

}  // namespace isocost
