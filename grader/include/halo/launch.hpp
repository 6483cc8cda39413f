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

template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, Args&&... args) {
#if defined(__CUDACC__)
  kernel<<<grid, block>>>(std::forward<Args>(args)...);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  return cudaDeviceSynchronize();
#else
  auto call = [&] { kernel(args...); };
  cpu::KernelBody body{&call, [](void* self) { (*static_cast<decltype(call)*>(self))(); }};
  return cpu::run_grid(grid, block, body);
#endif
}

// Blocks needed to cover `count` items with `per_block` each (the book's ceil(Width/TILE)).
constexpr unsigned blocks_for(unsigned long long count, unsigned per_block) {
  return unsigned((count + per_block - 1) / per_block);
}

}  // namespace halo
