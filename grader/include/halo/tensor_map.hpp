// A tensor map: how the copy engine of a Hopper GPU (the Tensor Memory Accelerator) sees a pitched
// image of floats, for tensor copies of whole boxes into shared memory (halo/given/tile_copy.cuh).
// The host makes one per image and box shape; a kernel takes it as a parameter,
//
//     __global__ void kernel(const __grid_constant__ halo::TensorMap N_map, ...)
//
// Under nvcc it is CUDA's CUtensorMap, encoded by the driver. On the CPU backend it holds what the
// emulated copy needs, and make_tensor_map() refuses what the driver refuses, so a shape that
// cannot work on a GPU fails on a laptop first.
#pragma once

#include <cstdint>

#if defined(__CUDACC__) || defined(HALO_BACKEND_CUDA)  // nvcc, or the CUDA backend's host-only tests
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#else
#include "halo/cpu/cuda_runtime.hpp"
#endif

#if !defined(__CUDACC__) && !defined(__grid_constant__)
#define __grid_constant__  // a kernel parameter the kernel may take the address of: every parameter, on the CPU
#endif

namespace halo {

// The driver's limits on a 2D box of 4-byte elements (cuTensorMapEncodeTiled).
inline constexpr int kTensorBoxMax = 256;       // elements per side of a box
inline constexpr int kTensorAlignBytes = 16;    // the image's address, its row pitch and a box row
inline constexpr int kTensorSharedAlign = 128;  // a copy's destination in shared memory
// The most shared memory a block of a Hopper GPU may have (dynamic, once opted in): what a
// tensor-copy kernel's stages must fit in, and the CPU backend's limit (halo/cpu/scheduler.hpp).
inline constexpr int kSharedBytesMax = 227 * 1024;

#if defined(__CUDACC__) || defined(HALO_BACKEND_CUDA)  // one layout for the tests and the kernels
struct TensorMap {
  CUtensorMap map;                    // opaque: the driver's encoding
  int32_t box_width = 0, box_height = 0;  // the box it was encoded for (a copy's byte count)
};
#else
struct TensorMap {
  const float* image = nullptr;  // element [row][col] at image[row * pitch + col]
  int32_t width = 0, height = 0, pitch = 0;
  int32_t box_width = 0, box_height = 0;
};
#endif

// Whether the driver would encode this map: what make_tensor_map() checks on either backend.
inline bool tensor_map_shape_ok(const float* image, int width, int height, int pitch, int box_width, int box_height) {
  return image != nullptr && reinterpret_cast<uintptr_t>(image) % kTensorAlignBytes == 0 && width >= 1 &&
         height >= 1 && pitch >= width && (pitch * 4) % kTensorAlignBytes == 0 && box_width >= 1 &&
         box_height >= 1 && box_width <= kTensorBoxMax && box_height <= kTensorBoxMax &&
         (box_width * 4) % kTensorAlignBytes == 0;
}

// The elements from the image's first pixel to just past its last: what its array must hold.
inline uint64_t tensor_map_span(int width, int height, int pitch) {
  return (uint64_t(height) - 1) * uint64_t(pitch) + uint64_t(width);
}

// The map of a width x height image with rows `pitch` floats apart, for boxes of box_width x
// box_height floats. Parts of a box outside the image arrive as zeros (the pitch padding is never
// read). cudaErrorInvalidValue for a shape the copy engine cannot take.
inline cudaError_t make_tensor_map(const float* image, int width, int height, int pitch, int box_width, int box_height,
                                   TensorMap* out) {
  if (!out || !tensor_map_shape_ok(image, width, height, pitch, box_width, box_height)) return cudaErrorInvalidValue;
#if defined(__CUDACC__) || defined(HALO_BACKEND_CUDA)
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
      fn = nullptr;
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  if (!encode) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {cuuint64_t(width), cuuint64_t(height)};
  const cuuint64_t row_bytes[1] = {cuuint64_t(pitch) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_width), cuuint32_t(box_height)}, unit[2] = {1, 1};
  out->box_width = box_width;
  out->box_height = box_height;
  const CUresult r = encode(&out->map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(image), dims, row_bytes,
                            box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
#else
  *out = TensorMap{image, width, height, pitch, box_width, box_height};
  return cudaSuccess;
#endif
}

}  // namespace halo
