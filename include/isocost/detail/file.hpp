// isocost/detail/file.hpp — writing result files atomically. Internal.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace isocost::detail {

/// Calls `write` on a temporary file beside `path` (binary mode), then renames
/// it over `path`: readers never see a half-written file, and on any failure
/// (including an exception from `write`) the temporary is removed and `path` is
/// untouched. Throws Error naming `path`.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

}  // namespace isocost::detail
