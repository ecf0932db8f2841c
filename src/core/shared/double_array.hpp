// core/shared/: shared with the mpi layer — the core's internals other layers use, not users.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <span>

#ifdef __linux__
#include <sys/mman.h>
#endif

namespace isocost::detail {

// An uninitialised array of doubles, for prefix sums that are all written
// once (discrete_model(), mpi::partition_weights()): value-initialising it
// (std::vector) would zero 8n bytes only to overwrite them. On Linux, large arrays are 2 MiB
// aligned and advised as transparent huge pages (madvise(2), MADV_HUGEPAGE): first touch then
// faults once per 2 MiB, not per 4 KiB page, which dominated building 10^7 cells.
class DoubleArray {
 public:
  DoubleArray() = default;  // empty, to be assigned
  explicit DoubleArray(std::size_t n) : size_(n) {
    const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(double);
#ifdef __linux__
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    if (bytes >= 2 * kHuge) {  // padded by less than 2 MiB
      const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
      data_.reset(static_cast<double*>(std::aligned_alloc(kHuge, rounded)));
      if (data_) ::madvise(data_.get(), rounded, MADV_HUGEPAGE);  // only advice: ignore failure
    }
#endif
    if (!data_) data_.reset(static_cast<double*>(std::malloc(bytes)));
    if (!data_) throw std::bad_alloc();
  }
  double* data() { return data_.get(); }
  const double* data() const { return data_.get(); }
  std::size_t size() const { return size_; }
  std::span<const double> span() const { return {data_.get(), size_}; }
  double operator[](std::size_t k) const { return data_[k]; }
  double back() const { return data_[size_ - 1]; }

 private:
  struct Free {
    void operator()(double* p) const { std::free(p); }
  };
  std::unique_ptr<double[], Free> data_;
  std::size_t size_ = 0;
};

}  // namespace isocost::detail
