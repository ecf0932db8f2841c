// The C sizes and field offsets of the structs module isocost declares as
// bind(c) types, for test_fortran_mpi's layout check.
#include <cstddef>

#include "isocost/isocost.h"
#include "isocost/isocost_mpi.h"

extern "C" {
std::size_t isocost_test_c_size(int which) noexcept {
  switch (which) {
    case 1:
      return sizeof(struct isocost_load_stats);
    case 2:
      return sizeof(struct isocost_fit_summary);
    case 3:
      return sizeof(struct isocost_fit_options);
    case 4:
      return sizeof(isocost_balancer_options);
    case 5:
      return sizeof(isocost_balancer_decision);
    case 6:
      return offsetof(isocost_balancer_decision, new_local_count);
    case 7:
      return offsetof(isocost_balancer_options, log_path);
    case 8:
      return offsetof(struct isocost_fit_summary, parameters);
    case 9:
      return offsetof(struct isocost_fit_options, hi);
    case 10:
      return sizeof(struct isocost_part);
    case 11:
      return offsetof(struct isocost_part, cost);
    case 12:
      return sizeof(struct isocost_decomposition);
    case 13:
      return offsetof(struct isocost_decomposition, total_cost);
    default:
      return 0;
  }
}
}
