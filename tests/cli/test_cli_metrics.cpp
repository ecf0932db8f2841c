// End-to-end tests of `isocost metrics`: load statistics recomputed here from
// their definitions (Swartz eqs 2–3, Watts, Pearce), Watts's Fig. 4.11 phase
// file, and the rank correlation of modelled and measured loads.
#include "cli_test.hpp"

namespace {

// ---------------------------------------------------------------------------
// 5. isocost metrics

// Load statistics from their definitions, for comparison with the tool.
struct Expected {
  double min, max, mean, sum, li, le, li_fig2, efficiency, lambda, drift, sigma;
  std::size_t argmin, argmax;
  double skewness, kurtosis;  // NaN when sigma = 0
};

Expected ExpectedStats(const std::vector<double>& t) {
  Expected e{};
  const double n = static_cast<double>(t.size());
  e.min = *std::min_element(t.begin(), t.end());
  e.max = *std::max_element(t.begin(), t.end());
  e.argmin = static_cast<std::size_t>(std::min_element(t.begin(), t.end()) - t.begin());
  e.argmax = static_cast<std::size_t>(std::max_element(t.begin(), t.end()) - t.begin());
  e.sum = 0;
  for (double v : t) e.sum += v;
  e.mean = e.sum / n;
  e.li = (e.max - e.mean) / e.mean * 100;
  e.le = 100 - e.li;
  e.li_fig2 = (e.max - e.mean) / e.max * 100;
  e.efficiency = e.mean / e.max;
  e.lambda = (e.max / e.mean - 1) * 100;
  e.drift = (e.max - e.min) / e.mean;
  double m2 = 0, m3 = 0, m4 = 0;
  for (double v : t) {
    const double d = v - e.mean;
    m2 += d * d / n;
    m3 += d * d * d / n;
    m4 += d * d * d * d / n;
  }
  e.sigma = std::sqrt(m2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  e.skewness = m2 > 0 ? m3 / std::pow(m2, 1.5) : nan;
  e.kurtosis = m2 > 0 ? m4 / (m2 * m2) - 3 : nan;
  return e;
}

void ExpectStats(const json& s, const std::vector<double>& times) {
  const Expected e = ExpectedStats(times);
  const double tol = 1e-12;
  auto near = [&](const char* key, double v) {
    ASSERT_TRUE(s.contains(key)) << key << " missing in " << s.dump();
    EXPECT_NEAR(Num(s[key]), v, tol * std::max(1.0, std::abs(v))) << key;
  };
  EXPECT_EQ(s.value("ranks", 0u), times.size());
  near("min", e.min);
  near("max", e.max);
  near("mean", e.mean);
  near("sum", e.sum);
  near("li", e.li);
  near("le", e.le);
  near("li_fig2", e.li_fig2);
  near("efficiency", e.efficiency);
  near("lambda", e.lambda);
  near("drift", e.drift);
  near("sigma", e.sigma);
  EXPECT_EQ(s.value("argmin", 999u), e.argmin);
  EXPECT_EQ(s.value("argmax", 999u), e.argmax);
  for (auto [key, v] : {std::pair{"skewness", e.skewness}, std::pair{"kurtosis", e.kurtosis}}) {
    ASSERT_TRUE(s.contains(key)) << key;
    if (std::isnan(v))
      EXPECT_TRUE(s[key].is_null()) << key << " must be null when sigma = 0, got " << s[key];
    else
      near(key, v);
  }
}

TEST_F(Cli, MetricsScalarFile) {
  const std::vector<double> times{3, 1.5, 4, 2.5, 4};
  const std::string f = File("times.txt", "# seconds per rank\ntime\n3\n1.5\n\n4\n2.5\r\n4\n");
  const json j = OkJson({"metrics", f, "--json"});
  EXPECT_EQ(j.value("command", ""), "metrics");
  EXPECT_EQ(j.value("file", ""), f);
  ASSERT_TRUE(j.contains("stats"));
  ExpectStats(j["stats"], times);
  EXPECT_FALSE(j.contains("phases"));
  EXPECT_FALSE(j.contains("rank_correlation"));

  const std::string text = Ok({"metrics", f});
  const Expected e = ExpectedStats(times);
  EXPECT_NEAR(NumberAfter(text, "L_E = 100 - L_I [Swartz eq. 3]"), e.le, 1e-5 * e.le) << text;
  EXPECT_NEAR(NumberAfter(text, "L_I = (T_max - T_avg)/T_avg [Swartz eq. 2]"), e.li, 1e-5 * e.li);
  EXPECT_NEAR(NumberAfter(text, "efficiency T_avg/T_max [Watts]"), e.efficiency, 1e-5);
  EXPECT_TRUE(Has(text, "T_max (rank " + std::to_string(e.argmax) + ")")) << text;
  EXPECT_TRUE(Has(text, "T_min (rank " + std::to_string(e.argmin) + ")")) << text;
}

TEST_F(Cli, MetricsBalancedLoadsHaveUndefinedMoments) {
  const std::string f = File("flat.txt", "7\n7\n7\n");
  const json j = OkJson({"metrics", "--json", f});
  ExpectStats(j["stats"], {7, 7, 7});
  EXPECT_TRUE(Has(Ok({"metrics", f}), "undefined"));
}

TEST_F(Cli, MetricsPhaseFileWattsFigure4_11) {
  // Two ranks, two phases: each rank's total is 150 (perfectly balanced), but
  // with phase synchronisation the run takes max(50,100) + max(100,50) = 200.
  const std::string f = File("phases.csv",
                             "rank,phase,time\n0,one,50\n1,one,100\n"
                             "0,two,100\n1,two,50\n");
  const json j = OkJson({"metrics", f, "--json"});
  ExpectStats(j["stats"], {150, 150});
  ASSERT_TRUE(j.contains("phases"));
  ASSERT_EQ(j["phases"].size(), 2u);
  EXPECT_EQ(j["phases"][0].value("name", ""), "one");
  EXPECT_EQ(j["phases"][1].value("name", ""), "two");
  ExpectStats(j["phases"][0]["stats"], {50, 100});
  ExpectStats(j["phases"][1]["stats"], {100, 50});
  const double sync = std::max(50.0, 100.0) + std::max(100.0, 50.0);
  EXPECT_EQ(sync, 200.0);
  EXPECT_NEAR(Num(j["synchronised_time"]), sync, 1e-12);
  EXPECT_NEAR(Num(j["synchronised_efficiency"]), 150.0 / sync, 1e-12);
  EXPECT_NEAR(Num(j["synchronised_efficiency"]), 0.75, 1e-12);

  const std::string text = Ok({"metrics", f});
  EXPECT_NEAR(NumberAfter(text, "sum_phase max_i T_i = "), 200.0, 1e-9) << text;
  EXPECT_NEAR(NumberAfter(text, "phase synchronisation T_avg/that = "), 0.75, 1e-9) << text;
}

// Fractional ranks and Pearson's r of them, from the definitions.
double RankCorrelation(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<double> r;
    for (double x : v) {
      double below = 0, equal = 0;
      for (double y : v) {
        below += y < x;
        equal += y == x;
      }
      r.push_back(1 + below + (equal - 1) / 2);
    }
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size());
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ma += ra[i] / n;
    mb += rb[i] / n;
  }
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    sab += (ra[i] - ma) * (rb[i] - mb);
    saa += (ra[i] - ma) * (ra[i] - ma);
    sbb += (rb[i] - mb) * (rb[i] - mb);
  }
  return sab / std::sqrt(saa * sbb);
}

TEST_F(Cli, MetricsModelledGivesRankCorrelation) {
  const std::string measured = File("measured.txt", "1\n2\n3\n4\n");
  const std::string reversed = File("reversed.txt", "4\n3\n2\n1\n");
  const json j = OkJson({"metrics", measured, "--modelled", reversed, "--json"});
  EXPECT_NEAR(Num(j["rank_correlation"]), -1.0, 1e-12);

  const std::vector<double> modelled{1, 1, 2, 3, 2.5}, times{1, 2, 3, 4, 0.5};
  const std::string m = File("modelled.txt", "modelled\n1\n1\n2\n3\n2.5\n");
  const std::string t = File("t.txt", "1\n2\n3\n4\n0.5\n");
  const json k = OkJson({"metrics", t, "--modelled", m, "--json"});
  const double r = RankCorrelation(modelled, times);
  EXPECT_NEAR(Num(k["rank_correlation"]), r, 1e-12);
  const std::string text = Ok({"metrics", t, "--modelled", m});
  EXPECT_NEAR(NumberAfter(text, "[Pearce eq. 13]: "), r, 1e-5) << text;

  // A constant modelled vector has no rank correlation.
  const std::string flat = File("flat.txt", "2\n2\n2\n2\n2\n");
  const json u = OkJson({"metrics", t, "--modelled", flat, "--json"});
  ASSERT_TRUE(u.contains("rank_correlation"));
  EXPECT_TRUE(u["rank_correlation"].is_null()) << u["rank_correlation"];
}

}  // namespace
