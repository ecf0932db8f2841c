// isocost/error.hpp — the one exception type the library throws for bad input.
//
// Every message names the offending value and what was expected, e.g.
//   "ranks: expected an integer >= 1, got 0".
// The CLI prints what() on one line of stderr and exits with code 2.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace isocost {

/// Thrown for invalid arguments, invalid data and unsolvable requests.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// An Error tied to a place in an input file: what() reads "FILE:LINE: message".
class ParseError : public Error {
 public:
  ParseError(std::string file, std::size_t line, const std::string& message)
      : Error(file + ":" + std::to_string(line) + ": " + message),
        file_(std::move(file)),
        line_(line) {}

  /// The file the bad input came from.
  const std::string& file() const noexcept { return file_; }
  /// 1-based line number of the bad input.
  std::size_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

}  // namespace isocost
