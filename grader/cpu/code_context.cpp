#include "halo/cpu/code_context.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace halo::cpu {
namespace {

// A page of its own, made read-only once written: no store of the process can change it after
// that, however it was aimed.
struct alignas(65536) HostStackPage {
  uintptr_t lo = 0, hi = 0;
};
HostStackPage host_stack_page;

std::atomic<int> student_host_calls{0};

__attribute__((constructor)) void record_host_stack() {
  pthread_attr_t attr;
  void* base = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
  }
  if (!base || !size) {
    std::fputs("halo: cannot tell where the main thread's stack is (pthread_getattr_np)\n", stderr);
    std::abort();
  }
  host_stack_page.lo = reinterpret_cast<uintptr_t>(base);
  host_stack_page.hi = host_stack_page.lo + size;
  // 64 KiB covers the page size of every Linux Halo runs on (4 KiB x86-64, up to 64 KiB aarch64).
  if (mprotect(&host_stack_page, sizeof host_stack_page, PROT_READ) != 0) {
    std::perror("halo: cannot make the stack bounds read-only");
    std::abort();
  }
}

}  // namespace

bool on_host_stack(uintptr_t sp) { return sp - host_stack_page.lo < host_stack_page.hi - host_stack_page.lo; }
uintptr_t host_stack_lo() { return host_stack_page.lo; }
uintptr_t host_stack_hi() { return host_stack_page.hi; }

StudentHostCall::StudentHostCall() { student_host_calls.fetch_add(1); }
StudentHostCall::~StudentHostCall() { student_host_calls.fetch_sub(1); }

bool student_code_calling() {
  return student_host_calls.load() > 0 || !on_host_stack(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
}

}  // namespace halo::cpu
