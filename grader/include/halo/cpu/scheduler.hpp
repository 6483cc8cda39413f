// Entry point of the CPU backend's grid scheduler, used by halo::launch (launch.hpp).
#pragma once

#include "halo/cpu/cuda_runtime.hpp"
#include "halo/tensor_map.hpp"  // kSharedBytesMax

namespace halo::cpu {

// Type-erased kernel call: the launch helper wraps `kernel(args...)` in one of these. Every
// CUDA thread of the grid calls it once.
struct KernelBody {
  void* object;
  void (*invoke)(void* object);
  void operator()() const { invoke(object); }
};

// Called by halo::launch's CPU call of the kernel with its own frame address, just before the call:
// the boundary above which a kernel's stores never land (access_check.cpp).
void note_kernel_caller_frame(void* frame);

// Validates the configuration like the CUDA runtime (cudaErrorInvalidConfiguration for an
// empty grid or more than 1024 threads per block), runs every block, and returns the
// launch's error; the measurements are in last_launch().
cudaError_t run_grid(dim3 grid, dim3 block, KernelBody body, size_t dynamic_shared_bytes = 0);

// The most dynamic shared memory a launch may ask for: a Hopper GPU's limit per block (227 KB),
// past CUDA's default 48 KB, which halo::launch raises for the kernel on a GPU when asked for more.
inline constexpr size_t kDynamicSharedMaxBytes = size_t(kSharedBytesMax);

}  // namespace halo::cpu
