// Every options struct of the core lists every member in its fields()
// (options.hpp): a member left out would be one that nothing validates,
// prints or compares across ranks. The fitters' and the mpi layer's structs
// are checked in their own tests (test_fitters_options.cpp,
// test_mpi_balancer_options.cpp).
#include <gtest/gtest.h>

#include "isocost/cut.hpp"
#include "isocost/decompose.hpp"
#include "isocost/density.hpp"
#include "isocost/diffusion.hpp"
#include "isocost/monitor.hpp"
#include "isocost/partition.hpp"
#include "isocost/pieces.hpp"
#include "isocost/rebalance.hpp"
#include "isocost/rebalance_grid.hpp"
#include "isocost/shift.hpp"
#include "isocost/strategy.hpp"
#include "isocost/tasks.hpp"
#include "isocost/trigger.hpp"
#include "support/member_count.hpp"

namespace {

TEST(OptionsMembers, EveryMemberOfACoreOptionsStructIsListed) {
  using namespace isocost;
  ISOCOST_EXPECT_ALL_LISTED(CutOptions);
  ISOCOST_EXPECT_ALL_LISTED(DecomposeOptions);
  ISOCOST_EXPECT_ALL_LISTED(DensityOptions);
  ISOCOST_EXPECT_ALL_LISTED(DiffusionOptions);
  ISOCOST_EXPECT_ALL_LISTED(SimulationOptions);
  ISOCOST_EXPECT_ALL_LISTED(MonitorOptions);
  ISOCOST_EXPECT_ALL_LISTED(PartitionOptions);
  ISOCOST_EXPECT_ALL_LISTED(PiecesOptions);
  ISOCOST_EXPECT_ALL_LISTED(GlobalRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(PhaseRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(WeightsRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(DiffusiveRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(GridGlobalRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(GridWeightsRebalanceOptions);
  ISOCOST_EXPECT_ALL_LISTED(ShiftOptions);
  ISOCOST_EXPECT_ALL_LISTED(CommFitOptions);
  ISOCOST_EXPECT_ALL_LISTED(RebalanceCostOptions);
  ISOCOST_EXPECT_ALL_LISTED(ProfitabilityOptions);
  ISOCOST_EXPECT_ALL_LISTED(StrategyOptions);
  ISOCOST_EXPECT_ALL_LISTED(TaskSelectionOptions);
  ISOCOST_EXPECT_ALL_LISTED(TriggerOptions);
}

// The count itself: a struct with a member its list leaves out is caught.
struct Listed {
  int a = 1;
  double b = 2;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("a", self.a);
    v("b", self.b);
  }
};
struct OneLeftOut {
  int a = 1;
  double b = 2;
  isocost::CutOptions nested;
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("a", self.a);
    v("nested", self.nested);
  }
};

TEST(OptionsMembers, TheCheckSeesAMemberLeftOut) {
  EXPECT_EQ(isocost::testing::member_count<Listed>(), 2u);
  EXPECT_EQ(isocost::testing::listed_fields<Listed>(), 2u);
  EXPECT_EQ(isocost::testing::member_count<OneLeftOut>(), 3u);
  EXPECT_EQ(isocost::testing::listed_fields<OneLeftOut>(), 2u);
}

}  // namespace
