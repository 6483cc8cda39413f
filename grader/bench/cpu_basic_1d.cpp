// Times the instrumented CPU backend on the 7.2 reference kernel (not a test: timings never
// decide pass or fail). Prints the median of several launches of the measured launch from
// chapters/7.2-basic-1d/questions.toml, with full instrumentation (per-array, per-block counts
// and bounds checks on every access) and the machine it ran on.
//
//     ninja -C build/check bench_cpu_basic_1d && build/check/grader/bench/bench_cpu_basic_1d
#include <algorithm>
#include <cstdio>
#include <thread>
#include <vector>

#include "device_array.hpp"
#include "halo/chapter_data.hpp"
#include "random_inputs.hpp"

void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width);

int main() {
  using namespace halo::test;
  const auto& m = halo::data::measurements::basic_1d_large;
  const int width = int(m.Width), mask = int(m.Mask_Width);
  const unsigned block = unsigned(m.blockDim);
  Rng rng(1);
  auto N = DeviceArray<float>::input("N", rng.signal(size_t(width)));
  auto M = DeviceArray<float>::input("M", rng.mask(size_t(mask)));
  auto P = DeviceArray<float>::output("P", size_t(width));

  std::vector<double> seconds;
  for (int run = 0; run < 7; ++run) {
    if (halo::launch(convolution_1D_basic_kernel, dim3(halo::blocks_for(width, block)), dim3(block), N.get(), M.get(),
                     P.get(), mask, width) != cudaSuccess)
      return 1;
    seconds.push_back(halo::cpu::last_launch().seconds);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const auto& rec = halo::cpu::last_launch();
  const double accesses = double(rec.space_loads[0].accesses + rec.space_stores[0].accesses);
  std::printf("7.2 basic kernel, CPU backend, full instrumentation: Width = %d, Mask_Width = %d, %u threads per block\n",
              width, mask, block);
  std::printf("  %u hardware threads; median of %zu launches: %.3f s (min %.3f, max %.3f)\n",
              std::thread::hardware_concurrency(), seconds.size(), median, seconds.front(), seconds.back());
  std::printf("  %.2f M CUDA threads/s, %.1f M instrumented global accesses/s\n", width / median / 1e6,
              accesses / median / 1e6);
  return 0;
}
