#include "measured_launch.hpp"

#include <cstdio>

#if defined(HALO_BACKEND_CUDA)
#include <dlfcn.h>

#include <map>
#include <numeric>
#endif

namespace halo::test {
namespace {
bool skipped = false;
}

bool load_tests_skipped() { return skipped; }

#if defined(HALO_BACKEND_CPU)

bool load_counter_ready() { return true; }

void name_device_memory(const void* ptr, size_t, const std::string& name, size_t element_size, bool read_only) {
  cpu::name_array(ptr, name, element_size, read_only);
}
void forget_device_memory(const void*) {}  // the CPU backend's cudaFree forgets the array itself

uint64_t global_load_bytes_except(const LaunchCounts& launch, std::initializer_list<std::string_view> names,
                                  std::string* sources) {
  uint64_t bytes = 0;  // every global access falls in an array the CPU backend knows
  for (const auto& a : launch.arrays) {
    bool named = false;
    for (auto n : names) named = named || a.name == n;
    if (named || a.loads.bytes == 0) continue;
    bytes += a.loads.bytes;
    if (sources) *sources += (sources->empty() ? "" : ", ") + a.name;
  }
  return bytes;
}

#else

namespace {

// The tool's C interface (grader/cuda/loadcount/tool.cpp), found at run time: the test binary
// does not link against the tool, so without LD_PRELOAD every pointer stays null.
struct Tool {
  void (*register_range)(const void*, size_t, const char*, unsigned) = nullptr;
  void (*unregister_range)(const void*) = nullptr;
  long long (*block_elements)(const char*, unsigned, int) = nullptr;
  long long (*other_bytes)(unsigned, int) = nullptr;
  const char* (*array_name)(unsigned) = nullptr;
  unsigned (*blocks)() = nullptr;
  bool present() const {
    return register_range && unregister_range && block_elements && other_bytes && array_name && blocks;
  }
};

template <class F>
void find(F& f, const char* symbol) {
  f = reinterpret_cast<F>(dlsym(RTLD_DEFAULT, symbol));
}

const Tool& tool() {
  static const Tool t = [] {
    Tool t;
    find(t.register_range, "halo_loadcount_register");
    find(t.unregister_range, "halo_loadcount_unregister");
    find(t.block_elements, "halo_loadcount_block_elements");
    find(t.other_bytes, "halo_loadcount_other_bytes");
    find(t.array_name, "halo_loadcount_array_name");
    find(t.blocks, "halo_loadcount_blocks");
    return t;
  }();
  return t;
}

uint64_t counted(long long v) { return v < 0 ? 0 : uint64_t(v); }

// Element sizes of the arrays named so far, to turn counted elements back into bytes.
std::map<std::string, size_t>& element_sizes() {
  static std::map<std::string, size_t> sizes;
  return sizes;
}

}  // namespace

uint64_t ArrayCounts::load_elements() const { return std::accumulate(block_loads.begin(), block_loads.end(), uint64_t(0)); }
uint64_t ArrayCounts::store_elements() const {
  return std::accumulate(block_stores.begin(), block_stores.end(), uint64_t(0));
}

const ArrayCounts* LaunchCounts::array(std::string_view name) const {
  for (const auto& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

const LaunchCounts& measured_launch() {
  static LaunchCounts snapshot;
  snapshot = LaunchCounts{};
  const Tool& t = tool();
  if (!t.present()) return snapshot;
  snapshot.blocks = t.blocks();
  for (unsigned k = 0; const char* name = t.array_name(k); ++k) {
    ArrayCounts a{name, std::vector<uint64_t>(snapshot.blocks), std::vector<uint64_t>(snapshot.blocks)};
    for (unsigned b = 0; b < snapshot.blocks; ++b) {
      a.block_loads[b] = counted(t.block_elements(name, b, 0));
      a.block_stores[b] = counted(t.block_elements(name, b, 1));
    }
    snapshot.arrays.push_back(std::move(a));
  }
  for (unsigned b = 0; b < snapshot.blocks; ++b) snapshot.unnamed_block_load_bytes.push_back(counted(t.other_bytes(b, 0)));
  return snapshot;
}

uint64_t global_load_bytes_except(const LaunchCounts& launch, std::initializer_list<std::string_view> names,
                                  std::string* sources) {
  uint64_t bytes = 0;
  for (const auto& a : launch.arrays) {
    bool named = false;
    for (auto n : names) named = named || a.name == n;
    if (named || a.load_elements() == 0) continue;
    bytes += a.load_elements() * element_sizes()[a.name];
    if (sources) *sources += (sources->empty() ? "" : ", ") + a.name;
  }
  const uint64_t unnamed = std::accumulate(launch.unnamed_block_load_bytes.begin(), launch.unnamed_block_load_bytes.end(),
                                           uint64_t(0));
  if (unnamed) {
    bytes += unnamed;
    if (sources) *sources += (sources->empty() ? "" : ", ") + std::string("memory the grader did not allocate");
  }
  return bytes;
}

bool load_counter_ready() {
  if (tool().present()) return true;
  if (!skipped)
    std::printf("skipped: the GPU load counter is not preloaded (LD_PRELOAD=libhalo_loadcount.so; "
                "CTest sets it when the Compute Sanitizer headers were found at configure time)\n");
  skipped = true;
  return false;
}

void name_device_memory(const void* ptr, size_t bytes, const std::string& name, size_t element_size, bool) {
  element_sizes()[name] = element_size;
  if (tool().present()) tool().register_range(ptr, bytes, name.c_str(), unsigned(element_size));
}
void forget_device_memory(const void* ptr) {
  if (tool().present()) tool().unregister_range(ptr);
}

#endif

}  // namespace halo::test
