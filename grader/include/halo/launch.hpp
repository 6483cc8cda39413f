// The one way the grader launches a kernel, on either backend:
//
//     cudaError_t err = halo::launch(convolution_1D_basic_kernel, grid, block, N, M, P, Mask_Width, Width);
//
// On the CUDA backend this is `kernel<<<grid, block>>>(args...)` followed by a synchronisation; on
// the CPU backend it runs the grid on the fiber scheduler. Either way the returned error is the
// launch's (configuration errors) or the execution's (an illegal address), as a student would
// see from cudaGetLastError() and cudaDeviceSynchronize().
//
// The CUDA backend's tests are host code only: a C++ compiler builds them against the CUDA runtime
// (HALO_BACKEND_CUDA without __CUDACC__), and only the kernel files go through nvcc. There the
// launch is cudaLaunchKernel with the kernel's host stub, which is what <<<>>> compiles to; nvcc's
// front ends cost more than half of each test file's compile, for no device code.
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#define HALO_GLOBAL __global__
#elif defined(HALO_BACKEND_CUDA)
#include <cuda_runtime.h>
#define HALO_GLOBAL
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

#if defined(HALO_BACKEND_CUDA) && !defined(__CUDACC__)
namespace detail {
// cudaLaunchKernel's argument array: the address of each argument, converted to its parameter's
// type first, as the call `kernel<<<...>>>(args...)` converts them.
template <class Values, size_t... I>
cudaError_t launch_values(const void* kernel, dim3 grid, dim3 block, size_t shared_bytes, Values& values,
                          std::index_sequence<I...>) {
  void* addresses[sizeof...(I) + 1] = {static_cast<void*>(&std::get<I>(values))..., nullptr};
  return cudaLaunchKernel(kernel, grid, block, addresses, shared_bytes, nullptr);
}
}  // namespace detail
#endif

template <class... Params, class... Args>
cudaError_t launch(void (*kernel)(Params...), dim3 grid, dim3 block, DynamicShared shared, Args&&... args) {
#if defined(__CUDACC__) || defined(HALO_BACKEND_CUDA)
  // Past 48 KB of dynamic shared memory a kernel must be allowed more, once (CUDA's opt-in).
  if (shared.bytes > 48 * 1024)
    if (cudaError_t e = cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared.bytes));
        e != cudaSuccess)
      return e;
#if defined(__CUDACC__)
  kernel<<<grid, block, shared.bytes>>>(std::forward<Args>(args)...);
  if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
#else
  static_assert(sizeof...(Params) == sizeof...(Args), "a kernel takes as many arguments as it has parameters");
  std::tuple<std::remove_cv_t<Params>...> values(std::forward<Args>(args)...);
  if (cudaError_t e = detail::launch_values(reinterpret_cast<const void*>(kernel), grid, block, shared.bytes, values,
                                            std::index_sequence_for<Params...>{});
      e != cudaSuccess)
    return e;
#endif
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
