// Shared by the C interface's MPI tests: a call's status and message, and
// the check that every rank got the same of both.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "isocost/isocost_mpi.h"

#include "mpi_test_support.hpp"

namespace isocost::testing {

/// A C call's status and this thread's message right after it.
struct Outcome {
  int status;
  std::string message;
};
/// The status of every argument error.
inline constexpr int kInvalid = ISOCOST_ERROR_INVALID_ARGUMENT;

inline Outcome outcome(int status) { return {status, isocost_last_error()}; }

/// Collective: every rank got `status` and the same message, which holds
/// `part`; the ranks are still in step.
inline void expect_agreed(const Outcome& o, int status, const std::string& part) {
  EXPECT_EQ(o.status, status) << isocost_status_name(o.status) << ": " << o.message;
  int mine = o.status, low = 0, high = 0;
  MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &high, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_EQ(low, high) << "statuses differ across ranks";
  expect_agreed_error(o.message, part);
}

/// The rank that is the odd one out in error tests: the last (rank 0 on one rank).
inline int odd_rank() { return size_of() - 1; }
inline bool odd() { return rank_of() == odd_rank(); }
/// "rank R: ", as agreed messages name the odd rank.
inline std::string odd_name() { return "rank " + std::to_string(odd_rank()) + ": "; }

}  // namespace isocost::testing
