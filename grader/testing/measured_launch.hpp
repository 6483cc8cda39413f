// The global-memory traffic of the last kernel launch, per named array and per block, from
// whichever backend ran it: on the CPU backend its instrumentation; on a GPU the load-counting
// tool (grader/cuda/loadcount, a Compute Sanitizer patch of every global access) when it is
// preloaded into the test binary. Load tests read counts only through here, so the same test
// judges both backends.
//
//     if (!halo::test::load_counter_ready()) return;   // GPU without the tool: reported as skipped
//     const auto& launch = halo::test::measured_launch();
//     const auto* n = launch.array("N");                // n->block_load_elements(1), n->load_elements()
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "backend.hpp"

namespace halo::test {

#if defined(HALO_BACKEND_CPU)

using LaunchCounts = cpu::LaunchRecord;
using ArrayCounts = cpu::ArrayTraffic;
inline const LaunchCounts& measured_launch() { return cpu::last_launch(); }

#else

// Elements (bytes over the element size) loaded and stored by each block of the last launch.
struct ArrayCounts {
  std::string name;
  std::vector<uint64_t> block_loads, block_stores;  // indexed by linear block id

  uint64_t block_load_elements(size_t block) const { return block_loads.at(block); }
  uint64_t block_store_elements(size_t block) const { return block_stores.at(block); }
  uint64_t load_elements() const;
  uint64_t store_elements() const;
};

struct LaunchCounts {
  std::vector<ArrayCounts> arrays;
  std::vector<uint64_t> unnamed_block_load_bytes;  // global memory outside every named array, per block
  size_t blocks = 0;
  size_t block_count() const { return blocks; }
  const ArrayCounts* array(std::string_view name) const;
};

// What the tool counted in the last launch that the host synchronised with (halo::launch does).
const LaunchCounts& measured_launch();

#endif

// Bytes the last launch loaded from global memory other than the arrays named here, and the
// names of the arrays they came from (on a GPU, memory nobody named is "memory the grader did
// not allocate").
uint64_t global_load_bytes_except(const LaunchCounts& launch, std::initializer_list<std::string_view> names,
                                  std::string* sources = nullptr);

// Whether this process can count global loads: always on the CPU backend; on a GPU only with
// the tool preloaded. When it cannot, the call records that a load test was skipped (main()
// then exits with CTest's skip code instead of reporting a pass) and the test returns early.
bool load_counter_ready();
bool load_tests_skipped();

// Names device memory for the counts (and, on the CPU backend, for its diagnostics: read-only
// arrays are inputs, a store into one is reported). `forget` before the memory is freed.
void name_device_memory(const void* ptr, size_t bytes, const std::string& name, size_t element_size, bool read_only);
void forget_device_memory(const void* ptr);

}  // namespace halo::test
