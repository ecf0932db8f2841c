// The balancers' options contract under mpiexec -n N (CTest runs N = 2, 3, 4):
// for every field of BlockBalancerOptions and GridBalancerOptions, changed on
// the last rank only, every rank throws the same isocost::Error naming that
// rank and the field, and nobody hangs (a hang shows up as the CTest timeout).
// The field list is the one the library compares (options.hpp), so a field
// missing from it would construct without error here and fail the test.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/mpi/block_balancer.hpp"
#include "isocost/mpi/exchange.hpp"
#include "isocost/mpi/grid_balancer.hpp"
#include "isocost/mpi/partition_points.hpp"
#include "isocost/mpi/partition_points_jagged.hpp"
#include "isocost/mpi/partition_weights.hpp"
#include "isocost/mpi/task_balancer.hpp"
#include "isocost/mpi/transfer_options.hpp"
#include "mpi_test_support.hpp"
#include "support/member_count.hpp"
#include "support/mutate_field.hpp"

namespace {

using isocost::testing::error_of;
using isocost::testing::expect_agreed_error;
using isocost::testing::rank_of;
using isocost::testing::size_of;

template <class O, class Make>
void every_field_changed_on_one_rank_fails_everywhere(const O& base, Make make) {
  const int P = size_of(), last = P - 1;
  const std::size_t n = isocost::field_count(base);
  ASSERT_GT(n, 20u);
  for (std::size_t k = 0; k < n; ++k) {
    O changed = base;
    const std::string name = isocost::testing::mutate_field(changed, k);
    const O& mine = rank_of() == last ? changed : base;
    const std::string msg = error_of([&] { make(mine); });
    SCOPED_TRACE("field " + name);
    expect_agreed_error(msg, "rank " + std::to_string(last) + ": ");
    // The message names the field (its whole path; a changed speed list may
    // instead be refused for its length).
    const bool speeds = msg.find("speeds for") != std::string::npos;
    if (!speeds) {
      EXPECT_NE(msg.find(name), std::string::npos) << msg;
    }
    EXPECT_NE(msg.find("invalid input on 1 rank (rank " + std::to_string(last) + ": "),
              std::string::npos)
        << "only the last rank differs: " << msg;
  }
}

isocost::mpi::BalancerOptions pipeline() {
  isocost::mpi::BalancerOptions o;
  o.comm = isocost::CommModel{};  // no calibration: each construction stays cheap
  o.trigger.min_efficiency = 0.8;
  return o;
}

TEST(BalancerOptions, EveryBlockFieldIsComparedAcrossRanks) {
  const int P = size_of();
  isocost::mpi::BlockBalancerOptions base;
  base.pipeline = pipeline();
  base.speeds = isocost::Speeds::uniform(P);
  const auto d = isocost::mpi::BlockDistribution::uniform(10 * P, P);
  // The defaults construct everywhere.
  EXPECT_EQ(error_of([&] { isocost::mpi::BlockBalancer b(MPI_COMM_WORLD, d, base); }), "");
  every_field_changed_on_one_rank_fails_everywhere(
      base, [&](const auto& o) { isocost::mpi::BlockBalancer b(MPI_COMM_WORLD, d, o); });
}

TEST(BalancerOptions, EveryGridFieldIsComparedAcrossRanks) {
  const int P = size_of();
  isocost::GridShape shape;
  shape.dims = 2;
  shape.cells = {8, 6, 1};
  const auto start = isocost::decompose(isocost::grid_density(std::vector<double>(48, 1.0), shape),
                                        {{P}, {0}}, isocost::Speeds::uniform(P));
  isocost::mpi::GridBalancerOptions base;
  base.pipeline = pipeline();
  EXPECT_EQ(error_of([&] { isocost::mpi::GridBalancer b(MPI_COMM_WORLD, shape, start, base); }),
            "");
  every_field_changed_on_one_rank_fails_everywhere(
      base, [&](const auto& o) { isocost::mpi::GridBalancer b(MPI_COMM_WORLD, shape, start, o); });
}

// Every options struct of the mpi layer lists every member in its fields()
// (options.hpp; the core's: test_options_members.cpp): a member left out
// would be one that no rank compares.
TEST(BalancerOptions, EveryMemberOfAnMpiOptionsStructIsListed) {
  using isocost::testing::listed_fields;
  using isocost::testing::member_count;
  using namespace isocost::mpi;
  ISOCOST_EXPECT_ALL_LISTED(BalancerOptions);
  ISOCOST_EXPECT_ALL_LISTED(BlockBalancerOptions);
  ISOCOST_EXPECT_ALL_LISTED(GridBalancerOptions);
  ISOCOST_EXPECT_ALL_LISTED(ExchangeOptions);
  ISOCOST_EXPECT_ALL_LISTED(PointsPartitionOptions);
  ISOCOST_EXPECT_ALL_LISTED(JaggedPointsOptions);
  ISOCOST_EXPECT_ALL_LISTED(WeightsPartitionOptions);
  ISOCOST_EXPECT_ALL_LISTED(TaskBalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(TransferOptions);
}

}  // namespace
