// Internal state of a running launch, shared by the scheduler and the access checker.
//
// One Worker per OS thread runs whole blocks, one at a time; inside a block every CUDA thread
// is a fiber with its own small stack. The access checker reads the worker of the calling OS
// thread (a thread_local pointer) to know which block and thread made an access.
#pragma once

#include <boost/context/detail/fcontext.hpp>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "halo/cpu/launch_record.hpp"
#include "halo/cpu/scheduler.hpp"
#include "memory_registry.hpp"

namespace halo::cpu {

namespace fctx = boost::context::detail;

struct Launch {
  dim3 grid, block;
  KernelBody body;
  std::vector<Region> regions;     // snapshot of the registry, sorted by address
  uintptr_t constant_lo = 0, constant_hi = 0;
  bool per_thread = false;
  std::atomic<size_t> next_block{0};
  LaunchRecord* record = nullptr;  // counters are written per block: no two workers share one
  std::mutex diagnostics_mutex;

  size_t block_count() const { return size_t(grid.x) * grid.y * grid.z; }
  size_t threads_per_block() const { return size_t(block.x) * block.y * block.z; }
};

enum class FiberState : uint8_t { fresh, runnable, at_barrier, finished, stopped };

// Why a fiber handed control back to the scheduler.
enum class Yield : uintptr_t { barrier = 1, finished = 2, stopped = 3 };

struct FiberSlot {
  fctx::fcontext_t context = nullptr;
  char* stack = nullptr;  // bottom of its stack while it has one
  FiberState state = FiberState::fresh;
  int barrier_line = 0;
  unsigned barriers_passed = 0;  // __syncthreads() calls this thread has made
};

struct Worker {
  Launch* launch = nullptr;
  size_t block_linear = 0;
  uint3 block_idx;
  uint3 thread_idx;
  size_t thread_linear = 0;
  FiberSlot* current = nullptr;
  uintptr_t stack_lo = 0, stack_hi = 0;  // the running fiber's stack: "local" memory
  uintptr_t tls_lo = 0, tls_hi = 0;      // this OS thread's static TLS: where __shared__ lives
  fctx::fcontext_t scheduler = nullptr;

  std::vector<char*> free_stacks;
  std::vector<char*> all_stacks;
  std::vector<FiberSlot> slots;
};

// The worker of the calling OS thread, or null outside a launch (host code in the exercise
// file is instrumented too; its accesses are not the kernel's and are ignored). constinit
// lets every translation unit read it directly, without a TLS wrapper call per access.
extern constinit thread_local Worker* tls_worker;

// Leaves the running fiber for good: used after a diagnostic that stops a thread before the
// faulty access happens. Never returns.
[[noreturn]] void stop_current_thread();

// Records a diagnostic raised by the running thread (keeps the first of each kind).
void raise_diagnostic(Worker& w, DiagnosticKind kind, std::string what, const void* pc);

}  // namespace halo::cpu
