// Zoltan (Trilinos 13.2, C interface) as a peer in bench_peers: the
// geometric methods BLOCK, RCB and HSFC on weighted points. Kept apart from
// zoltan.h so the other files do not see its macros.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace isocost::bench::zoltan {

/// Zoltan_Initialize (once, after MPI_Init).
void initialize(int argc, char** argv);

/// This rank's objects: `dims` coordinates each (interleaved) and one weight;
/// global ids first_id, first_id + 1, … (contiguous per rank, in rank order).
struct Objects {
  int dims = 1;
  std::span<const double> coords;
  std::span<const double> weights;
  std::int64_t first_id = 0;
};

/// Settings passed to Zoltan_Set_Param.
struct Settings {
  const char* method = "RCB";         ///< LB_METHOD: BLOCK, RCB or HSFC
  int parts = 1;                      ///< NUM_GLOBAL_PARTS
  const char* imbalance_tol = "1.0";  ///< IMBALANCE_TOL (Zoltan's default is 1.1)
  /// RCB_RECTILINEAR_BLOCKS = 1: the points on a cut go to one side, so the
  /// parts are boxes (as isocost's are). Zoltan's default (0) splits them.
  bool rectilinear = false;
};

/// Zoltan_LB_Partition with RETURN_LISTS = PARTITION ASSIGNMENTS; each local
/// object's part. Throws isocost::Error if Zoltan reports an error.
/// Every object's part, and the parameters as they were handed to Zoltan
/// ("LB_METHOD=RCB IMBALANCE_TOL=1.0 …"): the report prints them beside the time.
struct Partitioned {
  std::vector<int> part;
  std::string settings;
};
Partitioned partition(MPI_Comm comm, const Objects& objects, const Settings& settings);

/// "Zoltan 3.83" as Zoltan_Initialize reports it.
std::string version();

}  // namespace isocost::bench::zoltan
