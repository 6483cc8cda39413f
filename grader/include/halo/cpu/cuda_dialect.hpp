// The CUDA dialect for the CPU backend: included before an exercise's .cu file, which is then
// compiled as C++20 by clang with load/store instrumentation. Students write the book's code;
// nothing here asks them to write anything else.
//
// How each piece maps:
//  - a CUDA thread is a fiber; __syncthreads() switches fibers (scheduler.cpp);
//  - __shared__ variables are `thread_local` (static at block scope): all fibers of a block run
//    on one OS thread, so they see one copy, and blocks on other cores see their own. Each comes
//    after 64 guard bytes of its own, so that an index just outside one array lands in no other
//    and is reported against it; `extern __shared__` arrays all name the runtime's dynamic
//    shared memory (tools/halo/core/extern_shared.py rewrites their declarations);
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
#include "halo/platform/sections.hpp"
#include "halo/cpu/device_functions.hpp"

#define __global__
#define __device__
#define __host__
#define __noinline__ __attribute__((noinline))
#define __forceinline__ inline __attribute__((always_inline))
#define __restrict__ __restrict
#define HALO_CAT_(a, b) a##b
#define HALO_CAT(a, b) HALO_CAT_(a, b)
#define __shared__ \
  __attribute__((used)) thread_local char HALO_CAT(halo_shared_guard_, __COUNTER__)[64]; thread_local
#define __align__(n) __attribute__((aligned(n)))
// `extern __shared__ T name[];`, as the compiler launcher rewrites it: the runtime's buffer (its
// size is the launch's), under this name; the marker tells the runtime the name for messages.
#define HALO_EXTERN_SHARED(T, name)                                  \
  extern __thread T name[] __asm__("halo_dynamic_shared_memory");    \
  __attribute__((used)) static const char halo_extern_shared_name_##name = 0
#define __constant__ __attribute__((section(HALO_CONSTANT_SECTION), used))

namespace halo::cpu {
uint3 thread_index();
uint3 block_index();
dim3 block_dim();
dim3 grid_dim();
void sync_threads(int line);
void todo_reached(const char* what, const char* file, int line);
}  // namespace halo::cpu

#include "halo/cpu/warp_functions.hpp"

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

// Atomics, as CUDA declares them for these types. They are defined in the runtime
// (grader/cpu/atomics.cpp), where each access is checked and counted before it happens: inline,
// an atomic read-modify-write would be invisible to the instrumentation.
#define HALO_DECLARE_INTEGER_ATOMICS(T)                                                                   \
  T atomicAdd(T* address, T value);                                                                      \
  T atomicSub(T* address, T value);                                                                      \
  T atomicExch(T* address, T value);                                                                     \
  T atomicMin(T* address, T value);                                                                      \
  T atomicMax(T* address, T value);                                                                      \
  T atomicAnd(T* address, T value);                                                                      \
  T atomicOr(T* address, T value);                                                                       \
  T atomicXor(T* address, T value);                                                                      \
  T atomicCAS(T* address, T compare, T value);
HALO_DECLARE_INTEGER_ATOMICS(int)
HALO_DECLARE_INTEGER_ATOMICS(unsigned int)
HALO_DECLARE_INTEGER_ATOMICS(unsigned long long)
#undef HALO_DECLARE_INTEGER_ATOMICS
float atomicAdd(float* address, float value);
double atomicAdd(double* address, double value);
float atomicExch(float* address, float value);

// 16-byte accesses (section 7.9). float4 is a clang vector type rather than a struct: a load
// or store through a float4* is then one 16-byte IR access, which the instrumentation sees as
// one __sanitizer_cov_load16 (counted as 4 floats), where a struct copy could become a memcpy
// that it does not see. The vector type also has CUDA's .x .y .z .w members.
typedef float float4 __attribute__((ext_vector_type(4)));
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
// An occupancy hint for nvcc; nothing to do on the CPU.
#define __launch_bounds__(...)
