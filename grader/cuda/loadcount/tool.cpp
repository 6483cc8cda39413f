// The host side of the load counter: a Compute Sanitizer tool, preloaded into a GPU test binary
// (LD_PRELOAD), that patches every module it loads with patch.cu, gives each launch a fresh set
// of counters for the address ranges the test registered by name, and copies them back when the
// host synchronises. Tests reach it through the C functions below (found with dlsym: without the
// tool, there is nothing to find and GPU load tests skip).
#include <sanitizer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "counters.hpp"

namespace {

using halo::loadcount::Header;
using halo::loadcount::kMaxRanges;

struct Range {
  uint64_t begin, end;
  std::string name;
  uint32_t element_size;
};

struct Pending {
  Header* device = nullptr;
  uint64_t* per_block = nullptr;
  Sanitizer_StreamHandle stream = nullptr;
  CUcontext context = nullptr;
  std::vector<Range> ranges;
  uint32_t blocks = 0;
};

struct Result {
  std::vector<Range> ranges;
  uint32_t blocks = 0;
  std::vector<uint64_t> per_block;  // blocks x (ranges + 1) x 2
  bool valid = false;
};

std::mutex mutex;
std::vector<Range> registered;
std::vector<Pending> pending;
Result last;

const char* patch_file() {
  const char* env = std::getenv("HALO_LOADCOUNT_PATCH");
  return env ? env : "halo_loadcount_patch.fatbin";
}

void on_module_loaded(const Sanitizer_ResourceModuleData* m) {
  if (sanitizerAddPatchesFromFile(patch_file(), m->context) != SANITIZER_SUCCESS ||
      sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, m->module, "halo_count_global_access") !=
          SANITIZER_SUCCESS ||
      sanitizerPatchModule(m->module) != SANITIZER_SUCCESS)
    std::fprintf(stderr, "halo loadcount: cannot patch a module with %s\n", patch_file());
}

void on_launch(const Sanitizer_LaunchData* l) {
  std::lock_guard lock(mutex);
  Pending p;
  p.ranges = registered;
  if (p.ranges.size() > kMaxRanges) {
    static bool warned = false;
    if (!warned)
      std::fprintf(stderr, "halo loadcount: %zu arrays registered, only the first %u are counted by name\n",
                   p.ranges.size(), kMaxRanges);
    warned = true;
    p.ranges.resize(kMaxRanges);
  }
  p.blocks = l->gridDim_x * l->gridDim_y * l->gridDim_z;
  p.stream = l->hStream;
  p.context = l->context;
  const size_t counters = size_t(p.blocks) * (p.ranges.size() + 1) * 2;
  sanitizerAlloc(l->context, reinterpret_cast<void**>(&p.device), sizeof(Header));
  sanitizerAlloc(l->context, reinterpret_cast<void**>(&p.per_block), counters * sizeof(uint64_t));
  sanitizerMemset(p.per_block, 0, counters * sizeof(uint64_t), l->hStream);
  Header h{};
  for (size_t k = 0; k < p.ranges.size(); ++k) {
    h.range_begin[k] = p.ranges[k].begin;
    h.range_end[k] = p.ranges[k].end;
  }
  h.ranges = uint32_t(p.ranges.size());
  h.blocks = p.blocks;
  h.per_block = p.per_block;
  sanitizerMemcpyHostToDeviceAsync(p.device, &h, sizeof h, l->hStream);
  sanitizerSetCallbackData(l->function, p.device);
  pending.push_back(std::move(p));
}

void on_synchronize() {
  std::lock_guard lock(mutex);
  for (auto& p : pending) {
    Result r;
    r.ranges = p.ranges;
    r.blocks = p.blocks;
    r.per_block.resize(size_t(p.blocks) * (p.ranges.size() + 1) * 2);
    sanitizerStreamSynchronize(p.stream);
    sanitizerMemcpyDeviceToHost(r.per_block.data(), p.per_block, r.per_block.size() * sizeof(uint64_t), p.stream);
    sanitizerFree(p.context, p.per_block);
    sanitizerFree(p.context, p.device);
    r.valid = true;
    last = std::move(r);
  }
  pending.clear();
}

void callback(void*, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId id, const void* data) {
  if (domain == SANITIZER_CB_DOMAIN_RESOURCE && id == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
    on_module_loaded(static_cast<const Sanitizer_ResourceModuleData*>(data));
  else if (domain == SANITIZER_CB_DOMAIN_LAUNCH && id == SANITIZER_CBID_LAUNCH_BEGIN)
    on_launch(static_cast<const Sanitizer_LaunchData*>(data));
  else if (domain == SANITIZER_CB_DOMAIN_SYNCHRONIZE)
    on_synchronize();
}

const int subscribed = [] {
  Sanitizer_SubscriberHandle handle;
  sanitizerSubscribe(&handle, callback, nullptr);
  sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_RESOURCE);
  sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_LAUNCH);
  sanitizerEnableDomain(1, handle, SANITIZER_CB_DOMAIN_SYNCHRONIZE);
  return 0;
}();

}  // namespace

extern "C" {

// Names device memory [ptr, ptr + bytes) for the counts of later launches.
void halo_loadcount_register(const void* ptr, size_t bytes, const char* name, unsigned element_size) {
  std::lock_guard lock(mutex);
  const auto begin = reinterpret_cast<uint64_t>(ptr);
  for (auto& r : registered)
    if (r.begin == begin) {
      r = {begin, begin + bytes, name, element_size};
      return;
    }
  registered.push_back({begin, begin + bytes, name, element_size});
}

void halo_loadcount_unregister(const void* ptr) {
  std::lock_guard lock(mutex);
  const auto begin = reinterpret_cast<uint64_t>(ptr);
  for (size_t k = 0; k < registered.size(); ++k)
    if (registered[k].begin == begin) {
      registered.erase(registered.begin() + long(k));
      return;
    }
}

// Elements of `name` that block `block` of the last synchronised launch loaded (stored, when
// `stores`); -1 when no such launch, array or block.
long long halo_loadcount_block_elements(const char* name, unsigned block, int stores) {
  std::lock_guard lock(mutex);
  if (!last.valid || block >= last.blocks) return -1;
  for (size_t k = 0; k < last.ranges.size(); ++k)
    if (last.ranges[k].name == name)
      return (long long)(last.per_block[(size_t(block) * (last.ranges.size() + 1) + k) * 2 + (stores ? 1 : 0)] /
                         last.ranges[k].element_size);
  return -1;
}

// Bytes that block `block` of the last synchronised launch loaded (stored, when `stores`) from
// global memory outside every registered array; -1 when no such launch or block.
long long halo_loadcount_other_bytes(unsigned block, int stores) {
  std::lock_guard lock(mutex);
  if (!last.valid || block >= last.blocks) return -1;
  const size_t ranges = last.ranges.size();
  return (long long)last.per_block[(size_t(block) * (ranges + 1) + ranges) * 2 + (stores ? 1 : 0)];
}

// The name of the k-th array counted in the last synchronised launch; null past the last one.
const char* halo_loadcount_array_name(unsigned k) {
  std::lock_guard lock(mutex);
  return last.valid && k < last.ranges.size() ? last.ranges[k].name.c_str() : nullptr;
}

unsigned halo_loadcount_blocks() {
  std::lock_guard lock(mutex);
  return last.valid ? last.blocks : 0;
}

}  // extern "C"
