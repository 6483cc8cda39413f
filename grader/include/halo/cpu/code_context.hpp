// Whose code is running: the grader's, or the kernel file's (its kernels in fibers, its host
// functions on the worker's main thread). Decided from things the kernel file cannot write: the
// stack pointer, against the main thread's stack bounds kept in a page that is read-only from
// before main() on, and a count of the student's host calls in progress, which only the grader's
// code changes (a store of the kernel file outside its own stack is refused before it happens).
#pragma once

#include <atomic>
#include <cstdint>

namespace halo::cpu {

// Whether `sp` lies on the stack of the thread that ran the process's static constructors (the
// main thread, where the worker serves requests and the student's host functions run).
bool on_host_stack(uintptr_t sp);

// The main thread's stack, [lo, hi): where the student's host code may store (its own frames and
// the grader's locals it was handed pointers to).
uintptr_t host_stack_lo();
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
