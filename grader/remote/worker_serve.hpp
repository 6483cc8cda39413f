// The worker's side of each kind of entry point: decode the judge's request, call the student's
// code on the CPU backend, encode what came of it. Instantiated per entry point by the section's
// table (worker_entries.cpp), so argument types come from the entry's declaration.
#pragma once

#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "halo/cpu/code_context.hpp"
#include "halo/cpu/launch_record.hpp"
#include "halo/launch.hpp"
#include "halo/tensor_map.hpp"
#include "wire.hpp"

namespace halo::worker {

using remote::Op;
using remote::Reader;
using remote::WireError;
using remote::Writer;

using Serve = void (*)(Op op, Reader& in, Writer& out);
struct Entry {
  const char* name;
  Serve serve;
};

// The arrays of one launch, allocated in this process as the judge described them.
struct LaunchArrays {
  std::vector<char*> base;
  std::vector<size_t> bytes;
  std::vector<bool> read_only;
  ~LaunchArrays();
};

// Reads the launch header up to the arguments: settings applied, arrays allocated and filled.
struct LaunchHeader {
  int selector = -1;
  dim3 grid, block;
  size_t dynamic_shared_bytes = 0;
};
LaunchHeader read_launch_header(Reader& in, LaunchArrays& arrays);
// The record of the launch just run, then every writable array.
void write_launch_reply(Writer& out, const LaunchArrays& arrays);
void refuse(Op op, const char* entry_kind);

template <class P>
P decode_arg(Reader& in, const LaunchArrays& arrays) {
  if constexpr (std::is_same_v<std::remove_cv_t<P>, TensorMap>) {
    TensorMap m;
    m.image = decode_arg<const float*>(in, arrays);
    if (in.pod<remote::ArgKind>() != remote::ArgKind::tensor_map) throw WireError("a tensor map without its shape");
    for (int32_t* v : {&m.width, &m.height, &m.pitch, &m.box_width, &m.box_height}) *v = in.pod<int32_t>();
    if (!m.image || !tensor_map_shape_ok(m.image, m.width, m.height, m.pitch, m.box_width, m.box_height))
      throw WireError("a tensor map the copy engine could not take");
    // The whole image must lie in the array its pointer points into.
    for (size_t k = 0; k < arrays.base.size(); ++k) {
      const char* lo = arrays.base[k];
      const char* p = reinterpret_cast<const char*>(m.image);
      if (p < lo || p > lo + arrays.bytes[k]) continue;
      const uint64_t need = tensor_map_span(m.width, m.height, m.pitch) * sizeof(float);
      if (uint64_t(lo + arrays.bytes[k] - p) < need) throw WireError("a tensor map larger than its array");
      return m;
    }
    throw WireError("a tensor map of no array");
  }
  const auto kind = in.pod<remote::ArgKind>();
  if constexpr (std::is_pointer_v<P>) {
    if (kind == remote::ArgKind::null_pointer) return nullptr;
    if (kind != remote::ArgKind::array_pointer) throw WireError("a pointer argument that is not an array");
    const auto index = in.pod<uint32_t>();
    const auto offset = in.pod<uint64_t>();
    if (index >= arrays.base.size() || offset > arrays.bytes[index]) throw WireError("a pointer outside its array");
    return reinterpret_cast<P>(arrays.base[index] + offset);
  } else {
    if (kind != remote::ArgKind::value) throw WireError("a value argument that is not a value");
    const std::string b = in.str();
    if (b.size() != sizeof(P)) throw WireError("an argument of the wrong size");
    P v;
    std::memcpy(&v, b.data(), sizeof v);
    return v;
  }
}

template <class... P>
std::tuple<P...> decode_args(Reader& in, const LaunchArrays& arrays) {
  if (in.pod<uint64_t>() != sizeof...(P)) throw WireError("the wrong number of arguments");
  return std::tuple<P...>{decode_arg<P>(in, arrays)...};  // braces: read left to right
}

template <class... P>
void run_launch(void (*kernel)(P...), const LaunchHeader& h, Reader& in, Writer& out, LaunchArrays& arrays) {
  auto args = decode_args<P...>(in, arrays);
  std::apply([&](auto... a) { halo::launch(kernel, h.grid, h.block, halo::DynamicShared{h.dynamic_shared_bytes}, a...); },
             args);
  write_launch_reply(out, arrays);
}

// HALO_KERNEL
template <auto K>
void serve_kernel(Op op, Reader& in, Writer& out) {
  if (op != Op::launch) return refuse(op, "kernel");
  LaunchArrays arrays;
  const LaunchHeader h = read_launch_header(in, arrays);
  run_launch(K, h, in, out, arrays);
}

// HALO_KERNEL_FOR: the student's function picks the kernel.
template <auto F>
void serve_kernel_for(Op op, Reader& in, Writer& out) {
  if (op == Op::probe_kernel) {
    const auto selector = in.pod<int32_t>();
    out.vec(std::vector<uint8_t>{uint8_t(F(selector) != nullptr)});
    return;
  }
  if (op != Op::launch) return refuse(op, "kernel chooser");
  LaunchArrays arrays;
  const LaunchHeader h = read_launch_header(in, arrays);
  const auto kernel = F(h.selector);
  if (!kernel) throw WireError("no kernel for this selector");
  run_launch(kernel, h, in, out, arrays);
}

template <class P>
struct HostArg {
  P value{};
  explicit HostArg(Reader& in) {
    if (in.pod<remote::ArgKind>() != remote::ArgKind::value) throw WireError("a host argument that is not a value");
    const std::string b = in.str();
    if (b.size() != sizeof(P)) throw WireError("a host argument of the wrong size");
    std::memcpy(&value, b.data(), sizeof value);
  }
  P get() { return value; }
  void write_out(Writer&) const {}
};

// A result: the judge sends what it holds, gets back what the call wrote.
template <class T>
struct HostResult {
  T value{};
  bool present = false;
  explicit HostResult(Reader& in) {
    if (in.pod<remote::ArgKind>() != remote::ArgKind::value) throw WireError("a host argument that is not a value");
    const std::string b = in.str();
    present = !b.empty();
    if (present && b.size() != sizeof(T)) throw WireError("a result of the wrong size");
    if (present) std::memcpy(&value, b.data(), sizeof value);
  }
  T* get() { return present ? &value : nullptr; }
  void write_out(Writer& out) const {
    out.str(present ? std::string_view(reinterpret_cast<const char*>(&value), sizeof value) : std::string_view());
  }
};

template <>
struct HostArg<dim3*> : HostResult<dim3> {
  using HostResult<dim3>::HostResult;
};
template <>
struct HostArg<int*> : HostResult<int> {
  using HostResult<int>::HostResult;
};

template <class R, class... P>
void call_host(R (*f)(P...), Reader& in, Writer& out) {
  if (in.pod<uint64_t>() != sizeof...(P)) throw WireError("the wrong number of arguments");
  std::tuple<HostArg<P>...> args{HostArg<P>(in)...};
  cpu::StudentHostCall student;  // the runtime API treats its calls as the kernel file's
  if constexpr (std::is_void_v<R>) {
    std::apply([&](auto&... a) { f(a.get()...); }, args);
    out.str("");
  } else {
    const R r = std::apply([&](auto&... a) { return f(a.get()...); }, args);
    out.str(std::string_view(reinterpret_cast<const char*>(&r), sizeof r));
  }
  std::apply([&](const auto&... a) { (a.write_out(out), ...); }, args);
}

// HALO_HOST_CALL
template <auto F>
void serve_host_call(Op op, Reader& in, Writer& out) {
  if (op != Op::host_call) return refuse(op, "host function");
  call_host(F, in, out);
}

// HALO_HOST_COPY: cudaError_t f(const float* host, int n)
template <auto F>
void serve_host_copy(Op op, Reader& in, Writer& out) {
  if (op != Op::host_copy) return refuse(op, "copy function");
  const auto n = in.pod<int32_t>();
  const uint64_t floats = in.count(sizeof(float));
  std::vector<float> host(floats);
  if (floats) std::memcpy(host.data(), in.take(floats * sizeof(float)), floats * sizeof(float));
  cudaGetLastError();
  const int32_t result = [&] {
    cpu::StudentHostCall student;
    return F(floats ? host.data() : nullptr, n);
  }();
  const int32_t sticky = cudaGetLastError();
  std::vector<uint8_t> bytes(2 * sizeof(int32_t));
  std::memcpy(bytes.data(), &result, sizeof result);
  std::memcpy(bytes.data() + sizeof result, &sticky, sizeof sticky);
  out.vec(bytes);
}

// HALO_CONSTANT
template <auto Symbol, size_t Bytes>
void serve_constant(Op op, Reader& in, Writer& out) {
  auto* at = reinterpret_cast<unsigned char*>(Symbol);
  if (op == Op::write_constant) {
    const uint64_t n = in.count(1);
    std::memcpy(at, in.take(n), n < Bytes ? n : Bytes);
    out.vec(std::vector<uint8_t>{});
  } else if (op == Op::read_constant) {
    out.vec(std::vector<uint8_t>(at, at + Bytes));
  } else {
    refuse(op, "__constant__ symbol");
  }
}

}  // namespace halo::worker
