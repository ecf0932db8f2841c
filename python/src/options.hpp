// python/src/options.hpp — any isocost Options struct from a nested Python
// dict, through its field list (isocost/options.hpp): {"pipeline":
// {"trigger": {"every": 1}}, "speeds": [1, 1, 3]} sets those fields and
// keeps every other default. A key that names no field is an Error listing
// the fields there are, so a misspelt option never passes silently.
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "isocost/error.hpp"
#include "isocost/options.hpp"

namespace isocost::python {

namespace options_detail {

template <class T>
void assign(T& field, py::handle value, const std::string& path);

template <class E>
E enum_from(py::handle value, const std::string& path) {
  std::string names;
  // Enumerators are small and to_string() gives "?" for the rest.
  for (int i = 0; i < 64; ++i) {
    const auto e = static_cast<E>(i);
    const std::string name(to_string(e));
    if (name == "?") continue;
    if (py::isinstance<py::str>(value) && value.cast<std::string>() == name) return e;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw Error(path + ": expected one of " + names + ", got " + std::string(py::repr(value)));
}

struct Setter {
  py::dict values;
  std::string path;
  std::vector<std::string> names;

  template <class T>
  void operator()(std::string_view name, T& field, const Range& = any_value) {
    names.emplace_back(name);
    const py::str key{std::string(name)};
    if (values.contains(key)) assign(field, values[key], path + std::string(name));
  }
};

template <class T>
void assign(T& field, py::handle value, const std::string& path) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!py::isinstance<py::bool_>(value))
      throw py::type_error(path + ": expected True or False, got " + std::string(py::repr(value)));
    field = value.cast<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    const std::int64_t v = as_int64(value, path);
    if (v < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
        (v > 0 &&
         static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
      throw Error(path + ": " + std::to_string(v) + " is out of range");
    field = static_cast<T>(v);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!py::isinstance<py::float_>(value) && !py::hasattr(value, "__index__") &&
        !py::hasattr(value, "__float__"))
      throw py::type_error(path + ": expected a number, got " + std::string(py::repr(value)));
    field = static_cast<T>(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>());
  } else if constexpr (NamedEnum<T>) {
    field = enum_from<T>(value, path);
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!py::isinstance<py::str>(value))
      throw py::type_error(path + ": expected a string, got " + std::string(py::repr(value)));
    field = value.cast<std::string>();
  } else if constexpr (isocost::detail::is_function<T>::value) {
    throw Error(path + ": a callback; it cannot be set from Python");
  } else if constexpr (isocost::detail::is_optional<T>::value) {
    if (value.is_none()) {
      field.reset();
    } else {
      typename T::value_type v = field.value_or(typename T::value_type{});
      assign(v, value, path);
      field = std::move(v);
    }
  } else if constexpr (isocost::detail::is_vector<T>::value ||
                       isocost::detail::is_std_array<T>::value) {
    std::vector<py::handle> items;
    for (py::handle h : py::iter(value)) items.push_back(h);
    if constexpr (isocost::detail::is_vector<T>::value) {
      field.resize(items.size());
    } else if (items.size() != field.size()) {
      throw Error(path + ": expected " + std::to_string(field.size()) + " values, got " +
                  std::to_string(items.size()));
    }
    for (std::size_t i = 0; i < items.size(); ++i)
      assign(field[i], items[i], path + "[" + std::to_string(i) + "]");
  } else if constexpr (isocost::detail::is_string_map<T>::value) {
    field.clear();
    for (auto [k, v] : py::cast<py::dict>(value))
      assign(field[py::cast<std::string>(k)], v, path + "." + py::cast<std::string>(k));
  } else if constexpr (ValueList<T>) {
    field = T::from_values(to_vector(value, path));
  } else if constexpr (HasFields<T>) {
    if (!py::isinstance<py::dict>(value))
      throw py::type_error(path + ": expected a dict of its fields, got " +
                           std::string(py::repr(value)));
    Setter s{py::reinterpret_borrow<py::dict>(value), path.empty() ? "" : path + ".", {}};
    T::fields(field, s);
    for (auto [k, v] : s.values) {
      const std::string key = py::str(k);
      if (std::find(s.names.begin(), s.names.end(), key) != s.names.end()) continue;
      std::string known;
      for (const auto& n : s.names) known += (known.empty() ? "" : ", ") + n;
      throw Error((path.empty() ? std::string("options") : path) + ": no field '" + key +
                  "' (fields: " + known + ")");
    }
  } else {
    static_assert(sizeof(T) == 0, "a field type options.hpp does not know");
  }
}

}  // namespace options_detail

/// Options O with the fields `values` (a dict, or None for the defaults)
/// sets; then O::validate() (Error naming the bad field).
template <HasFields O>
O options_from(py::handle values) {
  O o;
  if (!values.is_none()) options_detail::assign(o, values, "");
  o.validate();
  return o;
}

/// Every field of `o` as a dict (through options_json()).
template <HasFields O>
py::object options_dict(const O& o) {
  return py::module_::import("json").attr("loads")(options_json(o));
}

}  // namespace isocost::python
