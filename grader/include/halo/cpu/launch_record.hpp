// What the CPU backend measured during one kernel launch: memory accesses per array, per
// block and (on request) per thread, and the diagnostics it raised. Tests read this through
// halo::cpu::last_launch() after a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "halo/cpu/cuda_runtime.hpp"

namespace halo::cpu {

// One direction (loads or stores) of traffic: how many instructions, how many bytes.
struct Traffic {
  uint64_t accesses = 0;
  uint64_t bytes = 0;
  Traffic& operator+=(const Traffic& o) {
    accesses += o.accesses;
    bytes += o.bytes;
    return *this;
  }
};

// The memory spaces an access can fall into, decided by address (see access_check.cpp).
enum class Space : uint8_t { global, constant, shared, local, host };
inline constexpr int kSpaceCount = 5;
const char* space_name(Space s);

// Global-memory traffic to one registered array.
struct ArrayTraffic {
  std::string name;
  size_t element_size = 1;
  Traffic loads, stores;
  std::vector<Traffic> block_loads, block_stores;  // indexed by linear block id
  std::vector<uint32_t> thread_loads, thread_stores;  // elements per global thread id; empty unless requested
  // How many times each element of the array was loaded (stored), indexed by byte offset /
  // element_size over the whole allocation, so a pitched image's padding has slots of its own.
  // A vector access counts each element it covers once. Empty unless set_count_per_element(true).
  std::vector<uint32_t> element_loads, element_stores;
  // Loads split by when they happened in the block: before the loading thread's first
  // __syncthreads() (phase 0, e.g. filling a shared tile) and after it (phase 1, e.g. halo reads
  // of a cached kernel). Indexed by linear block id, like block_loads.
  std::vector<Traffic> block_loads_phase[2];

  uint64_t load_elements() const { return loads.bytes / element_size; }
  uint64_t store_elements() const { return stores.bytes / element_size; }
  uint64_t block_load_elements(size_t block) const { return block_loads.at(block).bytes / element_size; }
  uint64_t block_store_elements(size_t block) const { return block_stores.at(block).bytes / element_size; }
  uint64_t block_load_elements_before_barrier(size_t block) const { return block_loads_phase[0].at(block).bytes / element_size; }
  uint64_t block_load_elements_after_barrier(size_t block) const { return block_loads_phase[1].at(block).bytes / element_size; }
};

enum class DiagnosticKind : uint8_t {
  out_of_bounds,     // global access outside an array (ghost cells, past the end)
  pitch_padding,     // access to the padding of a pitched image
  write_to_input,    // store into an array registered as read-only
  barrier_divergence,
  todo_reached,      // the stub's HALO_TODO() ran
  shared_race,       // two threads of a block touch one shared word in one barrier interval, one writing
  uninitialised_shared_read,  // a read of shared memory no thread of the block has written yet
  launch_timeout,    // the launch ran past its time limit
  crash,             // a thread of the kernel crashed (segmentation fault, bus error, division by zero)
  outside_memory,    // a store outside the kernel's arrays, shared, local and constant memory (the
                     // grader's own state among it): stopped before it happens, checks on or off
  assert_failed,     // a device-side assert() was false: the thread stops, as the launch would on a GPU
  work_limit,        // a thread made more memory accesses than one may (thread_access_limit): the
                     // launch is stopped there, in milliseconds, not after its CPU limit
  tile_copy,         // a tensor copy or tile barrier used against the rules a GPU holds it to
                     // (halo/given/tile_copy.cuh): a wait that would hang, the wrong phase, ...
  block_race,        // a block reads a global element another block of the launch writes (or the
                     // reverse): right or wrong by which block ran first (block_race.cpp)
  misaligned_address,  // a 16-byte vector access (a float4) at an address that is not a multiple
                       // of 16: stopped before it happens, as a GPU stops it (alignment_check.cpp)
  count_
};
inline constexpr int kDiagnosticKinds = static_cast<int>(DiagnosticKind::count_);
const char* diagnostic_kind_name(DiagnosticKind k);

struct Diagnostic {
  DiagnosticKind kind{};
  uint3 block, thread;
  uint64_t order = 0;       // linear block * threads per block + linear thread: "first" = smallest
  const void* pc = nullptr; // return address of the instrumentation callback, for the source line
  std::string what;         // the sentence without the where (thread, block, line)
  // The other side of a two-thread diagnostic (a race): its thread and the line of its access.
  bool has_other = false;
  uint3 other_thread;
  const void* other_pc = nullptr;
  std::string other_role;   // e.g. "wrote it"
  // `file:line` of pc and other_pc, once resolved (the worker resolves them before it sends a
  // record to the judge, which cannot symbolise the worker's addresses); empty: resolve pc.
  std::string line, other_line;
  void resolve_lines();
  std::string where() const;  // "block (3,0,0) thread (17,0,0), file.cu:14"
  std::string full() const;
};

struct LaunchRecord {
  bool valid = false;
  dim3 grid, block;
  cudaError_t error = cudaSuccess;
  std::vector<ArrayTraffic> arrays;
  Traffic space_loads[kSpaceCount], space_stores[kSpaceCount];
  std::vector<Traffic> block_space_loads[kSpaceCount];  // per block, per space
  std::vector<Traffic> block_space_stores[kSpaceCount];
  Diagnostic first[kDiagnosticKinds];                   // valid where counts[k] > 0
  uint64_t counts[kDiagnosticKinds] = {};
  double seconds = 0;
  // What the kernel printed (printf, puts, putchar), one entry per call that printed a line,
  // "block (0,0,0) thread (3,0,0): text", in block and thread order; at most kPrintedKept of
  // printed_total.
  static constexpr size_t kPrintedKept = 20;
  std::vector<std::string> printed;
  uint64_t printed_total = 0;

  size_t block_count() const { return size_t(grid.x) * grid.y * grid.z; }
  size_t threads_per_block() const { return size_t(block.x) * block.y * block.z; }
  const ArrayTraffic* array(std::string_view name) const;
  uint64_t diagnostic_total() const;
  // Every diagnostic kind: the first in full, then how many more ("and 1023 more like it").
  std::string diagnostics_report() const;
};

// The record of the most recent launch on this process.
const LaunchRecord& last_launch();

// Per-thread load counts cost memory proportional to the grid; tests ask for them explicitly.
void set_count_per_thread(bool on);

// Per-element counts (ArrayTraffic::element_loads, element_stores) cost memory proportional to
// the arrays and an atomic add per global access; off by default, and free while off. The load
// heat maps (grader/bench/load_heatmaps.cpp) ask for them.
void set_count_per_element(bool on);

// The order in which the threads of a block run between two barriers. Results must not
// depend on it; running both exposes order-dependent kernels that no single check sees.
enum class Schedule : uint8_t { forward, reverse };
void set_schedule(Schedule s);

// With checks off, accesses are only counted (no bounds, padding, race or initialisation
// checks): the baseline for measuring what the checks cost. HALO_DIAGNOSTICS=off sets it too.
void set_checks(bool on);

// A launch is stopped and reported once one of its worker threads has spent this many seconds
// of CPU time on it (HALO_LAUNCH_TIMEOUT); <= 0: launch_cpu_limit, which scales with the launch.
void set_launch_timeout(double seconds);

// The CPU limit of a launch when none is set: a base plus an allowance per CUDA thread, many
// times what a right kernel of the chapter spends (docs/grader.md gives the measurements), so
// that an endless loop in a small launch is stopped within seconds and a right kernel never is.
inline constexpr double kLaunchCpuBase = 2.0;
inline constexpr double kLaunchCpuPerThread = 40e-6;
inline double launch_cpu_limit(dim3 grid, dim3 block) {  // inline: the judge computes it too
  const double threads = double(grid.x) * grid.y * grid.z * double(block.x) * block.y * block.z;
  return kLaunchCpuBase + kLaunchCpuPerThread * threads;
}
// The most memory accesses (loads and stores, any memory) one CUDA thread may make in a launch:
// a base plus an allowance per thread of its block, for a thread that loads a whole tile for its
// block. The chapter's reference kernels make fewer than 800 per thread (docs/grader.md gives the
// measurement); a thread that loops over the whole input, or forever while touching memory, is
// stopped at this count with its own message, long before the CPU limit.
inline constexpr uint64_t kThreadAccessBase = uint64_t(1) << 16;
inline constexpr uint64_t kThreadAccessPerBlockThread = 64;
inline uint64_t thread_access_limit(dim3 block) {
  return kThreadAccessBase + kThreadAccessPerBlockThread * uint64_t(block.x) * block.y * block.z;
}
// How many diagnostics one worker may raise in a launch before the launch is abandoned: a kernel
// wrong in every access (every thread storing a whole tile, say) is stopped in milliseconds, its
// first diagnostic of each kind already found; the report says the launch was cut short.
inline constexpr uint64_t kDiagnosticLimit = uint64_t(1) << 20;
// The wall-clock backstop, for a thread that blocks instead of spinning: this many times the
// CPU limit, plus this many seconds.
inline constexpr double kWallClockFactor = 4.0;
inline constexpr double kWallClockSlack = 30.0;

// Names device memory so that reports say `N[1024]` rather than an address. `read_only`
// arrays are kernel inputs: a store into one is a diagnostic. Images (from cudaMallocPitch)
// also need their width in elements so that padding can be recognised.
void name_array(const void* device_ptr, std::string name, size_t element_size, bool read_only);
void describe_image(const void* device_ptr, size_t width_elements, size_t height);

}  // namespace halo::cpu

namespace halo::cpu {
// Every HALO_TODO() that ran in this process, kernel or host code, as `file:line: what`.
std::vector<std::string> todos_reached();
}  // namespace halo::cpu
