// Internal to the isocost command: command-line fields parsed and checked
// (numbers, counts, speeds, a domain, a 1-D model); an Error names the first
// bad value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "isocost/cost_model.hpp"
#include "isocost/partition.hpp"

namespace isocost::cli {

/// Parses an integer >= min from a whole command-line field; throws Error
/// naming `what` otherwise.
int parse_int(const std::string& text, const std::string& what, int min);
/// Parses a count of parts or ranks, an integer in [1, kMaxParts] (limits.hpp);
/// above the limit the Error names the value, the limit and `unit`.
int parse_count(const std::string& text, const std::string& what, const std::string& unit);

/// Parses a finite double from a whole command-line field; throws Error naming
/// `what` otherwise.
double parse_double(const std::string& text, const std::string& what);
/// Speeds from --speeds S,… or --node-types NxR,… (Swartz §4); empty when
/// neither is given; Error when both are, or for a bad entry.
std::optional<Speeds> parse_speeds(const std::string& speeds, const std::string& node_types);

/// A 1-D cost model as typed on the command line (`isocost cut`'s model
/// options; all fields raw text).
struct ModelArgs {
  std::string model;    ///< --model sieve|power|polynomial|pchip|makima|linear|discrete
  std::string params;   ///< --param NAME=VALUE,…
  std::string domain;   ///< --domain LO:HI
  std::string samples;  ///< --samples FILE (pchip, makima, linear)
  std::string weights;  ///< --weights FILE (discrete: one per line, or raw ISOCOSTW)
};
/// Builds the model, rejecting options that do not fit it; Error names the
/// first bad value.
CostModel build_cost_model(const ModelArgs& args);
/// build_cost_model()'s checks of the options alone: nothing is read.
void check_model_args(const ModelArgs& args);
/// Parses --domain LO:HI.
std::pair<double, double> parse_domain(const std::string& text);

/// Splits "a,b,c" on commas.
std::vector<std::string> split(const std::string& text, char separator);

/// A library default as the help shows it: the shortest text that reads back
/// to `value`, its exponent without leading zeros ("0.05", "3.9098e-7").
std::string default_text(double value);
/// Help text of a choice whose default is the library's: `names` in order,
/// `chosen` marked "(default)", the last joined by `last` ("none (default),
/// huber or cauchy"), so that the help follows the options structs.
std::string choices_text(const std::vector<std::string_view>& names, std::string_view chosen,
                         std::string_view last = " or ");

}  // namespace isocost::cli
