// The nearest-boundary reduction (nearest.hpp).
#include "mpi/nearest.hpp"

namespace isocost::mpi::detail {

namespace {

void keep_nearest(void* in, void* inout, int* len, MPI_Datatype*) {
  const auto* a = static_cast<const Nearest*>(in);
  auto* c = static_cast<Nearest*>(inout);
  for (int k = 0; k < *len; ++k) {
    const bool earlier =
        a[k].first < c[k].first || (a[k].first == c[k].first && a[k].second < c[k].second);
    if (a[k].distance < c[k].distance || (a[k].distance == c[k].distance && earlier)) c[k] = a[k];
  }
}

}  // namespace

NearestReduction::NearestReduction() {
  MPI_Type_contiguous(sizeof(Nearest), MPI_BYTE, &type_);
  MPI_Type_commit(&type_);
  MPI_Op_create(&keep_nearest, 1, &op_);
}

NearestReduction::~NearestReduction() {
  MPI_Op_free(&op_);
  MPI_Type_free(&type_);
}

}  // namespace isocost::mpi::detail
