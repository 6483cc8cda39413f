// Included first by every kernel unit (kernels/*.cu), before the kernel file is included inside
// a namespace. A kernel file may include standard headers of its own; included here first, at
// global scope, their include guards make the kernel file's #include a no-op instead of
// declaring the standard library inside the unit's namespace.
//
// Why a namespace around the #include: the reference and the student's file define the same
// kernel names (and 7.3-7.5 all define the __constant__ mask M and copy_mask_to_constant), so
// two of them cannot link into one program as they stand. Wrapping each kernel file in its own
// namespace (variant, then section) gives every symbol a distinct name while the file itself is
// compiled unchanged, with the same pre-included headers as in grading; and one process then
// times the reference, the student's kernel and the copy baseline under the same conditions.
//
// The build names the tree with -DHALO_BENCH_VARIANT=reference (solutions/) or student.
#pragma once

#include <cuda_runtime.h>

#include <cassert>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench.hpp"

#ifndef HALO_BENCH_VARIANT
#error "build kernel units with -DHALO_BENCH_VARIANT=reference (or student)"
#endif

namespace halo::bench {

// An entry for a kernel of the tree this unit was built from (reference or student).
inline Entry kernel_entry(const char* name, const char* section) {
  Entry e;
  e.name = name;
  e.section = section;
  e.variant = HALO_BENCH_STR(HALO_BENCH_VARIANT);
  return e;
}

// 7.3, 7.4 and 7.5 keep the mask in constant memory, copied there by the section's own host
// function. Its capacity is MAX_MASK_WIDTH (the chapter's #define): a wider mask is skipped, not
// truncated.
inline std::string mask_too_wide_for_constant_memory(int m) {
  return m > MAX_MASK_WIDTH ? "Mask_Width " + std::to_string(m) + " > MAX_MASK_WIDTH = " + std::to_string(MAX_MASK_WIDTH)
                            : std::string();
}
template <cudaError_t (*copy_mask_to_constant)(const float*, int)>
std::string copy_mask_to_constant_memory(const Problem& p) {
  const cudaError_t err = copy_mask_to_constant(p.M_host, p.mask_width);
  return err == cudaSuccess ? std::string() : std::string("copy_mask_to_constant: ") + cudaGetErrorName(err);
}

}  // namespace halo::bench
