// isocost_balancer (include/isocost/isocost_mpi.h) under mpiexec -n 1…4:
// against isocost::mpi::BlockBalancer on the same synthetic loads (the same
// decisions and distributions, bit for bit), exact conservation of three
// migrated arrays of 8-, 4- and 3-byte elements, the Fortran handle, and
// every error path agreed across ranks.
//
// Loads are deterministic: element i costs w(i, step) seconds, and every
// rank records Σ w over its own range (record_step), so both balancers see
// the same numbers. A hot band of weight 5 moves right by N/16 every 4 steps.
#include <gtest/gtest.h>
#include <mpi.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "isocost/isocost_mpi.h"
#include "isocost/mpi/block_balancer.hpp"

#include "c_mpi_support.hpp"

namespace {

using isocost::testing::expect_agreed;
using isocost::testing::outcome;
using isocost::testing::rank_of;
using isocost::testing::size_of;
using Tag = std::array<char, 3>;

double weight(std::int64_t i, std::int64_t n, int step) {
  const std::int64_t lo = (step / 4) * (n / 16) % n;
  return i >= lo && i < lo + n / 4 ? 5.0 : 1.0;
}
double local_load(std::int64_t begin, std::int64_t count, std::int64_t n, int step) {
  double s = 0;
  for (std::int64_t i = begin; i < begin + count; ++i) s += weight(i, n, step);
  return s;
}
// The payloads, from the global index alone.
float value_of(std::int64_t i) { return static_cast<float>(i) * 0.5f + 1.0f; }
Tag tag_of(std::int64_t i) {
  return {static_cast<char>('a' + i % 26), static_cast<char>(i % 127), static_cast<char>(i / 127)};
}

// `plain`: the profit trigger and the edge location off (both on by default).
isocost_balancer_options c_options(int policy, bool plain = false) {
  isocost_balancer_options o;
  EXPECT_EQ(isocost_balancer_options_init(&o), ISOCOST_OK);
  if (plain) o.profit_trigger = o.edges = 0;
  o.check_every = 2;
  o.window = 1;
  o.policy = policy;
  o.decision_seconds = 0;
  o.comm_latency = 0;
  o.comm_per_byte = 0;
  o.verify = 1;
  return o;
}
isocost::mpi::BlockBalancerOptions cpp_options(isocost::mpi::BalancePolicy policy,
                                               bool plain = false) {
  isocost::mpi::BlockBalancerOptions o;
  o.pipeline.profit_trigger = o.global.edges = !plain;
  o.pipeline.trigger.every = 2;
  o.pipeline.trigger.drift_threshold = 0.10;
  o.pipeline.monitor.window = 1;
  o.pipeline.policy = policy;
  o.pipeline.decision_seconds = 0.0;
  o.pipeline.comm = isocost::CommModel{};
  o.pipeline.verify = true;
  return o;
}

std::vector<std::int64_t> offsets_of(const isocost_balancer* b) {
  std::vector<std::int64_t> o(static_cast<std::size_t>(size_of()) + 1);
  EXPECT_EQ(isocost_balancer_offsets(b, o.data()), ISOCOST_OK) << isocost_last_error();
  return o;
}

// Runs `steps` steps of the C and the C++ balancer side by side; with
// `costs`, both plan on per-element costs w(i, step). Returns the migrations.
int run_side_by_side(isocost_balancer* b, isocost::mpi::BalancePolicy cpp_policy, std::int64_t n,
                     int steps, bool costs, bool plain = false) {
  isocost::mpi::BlockBalancer ref(MPI_COMM_WORLD,
                                  isocost::mpi::BlockDistribution::uniform(n, size_of()),
                                  cpp_options(cpp_policy, plain));
  std::int64_t begin = 0, count = 0;
  EXPECT_EQ(isocost_balancer_local(b, &begin, &count), ISOCOST_OK);
  std::vector<std::int64_t> ids(static_cast<std::size_t>(count));
  std::vector<float> values(ids.size());
  std::vector<Tag> tags(ids.size());
  for (std::size_t k = 0; k < ids.size(); ++k) {
    ids[k] = begin + static_cast<std::int64_t>(k);
    values[k] = value_of(ids[k]);
    tags[k] = tag_of(ids[k]);
  }
  // The C++ balancer's own copies.
  std::vector<std::int64_t> ref_ids = ids;
  std::vector<float> ref_values = values;
  std::vector<Tag> ref_tags = tags;
  int migrations = 0;
  for (int step = 0; step < steps; ++step) {
    EXPECT_EQ(isocost_balancer_record_step(b, local_load(begin, count, n, step)), ISOCOST_OK);
    ref.record_step(local_load(ref.local_begin(), ref.local_count(), n, step));
    if (costs) {
      std::vector<double> c(static_cast<std::size_t>(count)), rc(ref_ids.size());
      for (std::size_t k = 0; k < c.size(); ++k)
        c[k] = weight(begin + static_cast<std::int64_t>(k), n, step);
      for (std::size_t k = 0; k < rc.size(); ++k) rc[k] = weight(ref_ids[k], n, step);
      EXPECT_EQ(isocost_balancer_set_costs(b, c.data(), count), ISOCOST_OK);
      ref.set_costs(rc);
    }
    isocost_balancer_decision d;
    EXPECT_EQ(isocost_balancer_check(b, 15, &d), ISOCOST_OK) << isocost_last_error();
    const isocost::mpi::BlockEvent e = ref.maybe_rebalance(ref_ids, ref_values, ref_tags);
    // The same decision, bit for bit.
    EXPECT_EQ(d.step, e.step);
    EXPECT_EQ(d.checked != 0, e.checked);
    EXPECT_EQ(d.fired != 0, e.check.fired);
    EXPECT_EQ(d.drift_fired != 0, e.check.drift_fired);
    EXPECT_EQ(d.t_max, e.check.t_max);
    EXPECT_EQ(d.t_avg, e.check.t_avg);
    EXPECT_EQ(d.drift, e.check.drift);
    EXPECT_EQ(d.efficiency, e.check.efficiency);
    EXPECT_EQ(std::string(d.reason), e.reason.substr(0, 255));
    EXPECT_EQ(d.action, static_cast<int>(e.action));
    if (d.action == ISOCOST_ACTION_NONE) {  // nothing moves: the current range
      EXPECT_EQ(d.new_local_begin, begin);
      EXPECT_EQ(d.new_local_count, count);
    } else {
      EXPECT_EQ(d.new_local_begin, e.to.begin(rank_of()));
      EXPECT_EQ(d.new_local_count, e.to.count(rank_of()));
    }
    isocost_balancer_decision last;
    EXPECT_EQ(isocost_balancer_last_decision(b, &last), ISOCOST_OK);
    EXPECT_EQ(std::memcmp(&last, &d, sizeof d), 0);
    if (d.action != ISOCOST_ACTION_NONE) {
      ++migrations;
      const auto m = static_cast<std::size_t>(d.new_local_count);
      std::vector<std::int64_t> ids2(m);
      std::vector<float> values2(m);
      std::vector<Tag> tags2(m);
      const void* olds[] = {ids.data(), values.data(), tags.data()};
      void* news[] = {ids2.data(), values2.data(), tags2.data()};
      const size_t bytes[] = {sizeof(std::int64_t), sizeof(float), sizeof(Tag)};
      EXPECT_EQ(isocost_balancer_migrate(b, 3, olds, news, bytes), ISOCOST_OK)
          << isocost_last_error();
      ids.swap(ids2);
      values.swap(values2);
      tags.swap(tags2);
    }
    EXPECT_EQ(offsets_of(b), ref.distribution().offsets) << "step " << step;
    EXPECT_EQ(isocost_balancer_local(b, &begin, &count), ISOCOST_OK);
    EXPECT_EQ(begin, ref.local_begin());
    EXPECT_EQ(count, ref.local_count());
    // Every element in place, its payload intact.
    EXPECT_EQ(ids, ref_ids);
    EXPECT_EQ(values, ref_values);
    EXPECT_EQ(tags, ref_tags);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      EXPECT_EQ(ids[k], begin + static_cast<std::int64_t>(k));
      EXPECT_EQ(values[k], value_of(ids[k]));
      EXPECT_EQ(tags[k], tag_of(ids[k]));
    }
  }
  // Conservation: N elements, each index once (count and sum), values summed.
  std::int64_t local[2] = {static_cast<std::int64_t>(ids.size()), 0}, global[2];
  double vsum = 0, gvsum = 0;
  for (std::size_t k = 0; k < ids.size(); ++k) {
    local[1] += ids[k];
    vsum += values[k];
  }
  MPI_Allreduce(local, global, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&vsum, &gvsum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(global[0], n);
  EXPECT_EQ(global[1], n * (n - 1) / 2);
  EXPECT_EQ(gvsum, 0.25 * static_cast<double>(n) * static_cast<double>(n - 1) + n);
  return migrations;
}

TEST(CBalancer, SameDecisionsAndDataAsBlockBalancer) {
  const std::int64_t n = 160 * size_of() + 7;
  for (const auto& [c, cpp] :
       {std::pair{ISOCOST_POLICY_GLOBAL, isocost::mpi::BalancePolicy::global},
        std::pair{ISOCOST_POLICY_CHOOSE, isocost::mpi::BalancePolicy::choose},
        std::pair{ISOCOST_POLICY_DIFFUSION, isocost::mpi::BalancePolicy::diffusion}}) {
    for (bool costs : {false, true})
      for (bool plain : {false, true}) {
        const isocost_balancer_options o = c_options(c, plain);
        isocost_balancer* b = nullptr;
        ASSERT_EQ(isocost_balancer_create(MPI_COMM_WORLD, n, nullptr, &o, &b), ISOCOST_OK)
            << isocost_last_error();
        const int moved = run_side_by_side(b, cpp, n, 24, costs, plain);
        // The moving band makes every run with P > 1 migrate.
        if (size_of() > 1) {
          EXPECT_GT(moved, 0) << "policy " << c << " costs " << costs << " plain " << plain;
        }
        isocost_balancer_free(b);
      }
  }
}

// isocost_balancer_options_init() gives the C++ defaults of what it exposes.
TEST(CBalancer, OptionsInitGivesTheLibraryDefaults) {
  isocost_balancer_options o;
  ASSERT_EQ(isocost_balancer_options_init(&o), ISOCOST_OK);
  const isocost::mpi::BlockBalancerOptions d;
  EXPECT_EQ(o.check_every, d.pipeline.trigger.every);
  EXPECT_EQ(o.drift_threshold, d.pipeline.trigger.drift_threshold.value_or(-1));
  EXPECT_EQ(o.window, d.pipeline.monitor.window);
  EXPECT_EQ(o.steps_ahead, d.pipeline.steps_ahead);
  EXPECT_EQ(o.profit_trigger != 0, d.pipeline.profit_trigger);
  EXPECT_EQ(o.edges != 0, d.global.edges);
}

TEST(CBalancer, FortranHandleAndGivenOffsets) {
  const int P = size_of();
  const std::int64_t n = 50 * P;
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(P) + 1);
  for (int r = 0; r <= P; ++r) offsets[static_cast<std::size_t>(r)] = n * r * r / (P * P);
  const isocost_balancer_options o = c_options(ISOCOST_POLICY_GLOBAL);
  isocost_balancer* b = nullptr;
  ASSERT_EQ(isocost_balancer_create_f(MPI_Comm_c2f(MPI_COMM_WORLD), n, offsets.data(), &o, &b),
            ISOCOST_OK)
      << isocost_last_error();
  EXPECT_EQ(offsets_of(b), offsets);
  std::int64_t begin = -1, count = -1;
  EXPECT_EQ(isocost_balancer_local(b, &begin, &count), ISOCOST_OK);
  EXPECT_EQ(begin, offsets[static_cast<std::size_t>(rank_of())]);
  EXPECT_EQ(count, offsets[static_cast<std::size_t>(rank_of()) + 1] - begin);
  isocost_balancer_free(b);
}

// Timed steps count as steps; the log (rank 0) has one line per check.
TEST(CBalancer, TimedStepsCountAndAreLogged) {
  isocost_balancer* b = nullptr;
  isocost_balancer_options o = c_options(ISOCOST_POLICY_GLOBAL);
  const std::string log = "c_mpi_balancer_log_np" + std::to_string(size_of()) + ".jsonl";
  std::remove(log.c_str());
  MPI_Barrier(MPI_COMM_WORLD);
  o.log_path = log.c_str();
  ASSERT_EQ(isocost_balancer_create(MPI_COMM_WORLD, 10, nullptr, &o, &b), ISOCOST_OK);
  isocost_balancer_decision d;
  for (int s = 0; s < 3; ++s) {
    ASSERT_EQ(isocost_balancer_begin_step(b), ISOCOST_OK);
    ASSERT_EQ(isocost_balancer_end_step(b), ISOCOST_OK);
    ASSERT_EQ(isocost_balancer_check(b, 8, &d), ISOCOST_OK) << isocost_last_error();
    EXPECT_EQ(d.step, s + 1);
    EXPECT_EQ(d.checked, (s + 1) % 2 == 0 ? 1 : 0);  // every 2 steps
  }
  isocost_balancer_free(b);  // closes the log
  if (rank_of() == 0) {
    std::ifstream in(log);
    std::string line;
    std::vector<std::string> lines;
    while (std::getline(in, line)) lines.push_back(line);
    ASSERT_EQ(lines.size(), 1u);  // the check at step 2
    EXPECT_NE(lines[0].find("\"step\":2"), std::string::npos) << lines[0];
    std::remove(log.c_str());
  }
}

}  // namespace
