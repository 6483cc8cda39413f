// The one way the grader launches a kernel, on either backend:
//
//     cudaError_t err = halo::launch(convolution_1D_basic_kernel, grid, block, N, M, P, Mask_Width, Width);
//
// Under nvcc this is `kernel<<<grid, block>>>(args...)` followed by a synchronisation; on the
// CPU backend it runs the grid on the fiber scheduler. Either way the returned error is the
// launch's (configuration errors) or the execution's (an illegal address), as a student would
// see from cudaGetLastError() and cudaDeviceSynchronize().
#pragma once

#include <utility>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define HALO_GLOBAL __global__
#else
#include "halo/cpu/cuda_runtime.hpp"
#include "halo/cpu/scheduler.hpp"
#define HALO_GLOBAL
#endif

namespace halo {

// Bytes of dynamic shared memory for a launch (the third value of <<<grid, block, bytes>>>),
// which every `extern __shared__` array of the kernel names:
//     halo::launch(kernel, grid, block, halo::DynamicShared{bytes}, args...);
struct DynamicShared {
  size_t bytes = 0;
};

template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, DynamicShared shared, Args&&... args) {
#if defined(__CUDACC__)
  // Past 48 KB of dynamic shared memory a kernel must be allowed more, once (CUDA's opt-in).
  if (shared.bytes > 48 * 1024)
    if (cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared.bytes));
        e != cudaSuccess)
      return e;
  kernel<<<grid, block, shared.bytes>>>(std::forward<Args>(args)...);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
#else
  auto call = [&] {
    cpu::note_kernel_caller_frame(__builtin_frame_address(0));
    kernel(args...);
    asm volatile("" ::: "memory");  // not a tail call: the kernel's frame record points at this frame
  };
  cpu::KernelBody body{&call, [](void* self) { (*static_cast<decltype(call)*>(self))(); }};
  return cpu::run_grid(grid, block, body, shared.bytes);
#endif
}

template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
  return launch(kernel, grid, block, DynamicShared{}, std::forward<Args>(args)...);
}

// Blocks needed to cover `count` items with `per_block` each (the book's ceil(Width/TILE)).
constexpr unsigned blocks_for(unsigned long long count, unsigned per_block) {
  return unsigned((count + per_block - 1) / per_block);
}

}  // namespace halo
