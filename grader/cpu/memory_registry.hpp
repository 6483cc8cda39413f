// Device memory of the CPU backend: every allocation is host memory with a red zone reserved on
// each side, so that an index a little outside an array still maps to that array (and gets
// reported as `N[-2]`), never to a neighbouring one. Nothing reads the red zones: accesses are
// judged by address before they happen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace halo::cpu {

struct Region {
  uintptr_t lo = 0, hi = 0;        // the array itself: [lo, hi)
  uintptr_t zone_lo = 0, zone_hi = 0;  // with red zones: [zone_lo, zone_hi)
  std::string name;
  size_t element_size = 1;
  bool read_only = false;
  // Pitched images: bytes per row and the bytes of each row that hold pixels.
  size_t pitch = 0, row_bytes = 0, height = 0;
  bool is_image() const { return pitch != 0; }
};

class MemoryRegistry {
 public:
  static MemoryRegistry& instance();

  void* allocate(size_t bytes, size_t pitch, size_t row_bytes, size_t height);
  bool release(void* ptr);           // false: not an allocation of ours
  bool contains(const void* ptr, size_t bytes) const;  // [ptr, ptr+bytes) inside one allocation
  bool rename(const void* ptr, std::string name, size_t element_size, bool read_only);
  bool set_image_width(const void* ptr, size_t width_elements, size_t height);

  // A copy taken at launch: the callbacks read it without locking.
  std::vector<Region> snapshot() const;

 private:
  struct Allocation {
    void* block;  // what we got from the system allocator
    Region region;
  };
  std::vector<Allocation> allocations_;
  unsigned next_id_ = 0;
};

}  // namespace halo::cpu
