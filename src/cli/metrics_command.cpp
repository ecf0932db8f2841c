// isocost metrics: load-balance statistics of measured per-rank times.
#include <memory>

#include "cli.hpp"
#include "isocost/detail/text.hpp"
#include "isocost/error.hpp"
#include "isocost/io.hpp"
#include "json_stream.hpp"
#include "output.hpp"

namespace isocost::cli {

namespace {

struct MetricsArgs {
  std::string file;
  std::string modelled;
  std::string output;
  bool json = false;
};

std::string optional_text(const std::optional<double>& v) {
  return v ? g(*v, 6) : "undefined (sigma = 0)";
}

std::string stats_text(const LoadStats& s) {
  std::vector<std::vector<std::string>> rows{
      {"ranks", std::to_string(s.ranks)},
      {"T_min (rank " + std::to_string(s.argmin) + ")", g8(s.min)},
      {"T_max (rank " + std::to_string(s.argmax) + ")", g8(s.max)},
      {"T_avg", g8(s.mean)},
      {"L_I = (T_max - T_avg)/T_avg [Swartz eq. 2]", g(s.li, 6) + " %"},
      {"L_E = 100 - L_I [Swartz eq. 3]", g(s.le, 6) + " %"},
      {"(T_max - T_avg)/T_max [Swartz Fig. 2 arithmetic]", g(s.li_fig2, 6) + " %"},
      {"efficiency T_avg/T_max [Watts]", g(s.efficiency, 6)},
      {"lambda = T_max/T_avg - 1 [Pearce eq. 1]", g(s.lambda, 6) + " %"},
      {"drift (T_max - T_min)/T_avg [Swartz 6]", g(s.drift, 6)},
      {"sigma [Pearce eq. 2]", g(s.sigma, 6)},
      {"skewness g1 [Pearce eq. 3]", optional_text(s.skewness)},
      {"kurtosis g2 [Pearce eq. 4]", optional_text(s.kurtosis)},
  };
  std::string out;
  std::size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r[0].size());
  for (const auto& r : rows) out += r[0] + std::string(width + 2 - r[0].size(), ' ') + r[1] + "\n";
  return out;
}

void run(const MetricsArgs& a) {
  const LoadFile loads = read_load_file(a.file);
  LoadStats total;
  std::optional<PhaseStats> phases;
  try {
    total = load_stats(loads.times);
    if (loads.phases) phases = phase_stats(*loads.phases);
  } catch (const Error& e) {
    throw Error(a.file + ": " + e.what());
  }
  std::optional<std::optional<double>> correlation;
  if (!a.modelled.empty()) {
    const auto modelled = read_column(a.modelled, "modelled load", false);
    if (modelled.size() != loads.times.size())
      throw Error("--modelled: " + a.modelled + " has " + std::to_string(modelled.size()) +
                  " loads but " + a.file + " has " + std::to_string(loads.times.size()) + " ranks");
    correlation = rank_correlation(modelled, loads.times);
  }

  std::string text;
  if (a.json) {
    nlohmann::ordered_json j = {
        {"command", "metrics"}, {"file", a.file}, {"stats", nlohmann::ordered_json(total)}};
    if (correlation) j["rank_correlation"] = *correlation ? number(**correlation) : nullptr;
    if (phases) {
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (std::size_t f = 0; f < phases->phases.size(); ++f)
        list.push_back(
            {{"name", phases->phases[f]}, {"stats", nlohmann::ordered_json(phases->per_phase[f])}});
      j["phases"] = list;
      j["synchronised_time"] = phases->synchronised_time;
      j["synchronised_efficiency"] = phases->synchronised_efficiency;
    }
    text = json_text(j) + "\n";
  } else {
    text = "loads: " + a.file + (phases ? " (per-rank totals over phases)" : "") + "\n\n";
    text += stats_text(total);
    if (correlation)
      text += "\nrank correlation modelled vs measured [Pearce eq. 13]: " +
              (*correlation ? g(**correlation, 6) : std::string("undefined (a constant vector)")) +
              "\n";
    if (phases) {
      std::vector<std::vector<std::string>> rows;
      for (std::size_t f = 0; f < phases->phases.size(); ++f) {
        const auto& s = phases->per_phase[f];
        rows.push_back(
            {phases->phases[f], g8(s.min), g8(s.max), g8(s.mean), g(s.efficiency, 6), g(s.le, 6)});
      }
      text += "\nper phase [Watts 4.2]:\n";
      text += table({"phase", "T_min", "T_max", "T_avg", "efficiency", "L_E %"}, rows);
      text += "\nphase-synchronised time sum_phase max_i T_i = " + g8(phases->synchronised_time) +
              "\nefficiency with phase synchronisation T_avg/that = " +
              g(phases->synchronised_efficiency, 6) + " (without: " + g(total.efficiency, 6) +
              ")\n";
    }
  }
  emit(text, a.output);
}

}  // namespace

void add_metrics_command(CLI::App& app) {
  auto args = std::make_shared<MetricsArgs>();
  auto* cmd = app.add_subcommand(
      "metrics", "Load-balance statistics of per-rank times (one per line, or rank,phase,time)");
  cmd->add_option("file", args->file, "times file")->required();
  cmd->add_option("--modelled", args->modelled,
                  "modelled loads, one per rank, for the rank correlation (Pearce eq. 13)");
  cmd->add_flag("--json", args->json, "print JSON instead of text");
  add_output_and_run(cmd, args->output, [args] { run(*args); });
}

}  // namespace isocost::cli
