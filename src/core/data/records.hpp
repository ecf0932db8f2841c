// Internal: the line/field splitting shared by the text readers (io.cpp,
// samples.cpp). One record per non-blank, non-comment line; commas and/or
// runs of blanks separate fields; an empty field between two commas is kept
// (and rejected where a value is expected); CRLF is accepted, and so is a
// UTF-8 byte order mark before the first line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace isocost::detail {

/// One non-blank, non-comment line split into fields.
struct Record {
  std::size_t line;  ///< 1-based
  std::vector<std::string> fields;
};

/// All records of a stream; throws Error naming `name` on a read error.
std::vector<Record> read_records(std::istream& in, const std::string& name);

/// Removes a UTF-8 byte order mark from the start of `text` (what editors on
/// Windows put before the first line); true if there was one.
bool strip_bom(std::string& text);

/// ASCII lower case.
std::string lower(std::string s);

/// A header names columns: its first field starts with a letter (and is not
/// nan/inf). Anything else, e.g. "2x", a typo in a first value, is data.
bool is_header(const Record& r);

/// Field `field` of line `line` of `name` as a whole number in [0, limit];
/// ParseError "WHAT: expected an integer >= 0, got '…'" or "WHAT: N is above
/// the limit of L" otherwise. The bound comes first because readers size
/// lists by such numbers (ranks, node numbers) before anything else is checked.
std::int64_t parse_index(const std::string& name, std::size_t line, const std::string& field,
                         const std::string& what, std::int64_t limit);

}  // namespace isocost::detail
