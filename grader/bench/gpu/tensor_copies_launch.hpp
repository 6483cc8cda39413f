// How the GPU programs launch section 7.9's tensor-copy kernel (the benchmark's entry and the
// tuning program's step v5): a persistent grid of as many blocks as fit on the GPU at once, and
// the tensor map of N with the box the student's launch configuration asks for. Both are host
// work done once per image and radius, outside the timed runs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "halo/tensor_map.hpp"

namespace halo::bench {

struct TensorCopiesLaunch {
  dim3 grid, block;
  int shared_bytes = 0;
  TensorMap map;
};

// `config` is the section's convolution_2D_tensor_copies_launch_config, `kernel` its kernel for
// radius r. The occupancy calculator needs the block and shared memory, which the configuration
// gives for any grid: it is asked once for one block, then for as many as fit.
template <class Config, class Kernel>
cudaError_t prepare_tensor_copies(Config config, Kernel kernel, const float* N, int width, int height, int pitch, int r,
                                  TensorCopiesLaunch* out) {
  TensorCopiesLaunch w;
  dim3 box(0, 0, 0);
  w.grid = w.block = dim3(0, 0, 0);
  cudaError_t err = config(width, height, pitch, r, 1, &w.grid, &w.block, &box, &w.shared_bytes);
  if (err != cudaSuccess) return err;
  const void* f = reinterpret_cast<const void*>(kernel);
  if ((err = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, w.shared_bytes)) != cudaSuccess)
    return err;
  int per_sm = 0, device = 0, sms = 0;
  if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, int(w.block.x * w.block.y * w.block.z),
                                                            size_t(w.shared_bytes))) != cudaSuccess ||
      (err = cudaGetDevice(&device)) != cudaSuccess ||
      (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
    return err;
  if ((err = config(width, height, pitch, r, std::max(1, per_sm * sms), &w.grid, &w.block, &box, &w.shared_bytes)) !=
      cudaSuccess)
    return err;
  if ((err = make_tensor_map(N, width, height, pitch, int(box.x), int(box.y), &w.map)) != cudaSuccess) return err;
  *out = w;
  return cudaSuccess;
}

// One launch, prepared on first use for each image and radius.
template <class Config, class Kernel>
cudaError_t launch_tensor_copies(Config config, Kernel kernel, const float* N, float* P, int width, int height, int pitch,
                                 int r) {
  // By kernel too: the reference's and a student's kernel have the same type and may differ in shape.
  static std::map<std::tuple<const void*, const float*, int, int, int, int>, TensorCopiesLaunch> made;
  const auto key = std::make_tuple(reinterpret_cast<const void*>(kernel), N, width, height, pitch, r);
  auto it = made.find(key);
  if (it == made.end()) {
    TensorCopiesLaunch w;
    if (cudaError_t err = prepare_tensor_copies(config, kernel, N, width, height, pitch, r, &w); err != cudaSuccess)
      return err;
    it = made.emplace(key, w).first;
  }
  const TensorCopiesLaunch& w = it->second;
  kernel<<<w.grid, w.block, size_t(w.shared_bytes)>>>(w.map, P, width, height, pitch);
  return cudaGetLastError();
}

}  // namespace halo::bench
