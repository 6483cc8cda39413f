// Whose code is running: the grader's, or the kernel file's (its kernels in fibers, its host
// functions on the worker's main thread). Decided from things the kernel file cannot write: the
// stack pointer, against the main thread's stack bounds kept in a page that is read-only from
// before main() on, and a count of the student's host calls in progress, which only the grader's
// code changes (a store of the kernel file outside its own stack is refused before it happens).
#pragma once

#include <atomic>
#include <cstdint>

namespace halo::cpu {

// The main thread's stack bounds live in the first whole 64 KiB of this area (64 KiB covers the
// page size of every Linux Halo runs on: 4 KiB on x86-64, up to 64 KiB on aarch64), made read-only
// once written (code_context.cpp). Found by address arithmetic alone: no pointer to it exists that
// a store could redirect.
inline constexpr uintptr_t kHostStackPageBytes = 65536;
extern "C" char halo_host_stack_area[2 * kHostStackPageBytes];
struct HostStackBounds {
  uintptr_t lo, hi;
};
inline const HostStackBounds& host_stack_bounds() {
  const uintptr_t a = (reinterpret_cast<uintptr_t>(halo_host_stack_area) + kHostStackPageBytes - 1) &
                      ~(kHostStackPageBytes - 1);
  return *reinterpret_cast<const HostStackBounds*>(a);
}

// The stack pointer, read from its register: one instruction, and no frame forced on the caller.
[[gnu::always_inline]] inline uintptr_t current_stack_pointer() {
#if defined(__x86_64__)
  uintptr_t sp;
  asm volatile("mov %%rsp, %0" : "=r"(sp));
  return sp;
#elif defined(__aarch64__)
  uintptr_t sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  return sp;
#else
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
#endif
}

// Whether `sp` lies on the stack of the thread that ran the process's static constructors (the
// main thread, where the worker serves requests and the student's host functions run). Inline: it
// is asked before every access of kernel code.
inline bool on_host_stack(uintptr_t sp) {
  const HostStackBounds& b = host_stack_bounds();
  return sp - b.lo < b.hi - b.lo;
}

// The top of the main thread's stack: the student's host code may store between its stack pointer
// and here (its own frames and the grader's locals it was handed pointers to).
uintptr_t host_stack_hi();

// The grader calls a host function of the kernel file (7.3's copy to constant memory, 7.6's launch
// configuration) inside one of these.
class StudentHostCall {
 public:
  StudentHostCall();
  ~StudentHostCall();
  StudentHostCall(const StudentHostCall&) = delete;
  StudentHostCall& operator=(const StudentHostCall&) = delete;
};

// Whether the runtime API function calling this was called by the kernel file's code: a kernel
// (on a fiber's stack) or one of its host functions.
bool student_code_calling();

}  // namespace halo::cpu
