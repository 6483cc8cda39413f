// Tests of the CPU backend itself: it must run kernels like a GPU (barriers, indices, atomics,
// launch errors), measure like the chapter counts (per array, per space), and stop and explain
// bad accesses. Every check here is against a kernel whose behaviour is known exactly.
#include <algorithm>
#include <fstream>
#include <numeric>

#include "halo_test.hpp"

HALO_GLOBAL void reverse_each_block(const float* in, float* out);
HALO_GLOBAL void shifted_copy(const float* in, float* out, int offset, int n);
HALO_GLOBAL void scribble_on_input(const float* in, float* out, int n);
HALO_GLOBAL void sum_constant_weights(float* out, int count);
HALO_GLOBAL void half_block_barrier(float* out);
HALO_GLOBAL void pitched_copy(const float* in, float* out, int width, int height, int pitch, int extra);
HALO_GLOBAL void through_local_array(const float* in, float* out, int n);
HALO_GLOBAL void record_coordinates(int* out);
HALO_GLOBAL void count_everything(int* counter);
HALO_GLOBAL void unfinished(float* out);
HALO_GLOBAL void neighbour_without_barrier(const float* in, float* out);
HALO_GLOBAL void read_unwritten_shared(float* out);
HALO_GLOBAL void last_writer_wins(int* out);
HALO_GLOBAL void spin_forever(const float* in, float* out);
HALO_GLOBAL void spin_in_registers(const float* in, float* out);
HALO_GLOBAL void every_thread_races(int* out);
HALO_GLOBAL void crash_in_thread_3(float* bad, float* out);
HALO_GLOBAL void store_outside(float* host, float* out);
HALO_GLOBAL void pair_sums(const float* in, float* out, int n);
HALO_GLOBAL void add_first(const float* in, float* out, int n);
HALO_GLOBAL void copy_as_float4(const float* in, float* out, int n4);
HALO_GLOBAL void float4_read_at(const float* in, float* out, int offset);
HALO_GLOBAL void float4_write_at(float* out, int offset);
HALO_GLOBAL void four_floats_read_at(const float* in, float* out, int offset);
HALO_GLOBAL void read_previous_block(float* out, int n);
HALO_GLOBAL void read_next_block(float* out, int n);
HALO_GLOBAL void load_around_barrier(const float* in, float* out);
HALO_GLOBAL void read_beside_dynamic(float* out, long long offset);
extern float weights[16];
extern "C" thread_local unsigned char halo_dynamic_shared_memory[];
namespace halo::cpu {
struct Worker;
extern constinit thread_local Worker* tls_worker;  // the runtime's own state (execution.hpp)
}  // namespace halo::cpu

using namespace halo::test;
using halo::cpu::DiagnosticKind;
using halo::cpu::last_launch;
using halo::cpu::Space;

namespace {
// "grader/cpu/tests/runtime_kernels.cu:<line>" of the first line holding `snippet`, so that the
// expected source lines follow edits of the kernels file.
std::string line_of(const std::string& snippet) {
  std::ifstream file(HALO_RUNTIME_KERNELS_FILE);
  std::string text;
  for (int n = 1; std::getline(file, text); ++n)
    if (text.find(snippet) != std::string::npos) return "grader/cpu/tests/runtime_kernels.cu:" + std::to_string(n);
  return "(no line holds " + snippet + ")";
}

std::vector<float> iota_floats(size_t n) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), 1.0f);
  return v;
}
uint64_t count_of(DiagnosticKind k) { return last_launch().counts[int(k)]; }
}  // namespace

TEST_CASE("runtime / barriers order shared-memory writes before reads") {
  const auto in = iota_floats(64 * 5);
  auto dIn = DeviceArray<float>::input("in", in);
  auto dOut = DeviceArray<float>::output("out", in.size());
  REQUIRE(halo::launch(reverse_each_block, dim3(5), dim3(64), dIn.get(), dOut.get()) == cudaSuccess);
  const auto out = dOut.download();
  for (size_t b = 0; b < 5; ++b)
    for (size_t t = 0; t < 64; ++t) REQUIRE(out[b * 64 + t] == in[b * 64 + 63 - t]);
  const auto& r = last_launch();
  CHECK(r.diagnostic_total() == 0);
  CHECK(r.array("in")->load_elements() == in.size());
  CHECK(r.array("out")->store_elements() == in.size());
  CHECK(r.space_stores[int(Space::shared)].accesses == in.size());
  CHECK(r.space_loads[int(Space::shared)].accesses == in.size());
  CHECK(r.array("in")->block_load_elements(3) == 64);
  CHECK(r.array("in")->block_load_elements_before_barrier(3) == 64);  // every load precedes the barrier
  CHECK(r.array("in")->block_load_elements_after_barrier(3) == 0);
}

// The runtime counts an array's loads by phase only, and the global space's traffic not at all:
// both are added up from the rest when a block ends (scheduler.cpp's flush_tally).
TEST_CASE("runtime / an array's loads are its loads before and after the barrier, and global traffic is its arrays'") {
  const auto in = iota_floats(64 * 3);
  auto dIn = DeviceArray<float>::input("in", in);
  auto dOut = DeviceArray<float>::output("out", in.size());
  REQUIRE(halo::launch(load_around_barrier, dim3(3), dim3(64), dIn.get(), dOut.get()) == cudaSuccess);
  CHECK(dOut.download()[70] == 2.0f * 71.0f);
  const auto& r = last_launch();
  REQUIRE(r.diagnostic_total() == 0);
  const auto& a = *r.array("in");
  CHECK(a.loads.accesses == 2 * in.size());
  CHECK(a.loads.bytes == 2 * in.size() * sizeof(float));
  for (size_t b = 0; b < 3; ++b) {
    CHECK(a.block_load_elements_before_barrier(b) == 64);
    CHECK(a.block_load_elements_after_barrier(b) == 64);
    CHECK(a.block_load_elements(b) == 128);
    CHECK(r.block_space_loads[int(Space::global)][b].accesses == 128);
    CHECK(r.block_space_stores[int(Space::global)][b].accesses == 64);
  }
  CHECK(r.space_loads[int(Space::global)].accesses == 2 * in.size());
  CHECK(r.space_loads[int(Space::global)].bytes == 2 * in.size() * sizeof(float));
  CHECK(r.space_stores[int(Space::global)].accesses == in.size());
  CHECK(r.space_stores[int(Space::global)].bytes == in.size() * sizeof(float));
}

TEST_CASE("runtime / an out-of-bounds read is stopped and named with index and line") {
  const auto in = iota_floats(100);
  auto dIn = DeviceArray<float>::input("N", in);
  auto dOut = DeviceArray<float>::output("P", 100);
  CHECK(halo::launch(shifted_copy, dim3(1), dim3(128), dIn.get(), dOut.get(), -2, 100) == cudaErrorIllegalAddress);
  CHECK(count_of(DiagnosticKind::out_of_bounds) == 2);  // threads 0 and 1
  const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
  CHECK(d.what.find("read of N[-2], outside N[0..99] (100 elements)") != std::string::npos);
  CHECK(d.what.find("ghost cell before the first element") != std::string::npos);
  CHECK(d.thread.x == 0);
  INFO(d.where());
  CHECK(d.where().find(line_of("out[i] = in[i + offset]")) != std::string::npos);
  const auto out = dOut.download();
  CHECK(is_poison(out[0]));  // stopped before the store
  CHECK(out[2] == in[0]);    // the other threads ran on
  CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
}

TEST_CASE("runtime / an out-of-bounds write past the end is named") {
  auto dIn = DeviceArray<float>::input("N", iota_floats(300));
  auto dOut = DeviceArray<float>::output("P", 256);
  halo::launch(shifted_copy, dim3(2), dim3(256), dIn.get(), dOut.get(), 0, 300);
  const auto& d = last_launch().first[int(DiagnosticKind::out_of_bounds)];
  CHECK(d.what.find("write to P[256], outside P[0..255] (256 elements): past the end of P") != std::string::npos);
  CHECK(d.block.x == 1);
  CHECK(d.thread.x == 0);
  CHECK(count_of(DiagnosticKind::out_of_bounds) == 44);
}

TEST_CASE("runtime / a write to an input is refused") {
  auto dIn = DeviceArray<float>::input("N", iota_floats(10));
  auto dOut = DeviceArray<float>::output("P", 10);
  halo::launch(scribble_on_input, dim3(1), dim3(10), dIn.get(), dOut.get(), 10);
  CHECK(count_of(DiagnosticKind::write_to_input) == 10);
  CHECK(last_launch().first[int(DiagnosticKind::write_to_input)].what ==
        "write to N[0], but N is an input of this kernel (read-only)");
  CHECK(dIn.download() == iota_floats(10));  // nothing was written
}

TEST_CASE("runtime / constant memory is counted apart from global memory") {
  const auto w = iota_floats(16);
  REQUIRE(cudaMemcpyToSymbol(weights, w.data(), 16 * sizeof(float)) == cudaSuccess);
  CHECK(cudaMemcpyToSymbol(weights, w.data(), 17 * sizeof(float)) == cudaErrorInvalidValue);
  CHECK(cudaGetLastError() == cudaErrorInvalidValue);
  auto dOut = DeviceArray<float>::output("P", 32);
  REQUIRE(halo::launch(sum_constant_weights, dim3(1), dim3(32), dOut.get(), 5) == cudaSuccess);
  CHECK(dOut.download()[7] == 15.0f);
  const auto& r = last_launch();
  CHECK(r.space_loads[int(Space::constant)].accesses == 32 * 5);
  CHECK(r.space_loads[int(Space::global)].accesses == 0);
}

TEST_CASE("runtime / threads waiting at a barrier others never reach are reported") {
  auto dOut = DeviceArray<float>::output("P", 64);
  halo::launch(half_block_barrier, dim3(1), dim3(64), dOut.get());
  REQUIRE(count_of(DiagnosticKind::barrier_divergence) == 1);
  CHECK(last_launch().first[int(DiagnosticKind::barrier_divergence)].what ==
        "32 of 64 threads wait at __syncthreads() on line " + line_of("    __syncthreads();").substr(36) +
            " while 32 have already returned");
}

// Two width x height pitched images of floats, named "in" (read-only) and "out", as the
// tests of images use them; both have the same pitch.
struct PitchedPair {
  void* raw_in = nullptr;
  void* raw_out = nullptr;
  size_t pitch = 0;
  PitchedPair(int width, int height) {
    size_t pitch2 = 0;
    REQUIRE(cudaMallocPitch(&raw_in, &pitch, width * sizeof(float), height) == cudaSuccess);
    REQUIRE(cudaMallocPitch(&raw_out, &pitch2, width * sizeof(float), height) == cudaSuccess);
    REQUIRE(pitch2 == pitch);
    halo::cpu::name_array(raw_in, "in", sizeof(float), true);
    halo::cpu::name_array(raw_out, "out", sizeof(float), false);
    halo::cpu::describe_image(raw_in, width, height);
    halo::cpu::describe_image(raw_out, width, height);
  }
};

TEST_CASE("runtime / pitched images: padding is off limits, rows are named") {
  const int width = 37, height = 5;
  const PitchedPair images(width, height);
  void* raw_in = images.raw_in;
  void* raw_out = images.raw_out;
  const size_t pitch = images.pitch;
  CHECK(pitch == 512);
  std::vector<float> host(size_t(width) * height, 2.5f);
  REQUIRE(cudaMemcpy2D(raw_in, pitch, host.data(), width * sizeof(float), width * sizeof(float), height,
                       cudaMemcpyHostToDevice) == cudaSuccess);
  const int pitch_elems = int(pitch / sizeof(float));
  auto* in = static_cast<float*>(raw_in);
  auto* out = static_cast<float*>(raw_out);
  CHECK(halo::launch(pitched_copy, dim3(1, 1), dim3(64, 8), in, out, width, height, pitch_elems, 0) == cudaSuccess);
  CHECK(last_launch().diagnostic_total() == 0);
  CHECK(last_launch().array("in")->load_elements() == size_t(width) * height);
  halo::launch(pitched_copy, dim3(1, 1), dim3(64, 8), in, out, width, height, pitch_elems, 1);
  CHECK(count_of(DiagnosticKind::pitch_padding) == size_t(height));
  CHECK(last_launch().first[int(DiagnosticKind::pitch_padding)].what ==
        "read of in[row 0][col 37]: that column is pitch padding (width 37, pitch 128 elements): either a column "
        "index reached the width (guard columns with the width, never the pitch), or rows were stepped by the width "
        "(row 1, col 0 is element 37 of an image whose rows are width elements apart): rows of a pitched image start "
        "pitch elements apart, row * pitch + col");
  cudaFree(raw_in);
  cudaFree(raw_out);
}

TEST_CASE("runtime / stack arrays are local memory, not global") {
  auto dIn = DeviceArray<float>::input("in", iota_floats(40));
  auto dOut = DeviceArray<float>::output("out", 40);
  REQUIRE(halo::launch(through_local_array, dim3(1), dim3(64), dIn.get(), dOut.get(), 40) == cudaSuccess);
  CHECK(dOut.download()[13] == 14.0f * 5.0f);
  const auto& r = last_launch();
  CHECK(r.space_stores[int(Space::local)].accesses == 40 * 8);
  CHECK(r.space_loads[int(Space::local)].accesses == 40);
  CHECK(r.array("in")->load_elements() == 40);  // in[i] is loaded once and kept in a register
}

TEST_CASE("runtime / 3D grids and blocks number threads like CUDA") {
  const dim3 grid(3, 2, 2), block(4, 2, 3);
  const size_t total = 3 * 2 * 2 * 4 * 2 * 3;
  auto dOut = DeviceArray<int>::output("out", total);
  REQUIRE(halo::launch(record_coordinates, grid, block, dOut.get()) == cudaSuccess);
  const auto out = dOut.download();
  // The last thread of the last block: every coordinate at its maximum.
  CHECK(out[total - 1] == 3 + 10 * 1 + 100 * 2 + 1000 * 2 + 10000 * 1 + 100000 * 1);
  CHECK(out[0] == 0);
  CHECK(last_launch().diagnostic_total() == 0);
}

TEST_CASE("runtime / atomics are atomic across blocks on different cores") {
  auto dCount = DeviceArray<int>::output("counter", 1);
  dCount.upload({0});
  REQUIRE(halo::launch(count_everything, dim3(200), dim3(256), dCount.get()) == cudaSuccess);
  CHECK(dCount.download()[0] == 200 * 256);
  CHECK(last_launch().diagnostic_total() == 0);  // blocks may share an element through atomics
}

namespace {
// One launch of `kernel` on `workers` workers: its output, and its race-between-blocks report.
template <class Kernel>
std::pair<std::vector<float>, std::string> run_on_workers(Kernel kernel, const char* workers) {
  setenv("HALO_THREADS", workers, 1);
  auto dOut = DeviceArray<float>::output("out", 1000);
  halo::launch(kernel, dim3(4), dim3(256), dOut.get(), 1000);
  unsetenv("HALO_THREADS");
  const auto& r = last_launch();
  std::string report = r.counts[int(DiagnosticKind::block_race)] ? r.first[int(DiagnosticKind::block_race)].full() : "";
  return {dOut.download(), report + " x" + std::to_string(r.counts[int(DiagnosticKind::block_race)])};
}
}  // namespace

TEST_CASE("runtime / a block reading another block's output is a race, named the same on any number of workers") {
  const auto one = run_on_workers(read_previous_block, "1");
  INFO(one.second);
  CHECK(one.second.find("read of out[255], which block (0,0,0) of this launch wrote") != std::string::npos);
  CHECK(one.second.find("block (1,0,0) thread (0,0,0), " + line_of("out[i - 1] != out[i - 1]")) != std::string::npos);
  CHECK(one.second.find(" x3") != std::string::npos);  // blocks 1, 2 and 3
  for (const char* workers : {"2", "3", "4"}) {
    const auto many = run_on_workers(read_previous_block, workers);
    CHECK(many == one);  // the same report and the same output, whichever block ran first
  }
}

TEST_CASE("runtime / a block writing what another block has read is the same race, found at the write") {
  const auto one = run_on_workers(read_next_block, "1");
  INFO(one.second);
  CHECK(one.second.find("write to out[256], which block (0,0,0) of this launch read") != std::string::npos);
  CHECK(one.second.find("block (1,0,0) thread (0,0,0), " + line_of("out[i] = float(i) + (next")) != std::string::npos);
  for (const char* workers : {"2", "4"}) CHECK(run_on_workers(read_next_block, workers) == one);
}

TEST_CASE("runtime / launch configurations CUDA refuses are refused") {
  auto dOut = DeviceArray<float>::output("P", 8);
  CHECK(halo::launch(half_block_barrier, dim3(1), dim3(2048), dOut.get()) == cudaErrorInvalidConfiguration);
  CHECK(halo::launch(half_block_barrier, dim3(1), dim3(16, 16, 16), dOut.get()) == cudaErrorInvalidConfiguration);
  CHECK(halo::launch(half_block_barrier, dim3(0), dim3(32), dOut.get()) == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);  // reading the error clears it
  CHECK(std::string(cudaGetErrorString(cudaErrorInvalidConfiguration)) == "invalid configuration argument");
}

TEST_CASE("runtime / memory API errors") {
  float host[4] = {1, 2, 3, 4};
  void* d = nullptr;
  REQUIRE(cudaMalloc(&d, sizeof host) == cudaSuccess);
  CHECK(cudaMemcpy(d, host, sizeof host + 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
  CHECK(cudaMemcpy(d, host, sizeof host, cudaMemcpyKind(7)) == cudaErrorInvalidMemcpyDirection);
  CHECK(cudaMemset(d, 0, sizeof host) == cudaSuccess);
  CHECK(cudaFree(host) == cudaErrorInvalidDevicePointer);
  CHECK(cudaFree(d) == cudaSuccess);
  cudaGetLastError();
}

TEST_CASE("runtime / a stub's TODO is reported with its file and line") {
  auto dOut = DeviceArray<float>::output("P", 4);
  halo::launch(unfinished, dim3(1), dim3(4), dOut.get());
  CHECK(count_of(DiagnosticKind::todo_reached) == 4);
  const std::string notes = stub_notes();
  CHECK(notes == "still a stub: " + line_of("HALO_TODO(\"nothing here yet\")") + ": TODO: nothing here yet");
}

TEST_CASE("runtime / a shared-memory read before the barrier is a race with both threads named") {
  auto dIn = DeviceArray<float>::input("in", iota_floats(32));
  auto dOut = DeviceArray<float>::output("out", 32);
  halo::launch(neighbour_without_barrier, dim3(1), dim3(32), dIn.get(), dOut.get());
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::shared_race)] > 0);
  const auto& d = r.first[int(DiagnosticKind::shared_race)];
  INFO(d.full());
  // Thread 0 runs first and reads element 1 before thread 1 writes it: the read is
  // uninitialised, and thread 1's write after thread 0's read in the same interval is the race.
  CHECK(r.counts[int(DiagnosticKind::uninitialised_shared_read)] > 0);
  CHECK(d.what.find("write to element 1 of tile in shared memory while thread (0,0,0) read it") != std::string::npos);
  CHECK(d.what.find("missing __syncthreads()") != std::string::npos);
  CHECK(d.thread.x == 1);
  CHECK(d.full().find(line_of("tile[t] = in[t];")) != std::string::npos);  // the write
  CHECK(d.full().find("and thread (0,0,0) read it, " + line_of("out[t] = tile[")) != std::string::npos);
}

TEST_CASE("runtime / reading shared memory no thread wrote is reported by name") {
  auto dOut = DeviceArray<float>::output("out", 8);
  halo::launch(read_unwritten_shared, dim3(1), dim3(8), dOut.get());
  const auto& r = last_launch();
  CHECK(r.counts[int(DiagnosticKind::uninitialised_shared_read)] == 8);
  CHECK(r.first[int(DiagnosticKind::uninitialised_shared_read)].what ==
        "read of element 0 of never_written in shared memory, which no thread of this block has written yet");
}

TEST_CASE("runtime / the reverse schedule exposes an order-dependent result") {
  auto dOut = DeviceArray<int>::output("out", 1);
  halo::launch(last_writer_wins, dim3(1), dim3(16), dOut.get());
  CHECK(dOut.download()[0] == 15);  // forward: thread 15 stores last
  CHECK(last_launch().counts[int(DiagnosticKind::shared_race)] > 0);
  halo::cpu::set_schedule(halo::cpu::Schedule::reverse);
  halo::launch(last_writer_wins, dim3(1), dim3(16), dOut.get());
  halo::cpu::set_schedule(halo::cpu::Schedule::forward);
  CHECK(dOut.download()[0] == 0);  // reverse: thread 0 stores last
}

TEST_CASE("runtime / a launch past its time limit is stopped and says which thread ran") {
  auto dIn = DeviceArray<float>::input("in", iota_floats(4));
  auto dOut = DeviceArray<float>::output("out", 64);
  halo::cpu::set_launch_timeout(0.3);
  const cudaError_t err = halo::launch(spin_in_registers, dim3(4), dim3(16), dIn.get(), dOut.get());
  halo::cpu::set_launch_timeout(20);
  CHECK(err == cudaErrorLaunchTimeout);
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::launch_timeout)] >= 1);
  CHECK(r.first[int(DiagnosticKind::launch_timeout)].what.find("did not finish within 0.3 s") != std::string::npos);
  // Both workers were in a block (each with its 16 threads unfinished); the other 2 blocks never started.
  INFO(r.first[int(DiagnosticKind::launch_timeout)].what);
  CHECK(r.first[int(DiagnosticKind::launch_timeout)].what.find("still running when it was stopped: ") != std::string::npos);
  CHECK(r.first[int(DiagnosticKind::launch_timeout)].what.find(" blocks never started") != std::string::npos);
  // Stopped wherever it was: any line of the loop.
  const std::string where = r.first[int(DiagnosticKind::launch_timeout)].where();
  INFO(where);
  const auto number = [](const std::string& at) { return std::stoi(at.substr(at.rfind(':') + 1)); };
  const int line = number(where);
  CHECK(line >= number(line_of("while (x != 0)")));
  CHECK(line <= number(line_of("out[threadIdx.x] = float(steps);")));
  CHECK(r.seconds < 5);
  cudaGetLastError();
}

TEST_CASE("runtime / a thread past the access limit stops the launch at once, with its line") {
  auto dIn = DeviceArray<float>::input("in", iota_floats(4));
  auto dOut = DeviceArray<float>::output("out", 64);
  const cudaError_t err = halo::launch(spin_forever, dim3(64), dim3(16), dIn.get(), dOut.get());
  CHECK(err == cudaErrorLaunchTimeout);
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::work_limit)] >= 1);
  CHECK(r.counts[int(DiagnosticKind::launch_timeout)] == 0);  // long before the CPU limit
  const auto& d = r.first[int(DiagnosticKind::work_limit)];
  INFO(d.full());
  CHECK(d.what.find("this thread made " + std::to_string(halo::cpu::thread_access_limit(dim3(16))) +
                    " memory accesses, the most one thread may make") == 0);
  CHECK(d.where().find(line_of("s += in[k];")) != std::string::npos);
  // The other threads were not each left to reach the limit: the launch was abandoned.
  CHECK(r.counts[int(DiagnosticKind::work_limit)] <= 2);  // at most one per worker
  CHECK(r.seconds < 2);
  cudaGetLastError();
}

TEST_CASE("runtime / a launch raising diagnostics at every access is cut short, and says so") {
  // Every thread stores into one shared word: a race per store after the first, 2^20 and more.
  auto dOut = DeviceArray<int>::output("out", 1);
  const cudaError_t err = halo::launch(every_thread_races, dim3(4096), dim3(512), dOut.get());
  CHECK(err == cudaSuccess);  // a race is no launch error on a GPU: the report fails the test
  const auto& r = last_launch();
  const auto& d = r.first[int(DiagnosticKind::shared_race)];
  INFO(d.full());
  CHECK(r.counts[int(DiagnosticKind::shared_race)] >= halo::cpu::kDiagnosticLimit);
  CHECK(d.what.find("the launch was stopped after ") != std::string::npos);
  CHECK(d.block.x == 0);  // the first of them all is still the one shown
  cudaGetLastError();
}

TEST_CASE("runtime / a store outside the launch's memory is stopped, with the checks on or off") {
  for (bool checks : {true, false}) {
    std::vector<float> records(8, 0.0f);  // what a kernel must never reach: the runtime's own memory
    auto dOut = DeviceArray<float>::output("out", 8);
    halo::cpu::set_checks(checks);
    const cudaError_t err = halo::launch(store_outside, dim3(1), dim3(8), records.data(), dOut.get());
    halo::cpu::set_checks(true);
    CHECK(err == cudaErrorIllegalAddress);
    const auto& r = last_launch();
    CHECK(r.counts[int(DiagnosticKind::outside_memory)] == 8);
    CHECK(r.first[int(DiagnosticKind::outside_memory)].what.find("write to memory that is not an array") == 0);
    CHECK(std::all_of(records.begin(), records.end(), [](float v) { return v == 0.0f; }));
    CHECK(is_poison(dOut.download()[0]));  // each thread stopped at the store
    cudaGetLastError();
  }
}

TEST_CASE("runtime / a crash in one thread is reported and the others run on") {
  auto dOut = DeviceArray<float>::output("out", 8);
  const cudaError_t err = halo::launch(crash_in_thread_3, dim3(1), dim3(8), static_cast<float*>(nullptr), dOut.get());
  CHECK(err == cudaErrorIllegalAddress);
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::crash)] == 1);
  const auto& d = r.first[int(DiagnosticKind::crash)];
  CHECK(d.thread.x == 3);
  CHECK(d.what.find("the thread crashed: segmentation fault at address 0xc") != std::string::npos);
  CHECK(d.full().find(line_of("bad[threadIdx.x] = 1.0f")) != std::string::npos);
  const auto out = dOut.download();
  CHECK(out[2] == 2.0f);
  CHECK(is_poison(out[3]));
  CHECK(out[4] == 2.0f);
  cudaGetLastError();
}

// Checks off, so that no bounds check of shared memory names the access first: the guard of the
// runtime's own state is never turned off.
TEST_CASE("runtime / a kernel that reads the runtime's own pointer to its worker is stopped, even with checks off") {
  auto dOut = DeviceArray<float>::output("P", 32);
  // Where tls_worker lies from the dynamic shared memory: the same in every thread's TLS block.
  const long long offset = reinterpret_cast<const char*>(&halo::cpu::tls_worker) -
                           reinterpret_cast<const char*>(halo_dynamic_shared_memory);
  halo::cpu::set_checks(false);
  halo::launch(read_beside_dynamic, dim3(1), dim3(32), dOut.get(), offset);
  halo::cpu::set_checks(true);
  REQUIRE(count_of(DiagnosticKind::outside_memory) == 32);
  CHECK(last_launch().first[int(DiagnosticKind::outside_memory)].what ==
        "read of the grader's own state in shared memory (outside every __shared__ variable of the kernel)");
  CHECK(last_launch().array("P")->store_elements() == 0);
}

TEST_CASE("runtime / with checks off accesses are counted and nothing is judged") {
  auto dIn = DeviceArray<float>::input("N", iota_floats(100));
  auto dOut = DeviceArray<float>::output("P", 100);
  halo::cpu::set_checks(false);
  halo::launch(neighbour_without_barrier, dim3(1), dim3(32), dIn.get(), dOut.get());
  halo::cpu::set_checks(true);
  CHECK(last_launch().diagnostic_total() == 0);
  CHECK(last_launch().array("N")->load_elements() == 32);
}

TEST_CASE("runtime / per-element counts are off by default") {
  auto dIn = DeviceArray<float>::input("N", iota_floats(40));
  auto dOut = DeviceArray<float>::output("P", 40);
  REQUIRE(halo::launch(pair_sums, dim3(3), dim3(16), dIn.get(), dOut.get(), 40) == cudaSuccess);
  const auto& r = last_launch();
  CHECK(r.array("N")->load_elements() == 2 * 39);
  CHECK(r.array("N")->element_loads.empty());
  CHECK(r.array("N")->element_stores.empty());
  CHECK(r.array("P")->element_stores.empty());
}

TEST_CASE("runtime / per-element counts: each input element read as often as the kernel reads it") {
  const int n = 40;
  const auto in = iota_floats(n);
  auto dIn = DeviceArray<float>::input("N", in);
  auto dOut = DeviceArray<float>::output("P", n);
  halo::cpu::set_count_per_element(true);
  const cudaError_t err = halo::launch(pair_sums, dim3(3), dim3(16), dIn.get(), dOut.get(), n);
  halo::cpu::set_count_per_element(false);
  REQUIRE(err == cudaSuccess);
  CHECK(dOut.download()[5] == in[5] + in[6]);
  const auto& r = last_launch();
  const auto& N = *r.array("N");
  const auto& P = *r.array("P");
  REQUIRE(N.element_loads.size() == size_t(n));
  REQUIRE(P.element_stores.size() == size_t(n));
  CHECK(N.element_loads.front() == 1);  // only thread 0 reads N[0]
  CHECK(N.element_loads.back() == 1);   // only thread n-2 reads N[n-1]
  for (int e = 1; e < n - 1; ++e) {
    INFO("N[" << e << "]");
    CHECK(N.element_loads[size_t(e)] == 2);  // threads e-1 and e
  }
  CHECK(std::accumulate(N.element_loads.begin(), N.element_loads.end(), uint64_t(0)) == N.load_elements());
  CHECK(std::accumulate(N.element_stores.begin(), N.element_stores.end(), uint64_t(0)) == 0);
  CHECK(std::accumulate(P.element_loads.begin(), P.element_loads.end(), uint64_t(0)) == 0);
  for (int e = 0; e < n; ++e) {
    INFO("P[" << e << "]");
    CHECK(P.element_stores[size_t(e)] == (e < n - 1 ? 1u : 0u));  // P[n-1] is never written
  }
  CHECK(std::accumulate(P.element_stores.begin(), P.element_stores.end(), uint64_t(0)) == P.store_elements());
}

TEST_CASE("runtime / per-element counts: blocks on many cores adding to one element lose no count") {
  const int n = 1 << 16;
  auto dIn = DeviceArray<float>::input("N", iota_floats(n));
  auto dOut = DeviceArray<float>::output("P", n);
  halo::cpu::set_count_per_element(true);
  const cudaError_t err = halo::launch(add_first, dim3(n / 256), dim3(256), dIn.get(), dOut.get(), n);
  halo::cpu::set_count_per_element(false);
  REQUIRE(err == cudaSuccess);
  const auto& N = *last_launch().array("N");
  REQUIRE(N.element_loads.size() == size_t(n));
  CHECK(N.element_loads[0] == uint32_t(n - 1));  // every thread but 0, from all 256 blocks
  CHECK(std::count(N.element_loads.begin() + 1, N.element_loads.end(), 1u) == n - 1);
  CHECK(std::accumulate(N.element_loads.begin(), N.element_loads.end(), uint64_t(0)) == N.load_elements());
}

TEST_CASE("runtime / per-element counts: a float4 access counts each of its four elements once") {
  const int n = 64;
  auto dIn = DeviceArray<float>::input("N", iota_floats(n));
  auto dOut = DeviceArray<float>::output("P", n);
  halo::cpu::set_count_per_element(true);
  const cudaError_t err = halo::launch(copy_as_float4, dim3(1), dim3(32), dIn.get(), dOut.get(), n / 4);
  halo::cpu::set_count_per_element(false);
  REQUIRE(err == cudaSuccess);
  CHECK(dOut.download() == iota_floats(n));
  const auto& r = last_launch();
  const auto& N = *r.array("N");
  const auto& P = *r.array("P");
  CHECK(N.loads.accesses == size_t(n / 4));  // one 16-byte load per thread
  CHECK(N.loads.bytes == size_t(n) * sizeof(float));
  REQUIRE(N.element_loads.size() == size_t(n));
  CHECK(std::count(N.element_loads.begin(), N.element_loads.end(), 1u) == n);
  CHECK(std::count(P.element_stores.begin(), P.element_stores.end(), 1u) == n);
  CHECK(std::accumulate(N.element_loads.begin(), N.element_loads.end(), uint64_t(0)) == N.load_elements());
}

// A GPU stops a float4 access off a 16-byte boundary; x86-64 faults on it (movaps) and aarch64 does
// not: the compile's alignment check (alignment_checks.py) names it alike on both, after counting it.
TEST_CASE("runtime / a float4 read off a 16-byte boundary is stopped and named, with its line, after it is counted") {
  const int threads = 8;
  auto dIn = DeviceArray<float>::input("N", iota_floats(4 * threads + 4));
  auto dOut = DeviceArray<float>::output("P", threads);
  const cudaError_t err = halo::launch(float4_read_at, dim3(1), dim3(threads), dIn.get(), dOut.get(), 1);
  CHECK(err == cudaErrorMisalignedAddress);
  const auto& r = last_launch();
  REQUIRE(r.counts[int(DiagnosticKind::misaligned_address)] == size_t(threads));
  const auto& d = r.first[int(DiagnosticKind::misaligned_address)];
  CHECK(d.thread.x == 0);
  CHECK(d.what.find("16-byte read of N[1], an address that is not a multiple of 16") == 0);
  CHECK(d.full().find(line_of("*reinterpret_cast<const float4*>(in + offset")) != std::string::npos);
  CHECK(r.array("N")->loads.accesses == size_t(threads));  // each counted once, then stopped
  CHECK(is_poison(dOut.download()[0]));
  CHECK(std::string(cudaGetErrorString(cudaGetLastError())) == "misaligned address");
}

TEST_CASE("runtime / a float4 write off a 16-byte boundary is stopped and named") {
  auto dOut = DeviceArray<float>::output("P", 4 * 4 + 4);
  CHECK(halo::launch(float4_write_at, dim3(1), dim3(4), dOut.get(), 2) == cudaErrorMisalignedAddress);
  const auto& d = last_launch().first[int(DiagnosticKind::misaligned_address)];
  CHECK(d.what.find("16-byte write to P[2], an address that is not a multiple of 16") == 0);
  CHECK(is_poison(dOut.download()[2]));  // stopped before the store
  cudaGetLastError();
}

// A false alarm on a right kernel is as bad as a miss: a float4 on a 16-byte boundary, and a
// 16-byte read the IR aligns to 4 bytes anywhere, pass, each counted as one access of 16 bytes.
TEST_CASE("runtime / float4 reads on a 16-byte boundary and 4-byte-aligned 16-byte reads pass, each counted once") {
  const int threads = 8;
  const auto in = iota_floats(4 * threads + 4);
  auto dIn = DeviceArray<float>::input("N", in);
  auto dOut = DeviceArray<float>::output("P", threads);
  struct Case {
    decltype(&float4_read_at) kernel;
    int offset;
  };
  for (const Case c : {Case{float4_read_at, 4}, Case{four_floats_read_at, 1}, Case{four_floats_read_at, 4}}) {
    CAPTURE(c.offset);
    REQUIRE(halo::launch(c.kernel, dim3(1), dim3(threads), dIn.get(), dOut.get(), c.offset) == cudaSuccess);
    const auto& r = last_launch();
    CHECK(r.counts[int(DiagnosticKind::misaligned_address)] == 0);
    CHECK(r.array("N")->loads.accesses == size_t(threads));
    CHECK(r.array("N")->loads.bytes == size_t(threads) * 16);
    const auto out = dOut.download();
    const size_t first = size_t(c.offset);
    CHECK(out[0] == in[first] + in[first + 1] + in[first + 2] + in[first + 3]);
  }
}

// On one row no pixel of a width-strided image lies in the padding: only the column guard fits.
TEST_CASE("runtime / pitched images: padding no width-strided row reaches names the column guard alone") {
  const int width = 37, height = 1;
  const PitchedPair images(width, height);
  const int pitch_elems = int(images.pitch / sizeof(float));
  halo::launch(pitched_copy, dim3(1, 1), dim3(64, 8), static_cast<float*>(images.raw_in),
               static_cast<float*>(images.raw_out), width, height, pitch_elems, 1);
  REQUIRE(count_of(DiagnosticKind::pitch_padding) == 1);
  CHECK(last_launch().first[int(DiagnosticKind::pitch_padding)].what ==
        "read of in[row 0][col 37]: that column is pitch padding (width 37, pitch 128 elements); "
        "guard columns with the width, never the pitch");
  cudaFree(images.raw_in);
  cudaFree(images.raw_out);
}

TEST_CASE("runtime / per-element counts of a pitched image give the padding slots of its own") {
  const int width = 37, height = 5;
  const PitchedPair images(width, height);
  void* raw_in = images.raw_in;
  void* raw_out = images.raw_out;
  const size_t pitch = images.pitch;
  const int pitch_elems = int(pitch / sizeof(float));
  halo::cpu::set_count_per_element(true);
  const cudaError_t err = halo::launch(pitched_copy, dim3(1, 1), dim3(64, 8), static_cast<const float*>(raw_in),
                                       static_cast<float*>(raw_out), width, height, pitch_elems, 0);
  halo::cpu::set_count_per_element(false);
  CHECK(err == cudaSuccess);
  const auto& in = *last_launch().array("in");
  REQUIRE(in.element_loads.size() == size_t(pitch_elems) * height);
  for (int row = 0; row < height; ++row)
    for (int col = 0; col < pitch_elems; ++col) {
      INFO("row " << row << " col " << col);
      CHECK(in.element_loads[size_t(row) * pitch_elems + col] == (col < width ? 1u : 0u));
    }
  CHECK(std::accumulate(in.element_loads.begin(), in.element_loads.end(), uint64_t(0)) == in.load_elements());
  cudaFree(raw_in);
  cudaFree(raw_out);
}
