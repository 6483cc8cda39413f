// Bounds of __constant__ arrays. Every __constant__ variable lives in the linker section
// halo_constant (cuda_dialect.hpp); an access there that is not inside one variable, or just past
// the section's end, is out of bounds and is named after the nearest variable, in the words used
// for global arrays. Kernels only read constant memory, as on a GPU.
#include <algorithm>
#include <string>
#include <vector>

#include "../platform/platform.hpp"
#include "execution.hpp"

namespace halo::cpu {
namespace {

struct ConstantArray {
  uintptr_t lo, hi;
  std::string name;
};

std::vector<ConstantArray> read_constant_arrays() {
  std::vector<ConstantArray> arrays;
  const uintptr_t bias = platform::load_bias();
  for (const platform::ExecutableSymbol& s : platform::executable_symbols())
    if (!s.tls && s.section == HALO_CONSTANT_SECTION_NAME) arrays.push_back({bias + s.value, bias + s.value + s.size, s.name});
  return arrays;
}

const std::vector<ConstantArray>& constant_arrays() {
  static const std::vector<ConstantArray> arrays = read_constant_arrays();  // thread-safe, once; a flag test after
  return arrays;
}

// An index in 4-byte elements (float masks), negative before the start.
int64_t index_of(uintptr_t a, const ConstantArray& c) {
  const int64_t d = int64_t(a) - int64_t(c.lo);
  return d >= 0 ? d / 4 : -((-d + 3) / 4);
}

}  // namespace

bool check_constant_access(Worker& w, uintptr_t a, unsigned size, bool store, const void* pc) {
  if (!store && a >= w.constant_hit_lo && a + size <= w.constant_hit_hi) return true;
  const auto& arrays = constant_arrays();
  const ConstantArray* nearest = nullptr;
  uintptr_t best = ~uintptr_t(0);
  for (const auto& c : arrays) {
    if (a >= c.lo && a + size <= c.hi) {
      nearest = &c;
      best = 0;
      break;
    }
    const uintptr_t distance = a < c.lo ? c.lo - a : a - c.hi + 1;
    if (distance < best) nearest = &c, best = distance;
  }
  if (!nearest) return true;  // no __constant__ variable to name: left to happen, as a read of the program
  if (best == 0 && !store) {  // the common case, every read of a mask: no string built
    w.constant_hit_lo = nearest->lo, w.constant_hit_hi = nearest->hi;
    return true;
  }
  const ConstantArray& c = *nearest;
  const std::string element = c.name + "[" + std::to_string(index_of(a, c)) + "]";
  if (best == 0) {
    raise_diagnostic_with(w, DiagnosticKind::write_to_input, pc, [&](Diagnostic&) {
      return "write to " + element + " in constant memory, which a kernel can only read (copy into it from the "
             "host with cudaMemcpyToSymbol)";
    });
    return false;
  }
  const size_t count = (c.hi - c.lo) / 4;
  raise_diagnostic_with(w, DiagnosticKind::out_of_bounds, pc, [&](Diagnostic&) {
    return std::string(store ? "write to " : "read of ") + element + " in constant memory, outside " + c.name + "[0.." +
           std::to_string(count ? count - 1 : 0) + "] (" + std::to_string(count) +
           (count == 1 ? " element)" : " elements)") +
           (a < c.lo ? ": before the first element" : ": past the end of " + c.name);
  });
  return false;
}

}  // namespace halo::cpu
