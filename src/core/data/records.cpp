#include "core/data/records.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"

namespace isocost::detail {

namespace {

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t comma; (comma = text.find(',', start)) != std::string::npos; start = comma + 1)
    parts.push_back(text.substr(start, comma - start));
  parts.push_back(text.substr(start));
  return parts;
}

std::vector<std::string> split_blanks(const std::string& text) {
  std::vector<std::string> words;
  std::size_t pos = 0;
  while ((pos = text.find_first_not_of(" \t", pos)) != std::string::npos) {
    const std::size_t end = std::min(text.find_first_of(" \t", pos), text.size());
    words.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  return words;
}

}  // namespace

std::vector<Record> read_records(std::istream& in, const std::string& name) {
  std::vector<Record> records;
  std::string text;
  for (std::size_t line = 1; std::getline(in, text); ++line) {
    if (line == 1) strip_bom(text);
    if (!text.empty() && text.back() == '\r') text.pop_back();
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos || text[first] == '#') continue;
    Record r{line, {}};
    const bool commas = text.find(',') != std::string::npos;
    for (const auto& part : split_commas(text.substr(first))) {
      const auto words = split_blanks(part);
      if (words.empty() && commas) r.fields.emplace_back();
      r.fields.insert(r.fields.end(), words.begin(), words.end());
    }
    records.push_back(std::move(r));
  }
  if (in.bad()) throw Error(quote(name, std::string::npos) + ": read error");
  return records;
}

bool strip_bom(std::string& text) {
  if (text.rfind("\xEF\xBB\xBF", 0) != 0) return false;
  text.erase(0, 3);
  return true;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool is_header(const Record& r) {
  if (r.fields.empty() || r.fields[0].empty()) return false;
  const std::string f = lower(r.fields[0]);
  return std::isalpha(static_cast<unsigned char>(f[0])) && f != "nan" && f != "inf" &&
         f != "infinity";
}

std::int64_t parse_index(const std::string& name, std::size_t line, const std::string& field,
                         const std::string& what, std::int64_t limit) {
  double v = 0;
  if (!parse_number(field, v) || !std::isfinite(v) || v != std::floor(v) || v < 0)
    throw ParseError(name, line, expected_got(what, "an integer >= 0", quote(field)));
  if (v > static_cast<double>(limit))
    throw ParseError(name, line,
                     what + ": " +
                         (v < 9e18 ? std::to_string(static_cast<std::int64_t>(v)) : quote(field)) +
                         " is above the limit of " + std::to_string(limit));
  return static_cast<std::int64_t>(v);
}

}  // namespace isocost::detail
