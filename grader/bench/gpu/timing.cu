// Timing with CUDA events: warm-up, then the median of many runs, each after an L2 flush.
#include "timing.hpp"

#include <algorithm>
#include <vector>

namespace halo::bench {

Timer::Timer(size_t l2_bytes, int warmup, int runs) : warmup_(warmup), runs_(runs) {
  flush_bytes_ = std::max<size_t>(2 * l2_bytes, size_t(8) << 20);
  HALO_CUDA_CHECK(cudaMalloc(&flush_, flush_bytes_));
  HALO_CUDA_CHECK(cudaEventCreate(&start_));
  HALO_CUDA_CHECK(cudaEventCreate(&stop_));
}

Timer::~Timer() {
  cudaFree(flush_);
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void Timer::flush_l2(int k) {
  // Writing every line of a buffer twice the L2's size evicts whatever the last run left there.
  HALO_CUDA_CHECK(cudaMemsetAsync(flush_, k & 0xff, flush_bytes_, 0));
}

Timing Timer::time(const std::function<cudaError_t()>& enqueue) {
  Timing t;
  auto failed = [&](cudaError_t err, const char* when) {
    t.error = std::string(when) + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")";
    return t;
  };
  for (int k = 0; k < warmup_; ++k) {
    flush_l2(k);
    if (cudaError_t err = enqueue(); err != cudaSuccess) return failed(err, "launch");
  }
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) return failed(err, "warm-up run");
  std::vector<double> ms;
  for (int k = 0; k < runs_; ++k) {
    flush_l2(k);
    HALO_CUDA_CHECK(cudaEventRecord(start_, 0));
    if (cudaError_t err = enqueue(); err != cudaSuccess) return failed(err, "launch");
    HALO_CUDA_CHECK(cudaEventRecord(stop_, 0));
    if (cudaError_t err = cudaEventSynchronize(stop_); err != cudaSuccess) return failed(err, "timed run");
    float elapsed = 0;
    HALO_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start_, stop_));
    ms.push_back(elapsed);
  }
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  t.ok = n > 0;
  t.runs = int(n);
  if (n) {
    t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    t.min_ms = ms.front();
    t.max_ms = ms.back();
  }
  return t;
}

}  // namespace halo::bench
