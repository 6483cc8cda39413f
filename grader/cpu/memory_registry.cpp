#include "memory_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace halo::cpu {
namespace {

std::mutex registry_mutex;

// CUDA returns 256-byte aligned allocations; keep the same so vector-width tricks behave alike.
constexpr size_t kAlignment = 256;

// Big enough that the usual slips (N[i - Mask_Width], a row too far) land in the zone; large
// allocations get a zone as large as themselves. Untouched pages cost no memory.
size_t red_zone_bytes(size_t bytes) {
  size_t zone = std::max<size_t>(bytes, 64 * 1024);
  return (zone + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

MemoryRegistry& MemoryRegistry::instance() {
  static MemoryRegistry registry;
  return registry;
}

void* MemoryRegistry::allocate(size_t bytes, size_t pitch, size_t row_bytes, size_t height) {
  size_t zone = red_zone_bytes(bytes);
  size_t total = zone + ((bytes + kAlignment - 1) / kAlignment * kAlignment) + zone;
  void* block = std::aligned_alloc(kAlignment, total);
  if (!block) return nullptr;
  std::lock_guard lock(registry_mutex);
  Region r;
  r.zone_lo = reinterpret_cast<uintptr_t>(block);
  r.lo = r.zone_lo + zone;
  r.hi = r.lo + bytes;
  r.zone_hi = r.hi + zone;
  r.name = "buffer" + std::to_string(next_id_++);
  r.pitch = pitch;
  r.row_bytes = row_bytes;
  r.height = height;
  allocations_.push_back({block, r});
  return reinterpret_cast<void*>(r.lo);
}

bool MemoryRegistry::release(void* ptr) {
  std::lock_guard lock(registry_mutex);
  auto it = std::find_if(allocations_.begin(), allocations_.end(),
                         [&](const Allocation& a) { return a.region.lo == reinterpret_cast<uintptr_t>(ptr); });
  if (it == allocations_.end()) return false;
  std::free(it->block);
  allocations_.erase(it);
  return true;
}

bool MemoryRegistry::contains(const void* ptr, size_t bytes) const {
  auto a = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard lock(registry_mutex);
  for (const auto& al : allocations_)
    if (a >= al.region.lo && a + bytes <= al.region.hi) return true;
  return false;
}

bool MemoryRegistry::rename(const void* ptr, std::string name, size_t element_size, bool read_only) {
  std::lock_guard lock(registry_mutex);
  for (auto& al : allocations_) {
    if (al.region.lo == reinterpret_cast<uintptr_t>(ptr)) {
      al.region.name = std::move(name);
      al.region.element_size = element_size ? element_size : 1;
      al.region.read_only = read_only;
      return true;
    }
  }
  return false;
}

bool MemoryRegistry::set_image_width(const void* ptr, size_t width_elements, size_t height) {
  std::lock_guard lock(registry_mutex);
  for (auto& al : allocations_) {
    if (al.region.lo == reinterpret_cast<uintptr_t>(ptr) && al.region.pitch != 0) {
      al.region.row_bytes = width_elements * al.region.element_size;
      al.region.height = height;
      return al.region.row_bytes <= al.region.pitch;
    }
  }
  return false;
}

std::vector<Region> MemoryRegistry::snapshot() const {
  std::lock_guard lock(registry_mutex);
  std::vector<Region> out;
  out.reserve(allocations_.size());
  for (const auto& al : allocations_) out.push_back(al.region);
  return out;
}

}  // namespace halo::cpu
