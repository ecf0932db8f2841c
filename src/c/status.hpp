// c/status.hpp — the C interface's thread-local message and the guard that turns
// every C++ exception into a status code (include/isocost/isocost.h).
#pragma once

#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/isocost.h"

namespace isocost::c {

/// A failure with its status, thrown inside guard() by the checks below.
struct Failure {
  int status;
  std::string message;
};

/// Sets this thread's message to "" (success).
void clear_error() noexcept;
/// Sets this thread's message to "FUNCTION: MESSAGE" and returns status.
int set_error(int status, const char* function, const char* message) noexcept;

/// Throws Failure(INVALID_ARGUMENT, "NAME is NULL") when p is NULL.
template <class T>
void require(const T* p, const char* name) {
  if (p == nullptr) throw Failure{ISOCOST_ERROR_INVALID_ARGUMENT, std::string(name) + " is NULL"};
}

/// Throws Failure(INVALID_ARGUMENT, "NAME: expected an integer >= MIN, got N").
template <class I>
void require_at_least(I n, I min, const char* name) {
  if (n < min)
    throw Failure{
        ISOCOST_ERROR_INVALID_ARGUMENT,
        detail::expected_got(name, "an integer >= " + std::to_string(min), std::to_string(n))};
}

/// Copies `value` into text[0 .. size) as a NUL-terminated string, truncated
/// to size − 1 characters; *length (if not NULL) receives its full length.
/// text may be NULL when size is 0 (a query of the length).
void copy_text(const std::string& value, char* text, std::int64_t size, std::int64_t* length);

/// Runs body() and returns ISOCOST_OK, or the status of what it threw, with
/// this thread's message set accordingly. Nothing escapes.
template <class F>
int guard(const char* function, F&& body) noexcept {
  try {
    std::forward<F>(body)();
    clear_error();
    return ISOCOST_OK;
  } catch (const Failure& f) {
    return set_error(f.status, function, f.message.c_str());
  } catch (const isocost::Error& e) {
    return set_error(ISOCOST_ERROR_INVALID_ARGUMENT, function, e.what());
  } catch (const std::bad_alloc&) {
    return set_error(ISOCOST_ERROR_NO_MEMORY, function, "out of memory");
  } catch (const std::length_error& e) {  // a count too large for a std::vector
    return set_error(ISOCOST_ERROR_NO_MEMORY, function, e.what());
  } catch (const std::exception& e) {
    return set_error(ISOCOST_ERROR_FAILED, function, e.what());
  } catch (...) {
    return set_error(ISOCOST_ERROR_FAILED, function, "unknown exception");
  }
}

}  // namespace isocost::c
