// The judge's side of a launch. The judge (the section's test program) holds no student code: a
// kernel, host function or __constant__ symbol of the student's file is a handle naming it, and
// calling one sends a request to the worker process (grader/remote/worker_main.cpp), which runs
// the student's code on the CPU backend and sends back data: outputs, the launch's record, the
// stub notes. The verdicts are computed here, from that data, by the unchanged test code.
//
// "Device" memory stays in the judge (cuda_runtime.cpp's registry); a launch ships the arrays
// its pointer arguments point into and copies the writable ones back.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "halo/cpu/cuda_runtime.hpp"
#include "halo/launch.hpp"  // halo::DynamicShared
#include "halo/tensor_map.hpp"

namespace halo::remote {

class Writer;

// Reads the judge's own options (--halo-worker=PATH, --halo-sandbox=MODE) out of argv, before
// doctest sees it. Returns the new argc.
int take_options(int argc, char** argv);

// One request under construction: entry point, what to do, arguments.
class Call {
 public:
  Call(const char* entry, uint8_t op);
  ~Call();
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  void value(const void* bytes, size_t size);
  void pointer(const void* device_ptr);       // a kernel argument: translated to the worker's copy
  void tensor_map(const TensorMap& map);      // a kernel argument: its image translated like a pointer
  void in_out(void* object, size_t size);     // a host function's out-parameter (dim3* grid)
  void raw(const void* bytes, size_t size);   // op-specific payload

  // Sends the request and waits for the reply; throws std::runtime_error when the worker is lost.
  cudaError_t launch(int selector, dim3 grid, dim3 block, size_t dynamic_shared_bytes);
  void host_call(void* result, size_t result_size);
  std::vector<uint8_t> round_trip();          // other ops: the reply's payload

 private:
  struct State;
  State* s_;
};

template <class Sig>
struct Kernel;

// A kernel of the student's file, by name. `selector` picks one instance of a kernel template
// through the student's `..._for(int)` function (section 7.9); -1: a plain kernel.
template <class... Params>
struct Kernel<void(Params...)> {
  const char* name;
  int selector = -1;
  bool present = true;
  explicit operator bool() const { return present; }
};

template <class P, class A>
void add_kernel_arg(Call& c, A&& a) {
  if constexpr (std::is_pointer_v<P>) {
    c.pointer(static_cast<const void*>(static_cast<P>(a)));
  } else if constexpr (std::is_same_v<std::remove_cv_t<P>, TensorMap>) {
    c.tensor_map(a);
  } else {
    static_assert(std::is_trivially_copyable_v<P>, "kernel arguments are pointers or plain values");
    const P v = static_cast<P>(a);
    c.value(&v, sizeof v);
  }
}

// Whether the student's `name(int)` returns a kernel for `selector` (a null pointer: none).
bool probe_kernel(const char* name, int selector);

template <class Sig>
Kernel<Sig> kernel_for(const char* name, int selector) {
  return Kernel<Sig>{name, selector, probe_kernel(name, selector)};
}

// A host function of the student's file whose parameters are plain values or `dim3*` / `int*` results.
template <class Sig>
struct HostCall;

template <class R, class... Params>
struct HostCall<R(Params...)> {
  const char* name;
  R operator()(Params... args) const {
    Call c(name, 2);
    (add_host_arg<Params>(c, args), ...);
    if constexpr (std::is_void_v<R>) {
      c.host_call(nullptr, 0);
    } else {
      R r{};
      c.host_call(&r, sizeof r);
      return r;
    }
  }

 private:
  template <class P>
  static void add_host_arg(Call& c, P a) {
    if constexpr (std::is_same_v<P, dim3*> || std::is_same_v<P, int*>) {
      c.in_out(a, a ? sizeof(*a) : 0);
    } else {
      static_assert(std::is_arithmetic_v<P>, "host functions take plain values or dim3* / int* results");
      c.value(&a, sizeof a);
    }
  }
};

// The student's copy of a host array of `count` floats into a __constant__ symbol.
cudaError_t host_copy(const char* name, const float* host, int n, size_t count);

// The bytes of a __constant__ symbol of the student's file.
void write_constant(const char* name, const std::vector<uint8_t>& bytes);
std::vector<uint8_t> read_constant(const char* name);

// How many floats the student's copy functions read from the host array.
inline size_t copy_count_mask_1d(int mask_width) { return mask_width > 0 ? size_t(mask_width) : 0; }
inline size_t copy_count_filter_2d(int r) { return r >= 0 ? size_t(2 * r + 1) * size_t(2 * r + 1) : 0; }

}  // namespace halo::remote

namespace halo {

template <class... Params, class... Args>
cudaError_t launch(const remote::Kernel<void(Params...)>& kernel, dim3 grid, dim3 block, DynamicShared shared,
                   Args&&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
  remote::Call c(kernel.name, 1);
  (remote::add_kernel_arg<Params>(c, std::forward<Args>(args)), ...);
  return c.launch(kernel.selector, grid, block, shared.bytes);
}

template <class... Params, class... Args>
cudaError_t launch(const remote::Kernel<void(Params...)>& kernel, dim3 grid, dim3 block, Args&&... args) {
  return launch(kernel, grid, block, DynamicShared{}, std::forward<Args>(args)...);
}

}  // namespace halo
