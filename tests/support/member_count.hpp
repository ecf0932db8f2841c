// Test support: how many members an options struct has, to check that its
// fields() lists every one (options.hpp's contract, mechanically).
//
//   ISOCOST_EXPECT_ALL_LISTED(isocost::CutOptions);
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <type_traits>

namespace isocost::testing {

/// The members of aggregate T: the most `{}` initialisers T{…} takes (each
/// member value-initialised from its own braces, so no brace elision can
/// make one member take two). Up to 24.
template <class T>
constexpr std::size_t member_count() {
  static_assert(std::is_aggregate_v<T>, "member_count() counts an aggregate's members");
  if constexpr (requires {
                  T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                    {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                })
    return 24;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                         {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 23;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                         {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 22;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                         {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 21;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                         {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 20;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {},
                         {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 19;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 18;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 17;
  else if constexpr (requires {
                       T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}};
                     })
    return 16;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 15;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 14;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 13;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 12;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 11;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 10;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}, {}}; })
    return 9;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}, {}}; })
    return 8;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}, {}}; })
    return 7;
  else if constexpr (requires { T{{}, {}, {}, {}, {}, {}}; })
    return 6;
  else if constexpr (requires { T{{}, {}, {}, {}, {}}; })
    return 5;
  else if constexpr (requires { T{{}, {}, {}, {}}; })
    return 4;
  else if constexpr (requires { T{{}, {}, {}}; })
    return 3;
  else if constexpr (requires { T{{}, {}}; })
    return 2;
  else if constexpr (requires { T{{}}; })
    return 1;
  else
    return 0;
}

/// Counts the calls a fields() list makes.
struct FieldCounter {
  std::size_t n = 0;
  template <class... A>
  void operator()(const char*, A&&...) {
    ++n;
  }
};

/// The fields T::fields() lists at its top level (nested options count once).
template <class T>
std::size_t listed_fields() {
  FieldCounter counter;
  const T options{};
  T::fields(options, counter);
  return counter.n;
}

}  // namespace isocost::testing

/// Expects T's fields() to list as many fields as T has members.
#define ISOCOST_EXPECT_ALL_LISTED(T) \
  EXPECT_EQ(::isocost::testing::listed_fields<T>(), ::isocost::testing::member_count<T>()) << #T
