// The CUDA dialect for the CPU backend: included before an exercise's .cu file, which is then
// compiled as C++20 by clang with load/store instrumentation. Students write the book's code;
// nothing here asks them to write anything else.
//
// How each piece maps:
//  - a CUDA thread is a fiber; __syncthreads() switches fibers (scheduler.cpp);
//  - __shared__ variables are `static thread_local`: all fibers of a block run on one OS thread,
//    so they see one copy, and blocks on other cores see their own;
//  - __constant__ variables live in one linker section, so the instrumentation recognises a
//    read of constant memory by its address alone;
//  - threadIdx & co. are calls into the runtime (not variables) so that reading them is not
//    a memory access the instrumentation would have to explain.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>

#include "halo/cpu/cuda_runtime.hpp"

#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define __shared__ static thread_local
#define __constant__ __attribute__((section("halo_constant"), used))

namespace halo::cpu {
uint3 thread_index();
uint3 block_index();
dim3 block_dim();
dim3 grid_dim();
void sync_threads(int line);
void todo_reached(const char* what, const char* file, int line);
}  // namespace halo::cpu

#define threadIdx (::halo::cpu::thread_index())
#define blockIdx (::halo::cpu::block_index())
#define blockDim (::halo::cpu::block_dim())
#define gridDim (::halo::cpu::grid_dim())
#define warpSize 32
// The line travels with the barrier so that divergence reports can say which barrier.
#define __syncthreads() (::halo::cpu::sync_threads(__LINE__))

// Marks an unfinished stub. On the CPU backend reaching it is reported as "this is still the
// TODO at file:line"; on a GPU it does nothing and the tests fail on unwritten outputs instead.
#define HALO_TODO(what) (::halo::cpu::todo_reached((what), __FILE__, __LINE__))

// Atomics: fibers of one block never interleave inside a call, but blocks run on several cores,
// so these are real atomic operations.
template <class T>
inline T atomicAdd(T* address, T value) {
  return __atomic_fetch_add(address, value, __ATOMIC_RELAXED);
}
inline float atomicAdd(float* address, float value) {
  float old, desired;
  __atomic_load(address, &old, __ATOMIC_RELAXED);
  do {
    desired = old + value;
  } while (!__atomic_compare_exchange(address, &old, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
  return old;
}

// 16-byte accesses (section 7.9). float4 is a clang vector type rather than a struct: a load
// or store through a float4* is then one 16-byte IR access, which the instrumentation sees as
// one __sanitizer_cov_load16 (counted as 4 floats), where a struct copy could become a memcpy
// that it does not see. The vector type also has CUDA's .x .y .z .w members.
typedef float float4 __attribute__((ext_vector_type(4)));
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
// An occupancy hint for nvcc; nothing to do on the CPU.
#define __launch_bounds__(...)
