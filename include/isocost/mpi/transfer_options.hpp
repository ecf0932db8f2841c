// isocost/mpi/transfer_options.hpp — the settings of every data movement
// (mpi layer): redistribute() between two distributions (redistribute.hpp)
// and migrate() through callbacks (migrate.hpp).
#pragma once

#include <climits>
#include <cstdint>
#include <string>

#include "isocost/options.hpp"

namespace isocost::mpi {

/// Settings for redistribute() and migrate() (RedistributeOptions and
/// MigrateOptions name it). Must be the same on every rank (compared through
/// the agreement hash).
struct TransferOptions {
  /// Verification, at the cost of one more pass over the data on each side.
  /// redistribute(): every rank sums a 64-bit hash of (global index, the
  /// element's bytes) over its elements before and after, together with the
  /// element counts, in the totals' MPI_Allreduce (no extra collective).
  /// migrate(): before any unpack, the receivers' count and 64-bit checksum
  /// of (id, bytes) over the arrived records are compared with the senders'
  /// (one extra MPI_Allreduce), and an id not expected from its sender is
  /// caught. A mismatch throws the same Error on every rank (migrate():
  /// nothing unpacked or freed).
  bool verify = false;
  /// The largest count or displacement handed to MPI, in [2, INT_MAX]. Only
  /// to exercise the large-transfer path (units of g > 1 elements) in tests
  /// with small data; leave the default otherwise. Must exceed P.
  std::int64_t max_mpi_count = INT_MAX;

  /// The field list (options.hpp): validation, JSON and the agreement hash.
  template <class Self, class V>
  static void fields(Self& self, V&& v) {
    v("verify", self.verify);
    v("max_mpi_count", self.max_mpi_count, closed(2, INT_MAX));
  }
  bool is_valid(std::string* why) const { return check_fields(*this, why); }
  /// Throws Error("transfer options: …") unless is_valid().
  void validate() const { validate_options(*this, "transfer options"); }
};

}  // namespace isocost::mpi
