// Internal to the isocost command: a JSON object written member by member,
// byte for byte as nlohmann's dump(2) would write the whole object, so that
// per-part arrays are streamed one element at a time (memory O(1) per part
// instead of a JSON tree of the whole result).
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace isocost::cli {

/// The JSON text of `value` as dump(indent), but bytes that are not UTF-8 (a
/// file name such as "sam\xffples.csv") become U+FFFD instead of an exception:
/// JSON output is UTF-8, and a file name must not turn a result into an
/// internal error.
inline std::string json_text(const nlohmann::ordered_json& value, int indent = 2) {
  return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

class JsonStream {
 public:
  /// Starts the top-level object on `out`.
  explicit JsonStream(std::ostream& out) : out_(out) {}

  /// One member whose value is written whole.
  void member(const std::string& key, const nlohmann::ordered_json& value) {
    open(key);
    write(value, 1);
  }

  /// One member whose value is an array of `n` elements, element(i) each
  /// (an nlohmann::ordered_json), built and written one at a time.
  template <class Element>
  void array(const std::string& key, std::size_t n, Element&& element) {
    open(key);
    if (n == 0) {
      out_ << "[]";
      return;
    }
    out_ << "[";
    for (std::size_t i = 0; i < n; ++i) {
      out_ << (i ? ",\n    " : "\n    ");
      write(element(i), 2);
    }
    out_ << "\n  ]";
  }

  /// Closes the object (and ends the line, as the commands print it).
  void finish() { out_ << (first_ ? "{}\n" : "\n}\n"); }

 private:
  void open(const std::string& key) {
    out_ << (first_ ? "{\n  " : ",\n  ") << json_text(key, -1) << ": ";
    first_ = false;
  }

  // dump(2) of a value nested `depth` levels down: every line after the first
  // is indented by 2·depth more (JSON strings hold no raw newlines).
  void write(const nlohmann::ordered_json& value, int depth) {
    const std::string text = json_text(value);
    const std::string indent(static_cast<std::size_t>(2 * depth), ' ');
    std::size_t start = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', start)) {
      out_.write(text.data() + start, static_cast<std::streamsize>(nl + 1 - start));
      out_ << indent;
      start = nl + 1;
    }
    out_.write(text.data() + start, static_cast<std::streamsize>(text.size() - start));
  }

  std::ostream& out_;
  bool first_ = true;
};

}  // namespace isocost::cli
