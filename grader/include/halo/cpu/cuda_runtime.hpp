// The subset of the CUDA runtime API that Halo's sections use, for the CPU backend.
//
// Types and error codes carry the same names and numeric values as CUDA's own headers, so a
// test that prints `cudaGetErrorName(err)` reads the same on both backends. "Device" memory
// is host memory that the instrumentation knows about (see memory_registry.hpp).
#pragma once

#include <cstddef>
#include <cstring>

struct uint3 {
  unsigned int x = 0, y = 0, z = 0;
};

struct dim3 {
  unsigned int x = 1, y = 1, z = 1;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};

// Values as in CUDA's driver_types.h.
enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorNoDevice = 100,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchTimeout = 702,
  cudaErrorAssert = 710,
  cudaErrorMisalignedAddress = 716,
  cudaErrorLaunchFailure = 719,
  cudaErrorUnknown = 999,
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

cudaError_t cudaMalloc(void** ptr, size_t bytes);
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width_bytes, size_t height);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width_bytes,
                         size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemset(void* ptr, int value, size_t bytes);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
const char* cudaGetErrorName(cudaError_t error);
const char* cudaGetErrorString(cudaError_t error);

namespace halo::cpu {
// Remembers an error for cudaGetLastError(), as the CUDA runtime does for a failed launch.
cudaError_t record_error(cudaError_t error);
// Copies into a __constant__ symbol after checking that the copy fits in it; records the error
// the way the CUDA runtime would (sticky until cudaGetLastError()).
cudaError_t copy_to_symbol(void* symbol, size_t symbol_bytes, const void* src, size_t count, size_t offset,
                           cudaMemcpyKind kind);
cudaError_t copy_from_symbol(void* dst, const void* symbol, size_t symbol_bytes, size_t count, size_t offset,
                             cudaMemcpyKind kind);
}  // namespace halo::cpu

// CUDA takes the symbol itself (not its address) and knows its size; so do we, through the type.
template <class T>
cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, size_t count, size_t offset = 0,
                               cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  return halo::cpu::copy_to_symbol(const_cast<void*>(static_cast<const volatile void*>(&symbol)), sizeof(T), src,
                                   count, offset, kind);
}

template <class T>
cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                 cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  return halo::cpu::copy_from_symbol(dst, static_cast<const void*>(&symbol), sizeof(T), count, offset, kind);
}
