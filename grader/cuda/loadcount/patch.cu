// The device side of the load counter: Compute Sanitizer calls this before every global memory
// access of a patched kernel (SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS). It adds the access's
// bytes to the counter of its block and of the registered range it falls in.
#include <sanitizer_patching.h>

#include "counters.hpp"

using halo::loadcount::Header;

extern "C" __device__ __noinline__ SanitizerPatchResult halo_count_global_access(void* userdata, uint64_t pc,
                                                                                 void* ptr, uint32_t bytes,
                                                                                 uint32_t flags, const void* data) {
  (void)pc;
  (void)data;
  const Header* h = static_cast<const Header*>(userdata);
  if (!h) return SANITIZER_PATCH_SUCCESS;
  const uint64_t block = blockIdx.x + uint64_t(gridDim.x) * (blockIdx.y + uint64_t(gridDim.y) * blockIdx.z);
  if (block >= h->blocks) return SANITIZER_PATCH_SUCCESS;
  const uint64_t a = reinterpret_cast<uint64_t>(ptr);
  uint32_t range = h->ranges;  // "anything else"
  for (uint32_t k = 0; k < h->ranges; ++k)
    if (a >= h->range_begin[k] && a < h->range_end[k]) {
      range = k;
      break;
    }
  const bool store = (flags & SANITIZER_MEMORY_DEVICE_FLAG_WRITE) != 0;
  atomicAdd(reinterpret_cast<unsigned long long*>(&h->per_block[(block * (h->ranges + 1) + range) * 2 + (store ? 1 : 0)]),
            static_cast<unsigned long long>(bytes));
  return SANITIZER_PATCH_SUCCESS;
}
