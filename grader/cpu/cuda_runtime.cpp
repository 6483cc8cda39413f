// The CUDA runtime API subset on the CPU backend. Errors follow CUDA's rules closely enough
// that a student's host code behaves the same: invalid arguments give cudaErrorInvalidValue,
// errors are remembered until cudaGetLastError() reads them.
#include <cstring>

#include "../platform/platform.hpp"
#include "execution.hpp"
#include "halo/cpu/code_context.hpp"
#include "halo/cpu/cuda_runtime.hpp"
#include "memory_registry.hpp"

namespace {

thread_local cudaError_t last_error = cudaSuccess;

cudaError_t note(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

bool valid_kind(cudaMemcpyKind kind) { return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault; }

// Device-side pointers must be inside one of our allocations; host pointers may be anything.
bool device_side_ok(cudaMemcpyKind kind, bool is_destination, const void* p, size_t bytes) {
  auto& reg = halo::cpu::MemoryRegistry::instance();
  bool device = is_destination ? (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice)
                               : (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice);
  return !device || bytes == 0 || reg.contains(p, bytes);
}

// The kernel file's code may move bytes only into device memory: a copy into host memory (host to
// host, device to host, or cudaMemcpyDefault, which trusts the pointers) would be a store that no
// check sees, aimed wherever the file likes. The grader's own copies are not limited.
bool student_may_write(void* dst, size_t bytes) {
  return !halo::cpu::student_code_calling() || bytes == 0 || halo::cpu::MemoryRegistry::instance().contains(dst, bytes);
}

// Inside a kernel the runtime API is host code that a GPU would not compile (no dynamic
// parallelism here): on the CPU it would write arrays past every check and count.
bool in_kernel_thread() {
  return !halo::cpu::on_host_stack(halo::cpu::current_stack_pointer());
}

constexpr size_t kPitchAlignment = 512;  // what current NVIDIA GPUs use for cudaMallocPitch

}  // namespace

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  if (!ptr || in_kernel_thread()) return note(cudaErrorInvalidValue);
  *ptr = halo::cpu::MemoryRegistry::instance().allocate(bytes, 0, 0, 0);
  return note(*ptr ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width_bytes, size_t height) {
  if (!ptr || !pitch || in_kernel_thread()) return note(cudaErrorInvalidValue);
  size_t p = (width_bytes + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
  if (p == 0) p = kPitchAlignment;
  *ptr = halo::cpu::MemoryRegistry::instance().allocate(p * height, p, width_bytes, height);
  *pitch = p;
  return note(*ptr ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* ptr) {
  if (!ptr) return cudaSuccess;
  if (in_kernel_thread()) return note(cudaErrorInvalidDevicePointer);
  return note(halo::cpu::MemoryRegistry::instance().release(ptr) ? cudaSuccess : cudaErrorInvalidDevicePointer);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  if (!valid_kind(kind)) return note(cudaErrorInvalidMemcpyDirection);
  if (bytes && (!dst || !src)) return note(cudaErrorInvalidValue);
  if (in_kernel_thread() || !student_may_write(dst, bytes)) return note(cudaErrorInvalidValue);
  if (!device_side_ok(kind, true, dst, bytes) || !device_side_ok(kind, false, src, bytes))
    return note(cudaErrorInvalidValue);
  if (bytes) std::memmove(dst, src, bytes);
  return cudaSuccess;
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width_bytes,
                         size_t height, cudaMemcpyKind kind) {
  if (!valid_kind(kind)) return note(cudaErrorInvalidMemcpyDirection);
  if (width_bytes > dpitch || width_bytes > spitch) return note(cudaErrorInvalidPitchValue);
  if (height == 0 || width_bytes == 0) return cudaSuccess;
  size_t dst_span = dpitch * (height - 1) + width_bytes, src_span = spitch * (height - 1) + width_bytes;
  if (!dst || !src || !device_side_ok(kind, true, dst, dst_span) || !device_side_ok(kind, false, src, src_span))
    return note(cudaErrorInvalidValue);
  if (in_kernel_thread() || !student_may_write(dst, dst_span)) return note(cudaErrorInvalidValue);
  for (size_t row = 0; row < height; ++row)
    std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width_bytes);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* ptr, int value, size_t bytes) {
  if (in_kernel_thread()) return note(cudaErrorInvalidValue);
  if (bytes && !halo::cpu::MemoryRegistry::instance().contains(ptr, bytes)) return note(cudaErrorInvalidValue);
  if (bytes) std::memset(ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t cudaGetLastError() {
  cudaError_t e = last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() { return last_error; }

// Launches are synchronous here, so synchronising only reports what the last launch did.
cudaError_t cudaDeviceSynchronize() {
  const auto& r = halo::cpu::last_launch();
  return r.valid ? r.error : cudaSuccess;
}

const char* cudaGetErrorName(cudaError_t error) {
  switch (error) {
#define HALO_NAME(e) \
  case e:            \
    return #e;
    HALO_NAME(cudaSuccess)
    HALO_NAME(cudaErrorInvalidValue)
    HALO_NAME(cudaErrorMemoryAllocation)
    HALO_NAME(cudaErrorInvalidConfiguration)
    HALO_NAME(cudaErrorInvalidPitchValue)
    HALO_NAME(cudaErrorInvalidSymbol)
    HALO_NAME(cudaErrorInvalidDevicePointer)
    HALO_NAME(cudaErrorInvalidMemcpyDirection)
    HALO_NAME(cudaErrorNoDevice)
    HALO_NAME(cudaErrorIllegalAddress)
    HALO_NAME(cudaErrorLaunchTimeout)
    HALO_NAME(cudaErrorAssert)
    HALO_NAME(cudaErrorMisalignedAddress)
    HALO_NAME(cudaErrorLaunchFailure)
    HALO_NAME(cudaErrorUnknown)
#undef HALO_NAME
  }
  return "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorUnknown: return "unknown error";
  }
  return "unknown error";
}

namespace halo::cpu {

cudaError_t record_error(cudaError_t error) { return note(error); }

bool in_constant_section(const void* p, size_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto [lo, hi] = platform::constant_section();
  return a >= lo && a <= hi && bytes <= hi - a;
}

cudaError_t copy_to_symbol(void* symbol, size_t symbol_bytes, const void* src, size_t count, size_t offset,
                           cudaMemcpyKind kind) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return note(cudaErrorInvalidMemcpyDirection);
  if (offset > symbol_bytes || count > symbol_bytes - offset || (count && !src)) return note(cudaErrorInvalidValue);
  // The dialect passes a __constant__ variable and its size; a call written by hand could pass
  // any address: only the constant section may be written, and only from host code.
  if (in_kernel_thread() || !in_constant_section(symbol, symbol_bytes)) return note(cudaErrorInvalidSymbol);
  if (count) std::memcpy(static_cast<char*>(symbol) + offset, src, count);
  return cudaSuccess;
}

cudaError_t copy_from_symbol(void* dst, const void* symbol, size_t symbol_bytes, size_t count, size_t offset,
                             cudaMemcpyKind kind) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return note(cudaErrorInvalidMemcpyDirection);
  if (offset > symbol_bytes || count > symbol_bytes - offset || (count && !dst)) return note(cudaErrorInvalidValue);
  if (in_kernel_thread() || !in_constant_section(symbol, symbol_bytes)) return note(cudaErrorInvalidSymbol);
  if (!student_may_write(dst, count)) return note(cudaErrorInvalidValue);
  if (count) std::memcpy(dst, static_cast<const char*>(symbol) + offset, count);
  return cudaSuccess;
}

}  // namespace halo::cpu
