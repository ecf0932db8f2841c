#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "arguments.hpp"
#include "cli.hpp"
#include "isocost/detail/file.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"
#include "isocost/limits.hpp"
#include "isocost/partition.hpp"
#include "isocost/points.hpp"
#include "isocost/samples.hpp"
#include "mpi_world.hpp"
#include "output.hpp"

namespace isocost::cli {

void add_output_and_run(CLI::App* cmd, std::string& output, std::function<void()> run,
                        bool distributed) {
  auto* option = cmd->add_option("-o,--output", output,
                                 "write the result to this file (atomically; a device, FIFO or '-' "
                                 "is written directly)");
  cmd->callback([option, &output, distributed, run = std::move(run)] {
    if (option->count() > 0 && output.empty())
      throw Error("--output: expected a file name, got ''");
    if (!distributed) serial_section();
    run();
  });
}

void write_table(std::ostream& out, const std::vector<std::string>& header, std::size_t n,
                 const std::function<std::vector<std::string>(std::size_t)>& row) {
  // Two passes, so that a table of 10^7 rows never exists whole in memory:
  // the column widths first, then each row formatted again and written.
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (std::size_t r = 0; r < n; ++r) {
    const auto cells = row(r);
    for (std::size_t c = 0; c < cells.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], cells[c].size());
  }
  std::string text;  // one line, written at once
  auto line = [&](const std::vector<std::string>& cells) {
    text.clear();
    for (std::size_t c = 0; c < cells.size(); ++c) {
      text.append(c ? 2 : 0, ' ');
      text.append(width[c] - std::min(width[c], cells[c].size()), ' ');
      text += cells[c];
    }
    text += '\n';
    out << text;
  };
  line(header);
  for (std::size_t r = 0; r < n; ++r) line(row(r));
}

std::string table(const std::vector<std::string>& header,
                  const std::vector<std::vector<std::string>>& rows) {
  std::ostringstream out;
  write_table(out, header, rows.size(), [&](std::size_t r) { return rows[r]; });
  return out.str();
}

void emit(const std::string& text, const std::string& path) {
  emit_to(path, [&](std::ostream& out) { out << text; });
}

void emit_to(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (!output_rank()) return;         // under mpiexec only rank 0 writes
  if (path.empty() || path == "-") {  // "-o -": standard output, as for most tools
    write(std::cout);
    std::cout << std::flush;
    if (!std::cout) throw OutputFailed("cannot write the result to standard output");
    return;
  }
  // A path that cannot be written at all (no such directory, a directory) is
  // bad input, exit 2; a write that fails once the result is being written
  // (disk full, I/O error) lost a result, exit 1.
  bool written = false;
  try {
    detail::write_atomically(path, [&](std::ostream& out) {
      write(out);
      written = true;
    });
  } catch (const OutputFailed&) {
    throw;
  } catch (const Error& e) {
    if (written) throw OutputFailed(e.what());
    throw;
  }
}

nlohmann::ordered_json number(double value) {
  return std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json(nullptr);
}

double parse_double(const std::string& text, const std::string& what) {
  double value = 0;
  if (!detail::parse_number(text, value) || !std::isfinite(value))
    throw Error(detail::expected_got(what, "a finite number", detail::quote(text)));
  return value;
}

int parse_int(const std::string& text, const std::string& what, int min) {
  const double v = parse_double(text, what);
  if (v != std::floor(v) || v < min || v > 2147483647.0)
    throw Error(what + ": expected an integer in [" + std::to_string(min) + ", 2147483647], got " +
                detail::quote(text));
  return static_cast<int>(v);
}

int parse_count(const std::string& text, const std::string& what, const std::string& unit) {
  const double v = parse_double(text, what);
  if (v != std::floor(v) || v < 1)
    throw Error(detail::expected_got(what, "an integer >= 1", detail::quote(text)));
  if (v > static_cast<double>(kMaxParts))  // checked before anything is allocated for them
    throw Error(what + ": " +
                (v < 9e18 ? above_limit(static_cast<std::int64_t>(v), kMaxParts, unit)
                          : detail::exact(v) + " is above the limit of " +
                                std::to_string(kMaxParts) + " " + unit));
  return static_cast<int>(v);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto next = text.find(separator, start);
    parts.push_back(text.substr(start, next - start));
    if (next == std::string::npos) break;
    start = next + 1;
  }
  return parts;
}

std::string default_text(double value) {
  std::string text = detail::exact(value);
  const auto e = text.find('e');
  if (e == std::string::npos) return text;
  auto digits = e + 1;
  if (digits < text.size() && (text[digits] == '-' || text[digits] == '+')) ++digits;
  while (digits + 1 < text.size() && text[digits] == '0') text.erase(digits, 1);
  return text;
}

std::string choices_text(const std::vector<std::string_view>& names, std::string_view chosen,
                         std::string_view last) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? last : ", ";
    text += names[i];
    if (names[i] == chosen) text += " (default)";
  }
  return text;
}

}  // namespace isocost::cli

namespace isocost::cli {

std::optional<Speeds> parse_speeds(const std::string& speeds, const std::string& node_types) {
  if (!speeds.empty() && !node_types.empty())
    throw Error("--speeds and --node-types both given; use one");
  if (!speeds.empty()) {
    std::vector<double> v;
    const auto items = split(speeds, ',');
    for (std::size_t k = 0; k < items.size(); ++k)
      v.push_back(parse_double(items[k], "--speeds entry " + std::to_string(k)));
    return Speeds::from_values(std::move(v));
  }
  if (!node_types.empty()) {
    std::vector<NodeType> types;
    for (const auto& item : split(node_types, ',')) {
      const auto x = item.find('x');
      if (x == std::string::npos)
        throw Error("--node-types: expected COUNTxRATIO (e.g. 7x1,4x3), got " +
                    detail::quote(item));
      types.push_back(
          {parse_count(item.substr(0, x), "--node-types count in " + detail::quote(item), "ranks"),
           parse_double(item.substr(x + 1), "--node-types ratio in " + detail::quote(item))});
    }
    return Speeds::from_node_types(types);
  }
  return std::nullopt;
}

}  // namespace isocost::cli

namespace isocost::cli {

namespace {

// "A=3.9e-7,p=1.43" → {A: 3.9e-7, p: 1.43}, checked against the allowed names.
std::map<std::string, double> parse_params(const std::string& text, const std::string& model,
                                           const std::set<std::string>& allowed) {
  std::map<std::string, double> out;
  if (text.empty()) return out;
  std::string names;
  for (const auto& n : allowed) names += (names.empty() ? "" : ", ") + n;
  for (const auto& item : split(text, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--param: expected NAME=VALUE, got '" + item + "'");
    const std::string name = item.substr(0, eq);
    if (!allowed.count(name))
      throw Error("--param: unknown parameter '" + name + "' for model " + model + "; expected " +
                  names);
    if (out.count(name)) throw Error("--param: parameter '" + name + "' given twice");
    out[name] = parse_double(item.substr(eq + 1), "--param " + name);
  }
  return out;
}

}  // namespace

std::pair<double, double> parse_domain(const std::string& text) {
  const auto parts = split(text, ':');
  if (parts.size() != 2) throw Error("--domain: expected LO:HI, got '" + text + "'");
  return {parse_double(parts[0], "--domain lo"), parse_double(parts[1], "--domain hi")};
}

void check_model_args(const ModelArgs& a) {
  const bool tabulated = a.model == "pchip" || a.model == "makima" || a.model == "linear";
  const bool discrete = a.model == "discrete";
  const bool analytic = a.model == "sieve" || a.model == "power" || a.model == "polynomial";
  if (!tabulated && !discrete && !analytic)
    throw Error(detail::expected_got("--model",
                                     "sieve, power, polynomial, pchip, makima, linear or discrete",
                                     detail::quote(a.model)));
  if (!tabulated && !a.samples.empty())
    throw Error("--samples is for --model pchip|makima|linear, not " + a.model);
  if (!discrete && !a.weights.empty())
    throw Error("--weights is for --model discrete, not " + a.model);
  if (tabulated || discrete) {
    if (!a.domain.empty())
      throw Error("--domain: model " + a.model + " takes its domain from the data file");
    if (!a.params.empty()) throw Error("--param: model " + a.model + " has no parameters");
  }
  if (discrete && a.weights.empty())
    throw Error("--model discrete needs --weights FILE (one weight per line, or raw)");
}

CostModel build_cost_model(const ModelArgs& a) {
  check_model_args(a);
  const bool tabulated = a.model == "pchip" || a.model == "makima" || a.model == "linear";
  const bool discrete = a.model == "discrete";
  if (tabulated) {
    if (a.samples.empty()) throw Error("--model " + a.model + " needs --samples FILE (x,t rows)");
    // The one sample reader: x,t rows (or lo,hi,dt intervals, or JSON).
    return tabulate(read_samples(a.samples), parse_interpolation(a.model));
  }
  if (discrete) {
    // The reader's errors name the file already; the model's do not.
    auto weights = read_weights(a.weights);
    try {
      return discrete_model(std::move(weights));
    } catch (const Error& e) {
      throw Error(a.weights + ": " + e.what());  // weights are numbered from 0
    }
  }
  if (a.domain.empty()) throw Error("--model " + a.model + " needs --domain LO:HI");
  const auto [lo, hi] = parse_domain(a.domain);
  if (a.model == "sieve") {
    auto p = parse_params(a.params, a.model, {"A", "p", "c", "q"});
    SieveParams sp;  // Swartz eq. (4) values unless given
    if (p.count("A")) sp.A = p["A"];
    if (p.count("p")) sp.p = p["p"];
    if (p.count("c")) sp.c = p["c"];
    if (p.count("q")) sp.q = p["q"];
    return sieve_model(sp, lo, hi);
  }
  if (a.model == "power") {
    auto p = parse_params(a.params, a.model, {"A", "p", "B"});
    if (!p.count("p")) throw Error("--model power needs --param p=VALUE (A defaults to 1, B to 0)");
    return power_model(p.count("A") ? p["A"] : 1.0, p["p"], p.count("B") ? p["B"] : 0.0, lo, hi);
  }
  std::set<std::string> names;
  for (int k = 0; k <= 32; ++k) names.insert("c" + std::to_string(k));
  auto p = parse_params(a.params, a.model, names);
  if (p.empty()) throw Error("--model polynomial needs --param c0=..,c1=..,…");
  std::vector<double> c(33, 0.0);
  for (const auto& [name, value] : p) c[std::stoul(name.substr(1))] = value;
  return polynomial_model(std::move(c), lo, hi);
}

}  // namespace isocost::cli
