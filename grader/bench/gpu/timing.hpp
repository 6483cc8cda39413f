// Timing with CUDA events: warm-up, then the median of many runs, each after an L2 flush.
#pragma once

#include <string>

#include "bench.hpp"

namespace halo::bench {

struct Timing {
  bool ok = false;
  std::string error;  // why there is no time (a launch or execution error)
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
};

class Timer {
 public:
  // The flush buffer is twice the L2 (read from the device's properties), so a run never finds
  // the previous run's data in the cache: each run pays for its DRAM traffic.
  Timer(size_t l2_bytes, int warmup, int runs);
  ~Timer();
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

  // `enqueue` puts one run on the default stream and returns its launch error.
  Timing time(const std::function<cudaError_t()>& enqueue);
  size_t flush_bytes() const { return flush_bytes_; }
  int warmup() const { return warmup_; }
  int runs() const { return runs_; }

 private:
  void flush_l2(int k);
  void* flush_ = nullptr;
  size_t flush_bytes_ = 0;
  int warmup_, runs_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace halo::bench
