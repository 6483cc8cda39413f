// What a section's tests call in the student's file, declared once per section in
// grader/sections/<folder>/entry_points.inc as a list of:
//
//   HALO_KERNEL(name, (params))            a __global__ kernel
//   HALO_KERNEL_FOR(name, (params))        `kernel_type name(int)`: picks a kernel template's instance
//   HALO_HOST_CALL(name, ret, (params))    a host function of plain values and dim3* results
//   HALO_HOST_COPY(name, count)            `cudaError_t name(const float* h, int n)` reading
//                                          halo::remote::copy_count_<count>(n) floats
//   HALO_CONSTANT(name, type, count)       a `__constant__ type name[count]`
//
// This header gives the list its meaning for the file including it: in the judge (the CPU
// backend's test program) each entry is a handle that asks the worker; under nvcc it is the
// plain declaration. The worker's table (grader/remote/worker_entries.cpp) reads the same list.
#pragma once

#include "halo/launch.hpp"
#include "halo/tensor_map.hpp"  // a kernel parameter of section 7.9

#if defined(HALO_JUDGE)
#include "halo/remote/judge.hpp"

#define HALO_KERNEL(name, params) inline const ::halo::remote::Kernel<void params> name{#name};
#define HALO_KERNEL_FOR(name, params)                                  \
  inline ::halo::remote::Kernel<void params> name(int selector) {      \
    return ::halo::remote::kernel_for<void params>(#name, selector);  \
  }
#define HALO_HOST_CALL(name, ret, params) inline const ::halo::remote::HostCall<ret params> name{#name};
#define HALO_HOST_COPY(name, count)                                                 \
  inline cudaError_t name(const float* host, int n) {                               \
    return ::halo::remote::host_copy(#name, host, n, ::halo::remote::copy_count_##count(n)); \
  }
#define HALO_CONSTANT(name, type, count)  // reached with halo::remote::read_constant(#name)

#else  // the CUDA backend: the student's file is linked in; these are its declarations

// HALO_GLOBAL: __global__ under nvcc; from a C++ compiler (the tests), the kernel's host stub,
// which nvcc gives the kernel's own name and which cudaLaunchKernel takes (halo/launch.hpp).
#define HALO_KERNEL(name, params) HALO_GLOBAL void name params;
#define HALO_KERNEL_FOR(name, params) void (*name(int)) params;
#define HALO_HOST_CALL(name, ret, params) ret name params;
#define HALO_HOST_COPY(name, count) cudaError_t name(const float* host, int n);
#define HALO_CONSTANT(name, type, count)

#endif
