// The SM clock over a timed call, read without touching the kernel that is timed: a witness
// kernel enqueued just before the call's start event and another just after its stop event each
// record, on every SM they reach, that SM's cycle counter (clock64, which counts SM clock cycles)
// and the global nanosecond timer. Cycles over nanoseconds between the two marks, per SM, is the
// clock the SMs ran at across the call (plus the few microseconds of the marks themselves); the
// median over SMs is reported.
//
// Why the report wants it: an H200 holds its board to 700 W. A convolution on full-mantissa data
// that streams memory and issues FMAs at once can reach that cap, and the SMs then run below the
// clock at which the FMA-throughput kernel (little memory traffic) measured the FP32 limit.
// Included by timing.cu only (it defines a kernel).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "protocol.hpp"  // median_of

namespace halo::bench {
namespace sm_clock_detail {

struct Mark {
  unsigned long long generation, cycles, ns;
};

// One lane per block records, the first block of this generation to run on its SM (atomicMax
// returns the previous generation: a block seeing an older one is the first).
__global__ void witness_kernel(Mark* marks, int capacity, unsigned long long generation) {
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x != 0 || int(smid) >= capacity) return;
  Mark& m = marks[smid];
  if (atomicMax(&m.generation, generation) >= generation) return;
  unsigned long long ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  m.cycles = static_cast<unsigned long long>(clock64());
  m.ns = ns;
}

}  // namespace sm_clock_detail

class SmClock {
 public:
  explicit SmClock(int sm_count) : capacity_(std::max(sm_count, 1) * 2) {  // %smid may skip numbers
    if (cudaMalloc(&marks_, 2 * size_t(capacity_) * sizeof(sm_clock_detail::Mark)) != cudaSuccess ||
        cudaMemset(marks_, 0, 2 * size_t(capacity_) * sizeof(sm_clock_detail::Mark)) != cudaSuccess) {
      cudaGetLastError();
      marks_ = nullptr;  // no clock column then, nothing else lost
    }
  }
  ~SmClock() { cudaFree(marks_); }
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  // Enqueued on the default stream: before the start event (0) and after the stop event (1).
  // Enough small blocks that every SM runs at least one.
  cudaError_t mark(int which) {
    if (!marks_) return cudaSuccess;
    if (which == 0) ++generation_;
    sm_clock_detail::witness_kernel<<<unsigned(capacity_) * 4, 32>>>(marks_ + size_t(which) * size_t(capacity_),
                                                                       capacity_, generation_);
    return cudaGetLastError();
  }

  // After the stream has finished: the median over SMs of cycles / ns between the two marks,
  // in MHz; 0 when nothing was recorded.
  double mhz() const {
    if (!marks_) return 0;
    std::vector<sm_clock_detail::Mark> h(2 * size_t(capacity_));
    if (cudaMemcpy(h.data(), marks_, h.size() * sizeof(h[0]), cudaMemcpyDeviceToHost) != cudaSuccess) return 0;
    std::vector<double> per_sm;
    for (int s = 0; s < capacity_; ++s) {
      const auto& a = h[size_t(s)];
      const auto& b = h[size_t(capacity_) + size_t(s)];
      if (a.generation == generation_ && b.generation == generation_ && b.ns > a.ns && b.cycles > a.cycles)
        per_sm.push_back(double(b.cycles - a.cycles) / double(b.ns - a.ns) * 1e3);
    }
    return median_of(std::move(per_sm));  // protocol.hpp; 0 when empty
  }

 private:
  int capacity_;
  sm_clock_detail::Mark* marks_ = nullptr;
  unsigned long long generation_ = 0;
};

}  // namespace halo::bench
