// Internal to the sieve demo: what it prints, writes and plots (Swartz's
// Figs 1–2 and 4–5), in sieve_report.cpp.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sieve_rounds.hpp"

namespace sieve_demo {

/// printf-style formatting of one number.
std::string fmt(const char* format, double v);
/// "2^24" as given, with the value.
std::string maxn_name(const Options& opt);
/// One round's table, fit and L_E.
void print_round(std::ostream& out, const Round& r, const std::string& mode);
/// One round as JSON.
json round_json(const Round& r);
/// Swartz Figs 2 and 5: per-rank times as bars, T_avg as a line.
void plot_times(const Round& r, const std::string& mode, const Options& opt,
                const std::string& path);
/// Swartz Figs 1 and 4: the fitted t(x), the measured cumulative times of each
/// round, and the cuts the fit produced.
void plot_fit(const std::vector<Round>& rounds, const std::string& mode, const Options& opt,
              const std::string& path);

}  // namespace sieve_demo
