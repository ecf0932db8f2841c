// isocost/detail/file.hpp — writing result files atomically and opening input
// files with a reason on failure. Internal.
#pragma once

#include <fstream>
#include <functional>
#include <ostream>
#include <string>

namespace isocost::detail {

/// Writes a result to `path` by calling `write` on a stream (binary), without
/// ever replacing what must not be replaced:
/// - a regular file (new or existing) is written to a temporary beside it and
///   renamed over it, so readers never see a half-written file; an existing
///   file keeps its permission bits (and, where allowed, its owner);
/// - a symbolic link is followed (to any depth) and its final target replaced
///   that way, through a temporary in the target's own directory: the link
///   stays a link;
/// - a device, FIFO or socket (/dev/null, a named pipe, a terminal) and the
///   descriptor aliases /dev/stdout, /dev/stderr and /dev/fd/N are written
///   directly: no temporary, no rename;
/// - a directory is refused.
/// On any failure (including an exception from `write`) no temporary is left
/// behind and a replaced file is untouched. Throws Error naming `path` and the
/// reason; rethrows what `write` throws.
void write_atomically(const std::string& path, const std::function<void(std::ostream&)>& write);

/// Opens `path` for reading (binary). Throws Error "cannot open 'PATH': REASON"
/// where REASON says why: "is a directory", "no such file or directory",
/// "permission denied", "dangling symbolic link to 'T'", ….
std::ifstream open_for_reading(const std::string& path);

}  // namespace isocost::detail
