// Peak resident memory of one call on this rank, for the scaling benchmark.
// Linux: writing "5" to /proc/self/clear_refs resets VmHWM (the peak RSS) to
// the current RSS, so VmHWM after the call minus VmRSS before it is the most
// the call added. Where that write is refused, only getrusage's ru_maxrss
// (the process's lifetime peak: inputs, MPI buffers, earlier cases) is known.
#pragma once

#include <malloc.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstring>

namespace isocost::bench {

/// Fixes glibc's mmap threshold at its default 128 KiB: left dynamic it rises
/// after the first large free(), later repetitions reuse heap pages that are
/// already resident, and their growth would read lower than the first's.
inline void steady_malloc() { mallopt(M_MMAP_THRESHOLD, 128 * 1024); }

/// The "Vm…:" line `key` of /proc/self/status, in MiB (0 if absent).
inline double proc_status_mib(const char* key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0;
  char line[256];
  double kib = 0;
  const std::size_t n = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, n) == 0) {
      std::sscanf(line + n, "%lf", &kib);
      break;
    }
  std::fclose(f);
  return kib / 1024;
}

struct PeakMemory {
  double growth_mib = -1;  ///< peak RSS during the call minus RSS before it; -1 if unknown
  double peak_mib = 0;     ///< the peak RSS itself (with the reset: since the call began)
};

/// Brackets one call: start() before it, stop() after it.
class MemoryWatch {
 public:
  void start() {
    std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
    reset_ = f && std::fputs("5", f) >= 0;
    if (f && std::fclose(f) != 0) reset_ = false;
    before_mib_ = proc_status_mib("VmRSS:");
  }
  PeakMemory stop() const {
    PeakMemory m;
    if (reset_) {
      m.peak_mib = proc_status_mib("VmHWM:");
      m.growth_mib = m.peak_mib - before_mib_;
    } else {
      rusage u{};
      getrusage(RUSAGE_SELF, &u);
      m.peak_mib = static_cast<double>(u.ru_maxrss) / 1024;  // KiB on Linux
    }
    return m;
  }
  /// "vmhwm-reset" or "ru_maxrss": which of the two stop() reported.
  const char* method() const { return reset_ ? "vmhwm-reset" : "ru_maxrss"; }

 private:
  bool reset_ = false;
  double before_mib_ = 0;
};

}  // namespace isocost::bench
