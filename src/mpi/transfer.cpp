// Pieces both data movers share (transfer.hpp).
#include "mpi/transfer.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "isocost/error.hpp"

namespace isocost::mpi::detail {

u64 element_hash(i64 index, const std::byte* p, std::size_t n) {
  u64 h = mix(static_cast<u64>(index) ^ (static_cast<u64>(n) << 48));
  while (n >= 8) {
    u64 w;
    std::memcpy(&w, p, 8);
    h = mix(h ^ w);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    u64 w = 0;
    std::memcpy(&w, p, n);
    h = mix(h ^ w);
  }
  return h;
}

std::string box_text(const CellBox& b) {
  std::string s;
  for (int a = 0; a < 3; ++a)
    s += (a ? " x [" : "[") + std::to_string(b.lo[static_cast<std::size_t>(a)]) + ", " +
         std::to_string(b.hi[static_cast<std::size_t>(a)]) + ")";
  return s;
}

i64 choose_unit(i64 n_max, int P, i64 max_count) {
  i64 g = 1;
  while (ceil_div(n_max, g) + P > max_count) g *= 2;
  return g;
}

std::string check_max_count(i64 max_count, int P) {
  if (max_count <= P)
    return isocost::detail::expected_got(
        "options.max_mpi_count", "more than P = " + std::to_string(P), std::to_string(max_count));
  return {};
}

namespace {

// A committed contiguous datatype of `bytes` bytes, freed on scope exit.
struct UnitType {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  explicit UnitType(i64 bytes) {
    if (bytes > INT_MAX)
      throw Error("migration unit of " + std::to_string(bytes) +
                  " bytes exceeds INT_MAX; expected smaller elements");
    MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type);
    MPI_Type_commit(&type);
  }
  ~UnitType() { MPI_Type_free(&type); }
  UnitType(const UnitType&) = delete;
  UnitType& operator=(const UnitType&) = delete;
};

}  // namespace

void alltoallv_units(MPI_Comm comm, const std::byte* send, const std::vector<i64>& scount,
                     const std::vector<i64>& sdispl, std::byte* recv,
                     const std::vector<i64>& rcount, const std::vector<i64>& rdispl,
                     i64 unit_bytes) {
  const UnitType unit(unit_bytes);
  auto to_int = [](const std::vector<i64>& v) {
    std::vector<int> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = static_cast<int>(v[i]);
    return out;
  };
  const auto sc = to_int(scount), sd = to_int(sdispl), rc = to_int(rcount), rd = to_int(rdispl);
  MPI_Alltoallv(send, sc.data(), sd.data(), unit.type, recv, rc.data(), rd.data(), unit.type, comm);
}

void alltoallv_units(MPI_Comm comm, const std::byte* send, const std::vector<i64>& scount,
                     const std::vector<i64>& sdispl, std::byte* recv,
                     const std::vector<i64>& rcount, const std::vector<i64>& rdispl, i64 unit_bytes,
                     Rider* rider) {
  if (!rider) return alltoallv_units(comm, send, scount, sdispl, recv, rcount, rdispl, unit_bytes);
  const UnitType unit(unit_bytes), record(static_cast<i64>(rider->record));
  const std::size_t P = scount.size();
  // Per peer: a struct of (its units, its records) at absolute addresses.
  std::vector<MPI_Datatype> stype(P, MPI_BYTE), rtype(P, MPI_BYTE);
  std::vector<int> sc(P, 0), rc(P, 0), zero(P, 0);
  const auto make = [](const std::byte* units, i64 n_units, MPI_Datatype unit_type,
                       const std::byte* records, int n_records, MPI_Datatype record_type,
                       MPI_Datatype& out) {
    int lengths[2] = {static_cast<int>(n_units), n_records};
    MPI_Aint where[2] = {0, 0};
    MPI_Get_address(units, &where[0]);
    MPI_Get_address(records, &where[1]);
    MPI_Datatype types[2] = {unit_type, record_type};
    MPI_Type_create_struct(2, lengths, where, types, &out);
    MPI_Type_commit(&out);
  };
  for (std::size_t q = 0; q < P; ++q) {
    if (scount[q] > 0 || rider->send_count[q] > 0) {
      make(send + sdispl[q] * unit_bytes, scount[q], unit.type, rider->send[q],
           rider->send_count[q], record.type, stype[q]);
      sc[q] = 1;
    }
    if (rcount[q] > 0 || rider->recv_count[q] > 0) {
      make(recv + rdispl[q] * unit_bytes, rcount[q], unit.type, rider->recv[q],
           rider->recv_count[q], record.type, rtype[q]);
      rc[q] = 1;
    }
  }
  MPI_Alltoallw(MPI_BOTTOM, sc.data(), zero.data(), stype.data(), MPI_BOTTOM, rc.data(),
                zero.data(), rtype.data(), comm);
  for (std::size_t q = 0; q < P; ++q) {
    if (sc[q]) MPI_Type_free(&stype[q]);
    if (rc[q]) MPI_Type_free(&rtype[q]);
  }
  rider->carried = true;
}

Buffer allocate(i64 bytes) {
  const auto n = static_cast<std::size_t>(std::max<i64>(bytes, 1));
  return Buffer(static_cast<std::byte*>(::operator new[](n, kBufferAlign)));
}

}  // namespace isocost::mpi::detail
