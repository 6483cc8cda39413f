// The Halo half of `./workbook bench --cpu` (tools/halo/bench/bench_cpu.py): times the reference 7.2
// basic and 7.4 tiled kernels on the CPU backend with its full instrumentation (every access
// counted and checked, unless HALO_DIAGNOSTICS=off says otherwise: the JSON says which), checks
// each output against a double-precision reference, and prints one JSON object on stdout.
// Not a test: timings never decide pass or fail.
//
//     bench_cpu_vs_sim [--runs R] [--mask MASK_WIDTH] [--block THREADS] WIDTH...
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "conv1d.hpp"
#include "device_array.hpp"
#include "halo/chapter_data.hpp"
#include "random_inputs.hpp"

void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width);
void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width);
cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width);

namespace {

using namespace halo::test;

struct Measured {
  std::string kernel;
  int width = 0, mask = 0;
  unsigned block = 0;
  unsigned long long threads = 0;
  std::vector<double> seconds;  // wall clock around each launch
  double record_seconds = 0;    // the launch record's own time, last run
  unsigned long long global_accesses = 0, diagnostics = 0;
  bool launched = true, correct = false;
  double max_rel_error = 0;
  size_t wrong = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Measured measure(const std::string& kernel, int width, int mask, unsigned block, int runs) {
  Rng rng(kernel == "basic" ? 72 : 74);
  const std::vector<float> hN = rng.signal(size_t(width)), hM = rng.mask(size_t(mask));
  auto N = DeviceArray<float>::input("N", hN);
  auto M = DeviceArray<float>::input("M", hM);
  const unsigned blocks = halo::blocks_for(unsigned(width), block);
  Measured m{kernel, width, mask, block, (unsigned long long)blocks * block};
  if (kernel == "tiled" && copy_mask_to_constant(hM.data(), mask) != cudaSuccess) {
    m.launched = false;
    return m;
  }
  const Reference want = conv1d_reference(hN, hM);
  for (int run = 0; run < runs; ++run) {
    auto P = DeviceArray<float>::output("P", size_t(width));  // poisoned before every launch
    const auto start = std::chrono::steady_clock::now();
    const cudaError_t err =
        kernel == "basic"
            ? halo::launch(convolution_1D_basic_kernel, dim3(blocks), dim3(block), N.get(), M.get(), P.get(), mask, width)
            : halo::launch(convolution_1D_tiled_kernel, dim3(blocks), dim3(block), N.get(), P.get(), mask, width);
    m.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (err != cudaSuccess) {
      m.launched = false;
      return m;
    }
    if (run == runs - 1) {  // judge the last output
      const auto& rec = halo::cpu::last_launch();
      m.record_seconds = rec.seconds;
      m.global_accesses = rec.space_loads[0].accesses + rec.space_stores[0].accesses;
      m.diagnostics = rec.diagnostic_total();
      const std::vector<float> got = P.download();
      for (size_t i = 0; i < got.size(); ++i) {
        const double scale = want.magnitude[i] > 0 ? want.magnitude[i] : 1.0;
        const double err_i = std::isfinite(got[i]) ? std::fabs(double(got[i]) - want.value[i]) / scale : INFINITY;
        m.max_rel_error = std::max(m.max_rel_error, err_i);
        if (!close_enough(got[i], want.value[i], want.magnitude[i])) ++m.wrong;
      }
      m.correct = m.wrong == 0 && m.diagnostics == 0;
    }
  }
  return m;
}

void print_json(const std::vector<Measured>& rows, int runs) {
  const char* diag = std::getenv("HALO_DIAGNOSTICS");
  const bool checks = !(diag && std::strcmp(diag, "off") == 0);
  std::printf("{\n  \"backend\": \"halo-cpu\",\n  \"checks\": %s,\n  \"hardware_threads\": %u,\n  \"runs\": %d,\n"
              "  \"seed\": %llu,\n  \"rows\": [",
              checks ? "true" : "false", std::thread::hardware_concurrency(), runs,
              (unsigned long long)run_seed());
  for (size_t k = 0; k < rows.size(); ++k) {
    const Measured& m = rows[k];
    std::printf("%s\n    {\"kernel\": \"%s\", \"width\": %d, \"mask\": %d, \"block\": %u, \"threads\": %llu, "
                "\"launched\": %s, \"correct\": %s, \"wrong_outputs\": %zu, \"max_rel_error\": %.3g, "
                "\"diagnostics\": %llu, \"global_accesses\": %llu, \"record_seconds\": %.6f, \"seconds\": [",
                k ? "," : "", m.kernel.c_str(), m.width, m.mask, m.block, m.threads, m.launched ? "true" : "false",
                m.correct ? "true" : "false", m.wrong, m.max_rel_error, m.diagnostics, m.global_accesses,
                m.record_seconds);
    for (size_t r = 0; r < m.seconds.size(); ++r) std::printf("%s%.6f", r ? ", " : "", m.seconds[r]);
    std::printf("], \"median_seconds\": %.6f}", m.seconds.empty() ? 0.0 : median(m.seconds));
  }
  std::printf("\n  ]\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, mask = 5;
  unsigned block = unsigned(halo::data::measurements::tiled_1d_large.blockDim);
  std::vector<int> widths;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--runs" && a + 1 < argc) runs = std::atoi(argv[++a]);
    else if (arg == "--mask" && a + 1 < argc) mask = std::atoi(argv[++a]);
    else if (arg == "--block" && a + 1 < argc) block = unsigned(std::atoi(argv[++a]));
    else if (!arg.empty() && arg[0] != '-') widths.push_back(std::atoi(arg.c_str()));
    else {
      std::fprintf(stderr, "usage: %s [--runs R] [--mask MASK_WIDTH] [--block THREADS] WIDTH...\n", argv[0]);
      return 2;
    }
  }
  if (widths.empty()) widths = {1 << 16, 1 << 20};
  if (runs < 1 || mask < 1 || mask > int(halo::data::defines::MAX_MASK_WIDTH) || block < 1 ||
      block > unsigned(halo::data::defines::TILE_SIZE)) {
    std::fprintf(stderr, "bad --runs, --mask or --block\n");
    return 2;
  }
  std::vector<Measured> rows;
  for (const char* kernel : {"basic", "tiled"})
    for (int w : widths) rows.push_back(measure(kernel, w, mask, block, runs));
  print_json(rows, runs);
  for (const auto& m : rows)
    if (!m.correct) return 3;
  return 0;
}
