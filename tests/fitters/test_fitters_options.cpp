// Every options struct of the fitters lists every member in its fields()
// (options.hpp; the core's: test_options_members.cpp).
#include <gtest/gtest.h>

#include "isocost/fitters/fit.hpp"
#include "isocost/fitters/fit_density.hpp"
#include "support/member_count.hpp"

namespace {

TEST(OptionsMembers, EveryMemberOfAFittersOptionsStructIsListed) {
  using namespace isocost;
  ISOCOST_EXPECT_ALL_LISTED(FitOptions);
  ISOCOST_EXPECT_ALL_LISTED(SelectOptions);
  ISOCOST_EXPECT_ALL_LISTED(RepartitionOptions);
  ISOCOST_EXPECT_ALL_LISTED(DensityFitOptions);
}

}  // namespace
