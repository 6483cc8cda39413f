// The CUDA constructs learners use, each run on the CPU backend and compared with what a GPU
// does (dialect_kernels.cu, which also builds with nvcc: see CMakeLists.txt).
#include <algorithm>
#include <fstream>
#include <numeric>

#include "halo_test.hpp"

HALO_GLOBAL void min_max_kinds(const int* a, const float* x, int* i_out, float* f_out, int n);
HALO_GLOBAL void print_each_thread(float* out);
HALO_GLOBAL void assert_below(const int* in, int* out, int limit);
template <int R>
HALO_GLOBAL void small_conv(const float* __restrict in, const float* __restrict w, float* __restrict out, size_t n);
extern template void small_conv<2>(const float* __restrict, const float* __restrict, float* __restrict, size_t);
HALO_GLOBAL void count_and_max(const int* in, int* count, int* biggest, int n);
HALO_GLOBAL void atomic_outside(int* host, int* out);
HALO_GLOBAL void reverse_dynamic(const float* in, float* out);
HALO_GLOBAL void neighbours_unguarded(const float* in, float* out, int left);
HALO_GLOBAL void read_mask_past_end(float* out);
HALO_GLOBAL void warp_shuffles_and_votes(const float* in, int n, float* sums, float* up, float* flipped,
                                         float* broadcast, int* ballots, int* votes);
HALO_GLOBAL void local_array_index(float* out, int index);
HALO_GLOBAL void local_pointer_walk(float* out, int step);
HALO_GLOBAL void divide_by(int* out, int d);
extern float mask3[3];

using namespace halo::test;
using halo::cpu::DiagnosticKind;
using halo::cpu::last_launch;

namespace {
std::vector<float> iota(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}

std::string line_of(const std::string& snippet) {
  std::ifstream file(HALO_DIALECT_KERNELS_FILE);
  std::string text;
  for (int n = 1; std::getline(file, text); ++n)
    if (text.find(snippet) != std::string::npos) return "grader/cpu/tests/dialect_kernels.cu:" + std::to_string(n);
  return "(no line holds " + snippet + ")";
}
}  // namespace

TEST_CASE("dialect / min and max of ints and floats, fminf and fmaxf, an unsigned index") {
  const std::vector<int> a = {-5, 0, 3, 9, 100};
  const std::vector<float> x = {-2.0f, -0.25f, 0.25f, 0.75f, 3.0f};
  const int n = int(a.size());
  auto dA = DeviceArray<int>::input("a", a);
  auto dX = DeviceArray<float>::input("x", x);
  auto dI = DeviceArray<int>::output("i_out", a.size());
  auto dF = DeviceArray<float>::output("f_out", x.size());
  REQUIRE(halo::launch(min_max_kinds, dim3(1), dim3(32), dA.get(), dX.get(), dI.get(), dF.get(), n) == cudaSuccess);
  const auto got_i = dI.download();
  const auto got_f = dF.download();
  for (int t = 0; t < n; ++t) {
    CHECK(got_i[t] == std::max(0, std::min(a[t], n - 1)));
    const float want = std::max(std::min(x[t], 1.0f), -1.0f) + std::min(x[t], 0.5f) - std::max(0.0f, x[t]);
    CHECK(got_f[t] == want);
  }
}

TEST_CASE("dialect / printf from a kernel is kept per thread, in thread order, and capped") {
  auto dOut = DeviceArray<float>::output("out", 128);
  REQUIRE(halo::launch(print_each_thread, dim3(2), dim3(64), dOut.get()) == cudaSuccess);
  const auto& r = last_launch();
  CHECK(r.printed_total == 128);
  REQUIRE(r.printed.size() == halo::cpu::LaunchRecord::kPrintedKept);
  CHECK(r.printed[0] == "block (0,0,0) thread (0,0,0): i=0");
  CHECK(r.printed[5] == "block (0,0,0) thread (5,0,0): i=5");
  const std::string shown = kernel_printed();
  CHECK(shown.find("the kernel printed 128 lines in its last launch; the first 20 in block and thread order:") == 0);
  CHECK(failure_text(Verdict{false, "P is wrong"}).find("P is wrong\nthe kernel printed 128 lines") == 0);
  // A launch that prints nothing leaves nothing to show.
  auto dI = DeviceArray<int>::input("in", std::vector<int>{1, 2});
  auto dO = DeviceArray<int>::output("out", 2);
  REQUIRE(halo::launch(assert_below, dim3(1), dim3(2), dI.get(), dO.get(), 10) == cudaSuccess);
  CHECK(kernel_printed().empty());
}

TEST_CASE("dialect / a false device assert stops its thread and names the condition and line") {
  auto dIn = DeviceArray<int>::input("in", std::vector<int>{1, 2, 30, 4});
  auto dOut = DeviceArray<int>::output("out", 4);
  const cudaError_t err = halo::launch(assert_below, dim3(1), dim3(4), dIn.get(), dOut.get(), 10);
  CHECK(err == cudaErrorAssert);
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::assert_failed)] == 1);
  const auto& d = r.first[int(DiagnosticKind::assert_failed)];
  CHECK(d.what == "assert(in[i] < limit) is false");
  CHECK(d.thread.x == 2);
  CHECK(d.where() == "block (0,0,0) thread (2,0,0), " + line_of("assert(in[i] < limit);"));
  const auto out = dOut.download();
  CHECK(out[0] == 1);
  CHECK(out[3] == 4);
  CHECK(r.diagnostics_report().find("device-side assertion failed: assert(in[i] < limit) is false") == 0);
  cudaGetLastError();
}

TEST_CASE("dialect / a template kernel with __restrict__, __ldg, __forceinline__, #pragma unroll and size_t") {
  const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7}, w = {0.5f, -1, 2, 0.25f, 1};
  auto dIn = DeviceArray<float>::input("in", in);
  auto dW = DeviceArray<float>::input("w", w);
  auto dOut = DeviceArray<float>::output("out", in.size());
  REQUIRE(halo::launch(small_conv<2>, dim3(1), dim3(8), dIn.get(), dW.get(), dOut.get(), in.size()) == cudaSuccess);
  const auto out = dOut.download();
  uint64_t loads = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    float want = 0;
    for (int j = -2; j <= 2; ++j) {
      const long long k = (long long)i + j;
      if (k >= 0 && k < (long long)in.size()) {
        want += in[k] * w[j + 2];
        ++loads;
      }
    }
    CHECK(out[i] == want);
  }
  CHECK(last_launch().array("in")->loads.accesses == loads);  // __ldg is a load like any other
}

TEST_CASE("dialect / atomics are atomic across blocks, counted and checked") {
  std::vector<int> in(1000);
  std::iota(in.begin(), in.end(), -500);
  std::reverse(in.begin(), in.end());
  auto dIn = DeviceArray<int>::input("in", in);
  auto dCount = DeviceArray<int>::output("count", 1);
  auto dMax = DeviceArray<int>::output("biggest", 1);
  dCount.upload({0});
  dMax.upload({-1000});
  REQUIRE(halo::launch(count_and_max, dim3(8), dim3(128), dIn.get(), dCount.get(), dMax.get(), 1000) == cudaSuccess);
  CHECK(dCount.download()[0] == 1000);
  CHECK(dMax.download()[0] == 499);
  const auto* count = last_launch().array("count");
  CHECK(count->loads.accesses == 1000);  // each atomic reads and writes its word once
  CHECK(count->stores.accesses == 1000);
}

TEST_CASE("dialect / an atomic outside the launch's memory is stopped before it happens") {
  std::vector<int> records(4, 0);  // stands for the runtime's own memory
  auto dOut = DeviceArray<int>::output("out", 4);
  const cudaError_t err = halo::launch(atomic_outside, dim3(1), dim3(4), records.data(), dOut.get());
  CHECK(err == cudaErrorIllegalAddress);
  CHECK(last_launch().counts[int(DiagnosticKind::outside_memory)] == 4);
  CHECK(std::all_of(records.begin(), records.end(), [](int v) { return v == 0; }));
  cudaGetLastError();
}

TEST_CASE("dialect / extern __shared__ holds the bytes the launch gives, and no more") {
  const std::vector<float> in = iota(96);
  auto dIn = DeviceArray<float>::input("in", in);
  auto dOut = DeviceArray<float>::output("out", in.size());
  REQUIRE(halo::launch(reverse_dynamic, dim3(3), dim3(32), halo::DynamicShared{32 * sizeof(float)}, dIn.get(),
                       dOut.get()) == cudaSuccess);
  const auto out = dOut.download();
  for (int i = 0; i < 96; ++i) CHECK(out[i] == in[(i / 32) * 32 + 31 - i % 32]);
  CHECK(last_launch().space_loads[int(halo::cpu::Space::shared)].accesses == 96);

  // 16 floats given, 32 used: threads 16..31 write past them, threads 0..15 then read there.
  const cudaError_t err = halo::launch(reverse_dynamic, dim3(1), dim3(32), halo::DynamicShared{16 * sizeof(float)},
                                       dIn.get(), dOut.get());
  CHECK(err == cudaErrorIllegalAddress);
  CHECK(last_launch().counts[int(DiagnosticKind::out_of_bounds)] == 32);
  const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
  CHECK(d.what == "read of dynamic_tile[31] in shared memory, outside dynamic_tile[0..15] (16 elements): past the end "
                  "of the 64 bytes of dynamic shared memory this launch gave (extern __shared__)");
  CHECK(d.thread.x == 0);
  cudaGetLastError();
  CHECK(halo::launch(reverse_dynamic, dim3(1), dim3(32), halo::DynamicShared{halo::cpu::kDynamicSharedMaxBytes + 4},
                     dIn.get(), dOut.get()) == cudaErrorInvalidValue);
  cudaGetLastError();
}

TEST_CASE("dialect / a __shared__ array read one past either end is named with its index and size") {
  auto dIn = DeviceArray<float>::input("in", iota(64));
  auto dOut = DeviceArray<float>::output("out", 64);
  for (int left : {0, 1}) {
    CHECK(halo::launch(neighbours_unguarded, dim3(1), dim3(64), dIn.get(), dOut.get(), left) == cudaErrorIllegalAddress);
    const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
    CHECK(last_launch().counts[int(DiagnosticKind::out_of_bounds)] == 1);
    CHECK(d.what == (left ? "read of tile[-1] in shared memory, outside tile[0..63] (64 elements): before the first element"
                          : "read of tile[64] in shared memory, outside tile[0..63] (64 elements): past the end of tile"));
    CHECK(d.where() == std::string("block (0,0,0) thread (") + (left ? "0" : "63") + ",0,0), " +
                           line_of("out[t] = left ? tile[t - 1] : tile[t + 1];"));
    cudaGetLastError();
  }
}

TEST_CASE("dialect / a __constant__ array read past its end is named with its index and size") {
  const float weights[3] = {0.25f, 0.5f, 0.25f};
  REQUIRE(cudaMemcpyToSymbol(mask3, weights, sizeof weights) == cudaSuccess);
  auto dOut = DeviceArray<float>::output("out", 4);
  CHECK(halo::launch(read_mask_past_end, dim3(1), dim3(3), dOut.get()) == cudaSuccess);
  CHECK(dOut.download()[2] == 0.25f);
  CHECK(halo::launch(read_mask_past_end, dim3(1), dim3(4), dOut.get()) == cudaErrorIllegalAddress);
  const auto& r = last_launch();
  CHECK(r.counts[int(DiagnosticKind::out_of_bounds)] == 1);
  const auto& d = r.first[int(DiagnosticKind::out_of_bounds)];
  CHECK(d.what == "read of mask3[3] in constant memory, outside mask3[0..2] (3 elements): past the end of mask3");
  CHECK(d.where() == "block (0,0,0) thread (3,0,0), " + line_of("out[threadIdx.x] = mask3[threadIdx.x];"));
  cudaGetLastError();
}

TEST_CASE("dialect / warp shuffles and votes exchange values within each warp of 32 lanes") {
  const int n = 100, threads = 128, warps = threads / 32;  // the last warp is partly past n
  const std::vector<float> in = iota(size_t(n));          // 1, 2, ..., 100
  auto dIn = DeviceArray<float>::input("in", in);
  auto sums = DeviceArray<float>::output("sums", warps), up = DeviceArray<float>::output("up", threads);
  auto flipped = DeviceArray<float>::output("flipped", threads);
  auto broadcast = DeviceArray<float>::output("broadcast", threads);
  auto ballots = DeviceArray<int>::output("ballots", warps);
  auto votes = DeviceArray<int>::output("votes", 2 * warps);
  REQUIRE(halo::launch(warp_shuffles_and_votes, dim3(2), dim3(64), dIn.get(), n, sums.get(), up.get(), flipped.get(),
                       broadcast.get(), ballots.get(), votes.get()) == cudaSuccess);
  auto value = [&](int i) { return i < n ? in[size_t(i)] : 0.0f; };
  for (int w = 0; w < warps; ++w) {
    float sum = 0;
    unsigned positive = 0;
    for (int lane = 0; lane < 32; ++lane) {
      sum += value(32 * w + lane);
      positive |= (value(32 * w + lane) > 0 ? 1u : 0u) << lane;
    }
    CHECK(sums.download()[size_t(w)] == sum);
    CHECK(unsigned(ballots.download()[size_t(w)]) == positive);
    CHECK(votes.download()[size_t(2 * w)] == (32 * w + 31 > 50 && 32 * w + 1 <= n ? 1 : 0));
    CHECK(votes.download()[size_t(2 * w + 1)] == (32 * w + 31 < n ? 1 : 0));
  }
  const auto got_up = up.download(), got_flipped = flipped.download(), got_broadcast = broadcast.download();
  for (int i = 0; i < threads; ++i) {
    const int lane = i % 32;
    CHECK(got_up[size_t(i)] == (lane == 0 ? value(i) : value(i - 1)));
    CHECK(got_flipped[size_t(i)] == value(i ^ 1));
    CHECK(got_broadcast[size_t(i)] == value(i - lane % 8 + 3));
  }
}

TEST_CASE("dialect / a write past a local array is named with its index and size, before it happens") {
  auto dOut = DeviceArray<float>::output("out", 4);
  CHECK(halo::launch(local_array_index, dim3(1), dim3(4), dOut.get(), 7) == cudaSuccess);
  for (int index : {8, -1}) {
    CHECK(halo::launch(local_array_index, dim3(1), dim3(4), dOut.get(), index) == cudaErrorIllegalAddress);
    const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
    CHECK(d.what == "write of acc[" + std::to_string(index) + "], outside acc[0..7] (8 elements), local array");
    CHECK(d.where() == "block (0,0,0) thread (0,0,0), " + line_of("acc[index] = 1.0f;"));
    cudaGetLastError();
  }
}

TEST_CASE("dialect / a pointer walked from a local array onto a saved return address is stopped") {
  auto dOut = DeviceArray<float>::output("out", 4);
  CHECK(halo::launch(local_pointer_walk, dim3(1), dim3(4), dOut.get(), 3) == cudaSuccess);
  // Far enough to pass the frame's saved registers: the frame record or the grader's frame above.
  bool stopped = false;
  for (int step = 8; step < 64 && !stopped; ++step) {
    const cudaError_t e = halo::launch(local_pointer_walk, dim3(1), dim3(4), dOut.get(), step);
    cudaGetLastError();
    if (e == cudaSuccess) continue;
    stopped = true;
    CHECK(e == cudaErrorIllegalAddress);
    const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
    CHECK(d.what.find("write to the thread's stack outside its local variables") == 0);
    CHECK(d.where() == "block (0,0,0) thread (0,0,0), " + line_of("p[step] = 1.0f;"));
  }
  CHECK(stopped);
}

TEST_CASE("dialect / an integer division by zero is named before it happens") {
  auto dOut = DeviceArray<int>::output("out", 4);
  CHECK(halo::launch(divide_by, dim3(1), dim3(4), dOut.get(), 2) == cudaSuccess);
  CHECK(halo::launch(divide_by, dim3(1), dim3(4), dOut.get(), 0) != cudaSuccess);
  const auto& d = last_launch().first[int(DiagnosticKind::crash)];
  CHECK(d.what == "the thread crashed: integer division by zero");
  CHECK(d.where() == "block (0,0,0) thread (0,0,0), " + line_of("out[threadIdx.x] = int(threadIdx.x) / d;"));
  cudaGetLastError();
}
