// c/status.cpp — isocost_last_error() and isocost_status_name().
#include "c/status.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace isocost::c {
namespace {
thread_local std::string message;
// Set when the message itself could not be allocated.
thread_local const char* fixed = nullptr;
}  // namespace

void clear_error() noexcept {
  message.clear();  // keeps the capacity: never allocates
  fixed = nullptr;
}

int set_error(int status, const char* function, const char* what) noexcept {
  try {
    message.assign(function).append(": ").append(what);
    fixed = nullptr;
  } catch (...) {
    fixed = "out of memory while reporting an error";
  }
  return status;
}

void copy_text(const std::string& value, char* text, std::int64_t size, std::int64_t* length) {
  require_at_least<std::int64_t>(size, 0, "size");
  if (size > 0) require(text, "text");
  if (length != nullptr) *length = static_cast<std::int64_t>(value.size());
  if (size == 0) return;
  const std::size_t n = std::min(value.size(), static_cast<std::size_t>(size - 1));
  value.copy(text, n);
  text[n] = '\0';
}

}  // namespace isocost::c

extern "C" const char* isocost_last_error(void) noexcept {
  using namespace isocost::c;
  return fixed != nullptr ? fixed : message.c_str();
}

extern "C" const char* isocost_status_name(int status) noexcept {
  switch (status) {
    case ISOCOST_OK:
      return "ISOCOST_OK";
    case ISOCOST_ERROR_INVALID_ARGUMENT:
      return "ISOCOST_ERROR_INVALID_ARGUMENT";
    case ISOCOST_ERROR_NO_MEMORY:
      return "ISOCOST_ERROR_NO_MEMORY";
    case ISOCOST_ERROR_FAILED:
      return "ISOCOST_ERROR_FAILED";
    case ISOCOST_ERROR_NOT_CONVERGED:
      return "ISOCOST_ERROR_NOT_CONVERGED";
    default:
      return "unknown status";
  }
}
