#include "halo/cpu/code_context.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

extern "C" char halo_host_stack_area[2 * halo::cpu::kHostStackPageBytes] = {};

namespace halo::cpu {
namespace {

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
  // A page of its own, made read-only once written: no store of the process can change it after
  // that, however it was aimed.
  auto& page = const_cast<HostStackBounds&>(host_stack_bounds());
  page.lo = reinterpret_cast<uintptr_t>(base);
  page.hi = page.lo + size;
  if (mprotect(&page, kHostStackPageBytes, PROT_READ) != 0) {
    std::perror("halo: cannot make the stack bounds read-only");
    std::abort();
  }
}

}  // namespace

uintptr_t host_stack_hi() { return host_stack_bounds().hi; }

StudentHostCall::StudentHostCall() { student_host_calls.fetch_add(1); }
StudentHostCall::~StudentHostCall() { student_host_calls.fetch_sub(1); }

bool student_code_calling() {
  return student_host_calls.load() > 0 || !on_host_stack(current_stack_pointer());
}

}  // namespace halo::cpu
