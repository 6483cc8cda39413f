// The instrumentation callbacks. Kernel translation units are compiled with
// -fsanitize-coverage=func,trace-loads,trace-stores, so clang calls one of these before every
// load and store the kernel makes. Each access is classified by its address:
//
//   global    inside an array allocated with cudaMalloc/cudaMallocPitch (counted per array);
//             within an array's red zone it is out of bounds and is stopped before it happens
//   constant  inside the linker section holding every __constant__ variable
//   local     on the running fiber's stack
//   shared    in the executable's static TLS block, where __shared__ variables live
//   host      anything else (counted, not judged; never stored to)
//
// Whether an access is the kernel's at all comes from the stack pointer (code_context.hpp), never
// from state a kernel could write: on the main thread's stack it is the kernel file's host code,
// which may store only into live frames of that stack; anywhere else it must be a CUDA thread on
// its own fiber stack, or the worker stops.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "../platform/platform.hpp"
#include "execution.hpp"
#include "halo/cpu/code_context.hpp"
#include "halo/pitch_padding.hpp"

namespace halo::cpu {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

std::string element_name(const Region& r, uintptr_t a) {
  int64_t off = int64_t(a) - int64_t(r.lo);
  if (r.is_image()) {
    int64_t row = floor_div(off, int64_t(r.pitch));
    int64_t col = floor_div(off - row * int64_t(r.pitch), int64_t(r.element_size));
    return r.name + "[row " + std::to_string(row) + "][col " + std::to_string(col) + "]";
  }
  return r.name + "[" + std::to_string(floor_div(off, int64_t(r.element_size))) + "]";
}

// The worker cannot go on: instrumented code ran where no CUDA thread runs, or the kernel file's
// host code stored outside its stack (or made a misaligned vector access, alignment_check.cpp).
// Said on stderr, which the judge shows with the worker's end.
[[noreturn]] __attribute__((cold)) void stop_worker(const char* why, uintptr_t a, const void* pc) {
  char line[320];
  const int n = std::snprintf(line, sizeof line, "halo: %s (address 0x%lx, code at %p): the worker stops\n", why,
                              static_cast<unsigned long>(a), pc);
  if (n > 0) (void)!write(2, line, size_t(n) < sizeof line ? size_t(n) : sizeof line - 1);
  _exit(70);
}

namespace {

std::string out_of_bounds_message(const Region& r, uintptr_t a, bool store) {
  size_t count = (r.hi - r.lo) / r.element_size;
  std::string what = std::string(store ? "write to " : "read of ") + element_name(r, a) + ", outside " + r.name;
  if (r.is_image()) {
    what += " (" + std::to_string(r.row_bytes / r.element_size) + " x " + std::to_string(r.height) + " image)";
  } else {
    what += "[0.." + std::to_string(count ? count - 1 : 0) + "] (" + std::to_string(count) +
            (count == 1 ? " element)" : " elements)");
  }
  bool before = a < r.lo;
  // The chapter names its masks M and F: past their end is no ghost cell but a mask size that
  // is not the run-time one.
  const bool mask = r.name == "M" || r.name == "F";
  if (mask && !store && !before)
    what += ": past the end of the mask (does the loop use a fixed mask size, a #define, instead of the run-time one?)";
  else if (r.read_only && !store)
    what += before ? ": a ghost cell before the first element; a kernel must skip ghost cells, not load them"
                   : ": a ghost cell past the last element; a kernel must skip ghost cells, not load them";
  else
    what += before ? ": before the first element" : ": past the end of " + r.name;
  if (store && !r.read_only)
    what += " (does a thread with no output store? Guard the store with the output's bounds: i < Width, or "
            "row < height && col < width)";
  return what;
}

std::string padding_message(const Region& r, uintptr_t a, bool store) {
  const size_t width = r.row_bytes / r.element_size, pitch = r.pitch / r.element_size;
  const size_t element = (a - r.lo) / r.element_size;
  return std::string(store ? "write to " : "read of ") + element_name(r, a) + ": " +
         pitch_padding_advice(width, r.height, pitch, element);
}

template <class Describe>
[[noreturn]] void refuse(Worker& w, DiagnosticKind kind, const void* pc, Describe describe) {
  raise_diagnostic_with(w, kind, pc, [&](Diagnostic&) { return describe(); });
  stop_current_thread();
}

void check_access(Worker* w, const void* p, unsigned size, bool store, const void* pc, uintptr_t kernel_frame);
void check_tagged_access(Worker* w, const void* p, unsigned size, bool store, const void* pc, uintptr_t kernel_frame);

// A thread past the launch's access limit: a loop over the whole input, or one that never ends.
// Stopped before the access, and its worker with it (Worker::stopping): every other thread
// would reach the limit too, each after as long.
[[noreturn]] __attribute__((cold)) HALO_CALLBACK_CODE void stop_over_limit(Worker* w, const void* pc) {
  Launch& L = *w->launch;
  w->stopping = true;
  refuse(*w, DiagnosticKind::work_limit, pc, [&] {
    const dim3 b = L.block;
    return "this thread made " + std::to_string(L.access_limit) +
           " memory accesses, the most one thread may make in a launch of " +
           std::to_string(size_t(b.x) * b.y * b.z) + "-thread blocks (" + std::to_string(kThreadAccessBase) +
           " plus " + std::to_string(kThreadAccessPerBlockThread) +
           " per thread of its block; a thread of the chapter's reference kernels makes fewer than 800): a loop over the "
           "whole input, or one that never ends? The launch was stopped here";
  });
}

// The access's space is decided by address ranges, which are disjoint memory: an array with its
// red zones is one allocation of its own, the TLS block lies in the worker's own thread mapping,
// the constant section (and the slack past it) in the executable, each fiber stack in a mapping
// of its own. So the order of the tests changes no verdict, and the cheapest come first: shared
// memory is one compare, and in a tiled kernel most accesses are shared or constant.
//
// Each space has a function of its own, reached by a tail call, and every diagnostic is raised
// from a cold function out of line: the path of an access that is fine then keeps its few
// values in registers, with no stack frame to set up (check_access had 6 saved registers and a
// 120-byte frame when the messages were built inline: 10% of its time, perf annotate, 7.4).
HALO_CALLBACK_CODE void global_access(Worker& w, size_t k, uintptr_t a, unsigned size, bool store, const void* pc);
HALO_CALLBACK_CODE void shared_access(Worker& w, uintptr_t a, unsigned size, bool store, const void* pc);
HALO_CALLBACK_CODE void other_access(Worker& w, uintptr_t a, unsigned size, bool store, const void* pc,
                                     uintptr_t kernel_frame);

[[gnu::always_inline]] inline void classify(Worker* w, uintptr_t a, unsigned size, bool store, const void* pc,
                                            uintptr_t kernel_frame) {
  if (a - w->tls_lo < w->tls_hi - w->tls_lo) return shared_access(*w, a, size, store, pc);
  const Launch& L = *w->launch;
  const Launch::Zone* zones = L.zones.data();
  const size_t zone_count = L.zones.size();
  for (size_t k = 0; k < zone_count; ++k)
    if (a - zones[k].lo < zones[k].span) return global_access(*w, k, a, size, store, pc);
  other_access(*w, a, size, store, pc, kernel_frame);
}

// The access past the thread's limit, or one that finds a pending local index parked behind the
// limit (FiberSlot::accesses): then classified as any other.
HALO_CALLBACK_CODE __attribute__((cold)) void over_limit_access(Worker* w, uintptr_t a, unsigned size, bool store,
                                                                const void* pc, uintptr_t kernel_frame) {
  if (!w->current->local_index.pending) stop_over_limit(w, pc);
  check_local_index(*w, a, store, pc);
  classify(w, a, size, store, pc, kernel_frame);
}

// Counts the access against the thread's limit and sends it to its space's checks. Inline in the
// callbacks: no jump more on the way of every access.
[[gnu::always_inline]] inline void count_and_classify(Worker* w, const void* p, unsigned size, bool store,
                                                      const void* pc, uintptr_t kernel_frame) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (++w->current->accesses > w->launch->access_limit) [[unlikely]]
    return over_limit_access(w, a, size, store, pc, kernel_frame);
  classify(w, a, size, store, pc, kernel_frame);
}

HALO_CALLBACK_CODE void check_access(Worker* w, const void* p, unsigned size, bool store, const void* pc,
                                     uintptr_t kernel_frame) {
  count_and_classify(w, p, size, store, pc, kernel_frame);
}

// The kernel file's host code (a launch configuration, a copy to constant memory) may read
// anything, and store into live frames of the main thread's stack only: its own variables and the
// grader's that it was handed (dim3* grid). Everything else it reaches through the runtime API,
// which checks it (cuda_runtime.cpp).
HALO_CALLBACK_CODE void check_host_access(uintptr_t a, unsigned size, bool store, uintptr_t sp, const void* pc) {
  if (store && !(a >= sp && a + size <= host_stack_hi() && a + size > a))
    stop_worker("a host function of the kernel file wrote outside its own stack", a, pc);
}

// Off the main stack, instrumented code runs only on a fiber's stack, in a launch: no flag of the
// worker's is asked whether it is a kernel's.
// `kernel_frame`: for a store, the frame pointer of the kernel function that made it (the start of
// the frame chain check_local_store walks); 0 for a load.
[[gnu::always_inline]] inline void on_access(const void* p, unsigned size, bool store, const void* pc,
                                            uintptr_t kernel_frame = 0) {
  const uintptr_t sp = current_stack_pointer();
  if (on_host_stack(sp)) [[unlikely]]
    return check_host_access(reinterpret_cast<uintptr_t>(p), size, store, sp, pc);
  Worker* w = tls_worker;
  if (!w) [[unlikely]]
    stop_worker("instrumented code ran outside every CUDA thread", reinterpret_cast<uintptr_t>(p), pc);
  w->access_pc = pc;
  // Races between blocks (block_race.cpp) concern the arrays a kernel may write, the outputs: one
  // range compare here sends their accesses the longer way. Both ways end in a tail call: a call
  // inside check_access cost every access of every array 14 instructions more (callgrind, 7.8's
  // basic kernel), a call here that returned to it 25.
  const Launch& L = *w->launch;
  if (reinterpret_cast<uintptr_t>(p) - L.tagged_lo < L.tagged_span) [[unlikely]]
    return check_tagged_access(w, p, size, store, pc, kernel_frame);
  count_and_classify(w, p, size, store, pc, kernel_frame);
}

// An access inside the range of the arrays a kernel may write: its race-between-blocks tags
// first, if it is in one of them, then the checks.
HALO_CALLBACK_CODE void check_tagged_access(Worker* w, const void* p, unsigned size, bool store, const void* pc,
                                            uintptr_t kernel_frame) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  for (const Launch::Tagged& t : w->launch->tagged)
    if (a - t.lo < t.span) {
      note_global_access(*w, t.region, a, size, store, pc);
      break;
    }
  check_access(w, p, size, store, pc, kernel_frame);
}

// A store into the running thread's stack lands in a live frame of the kernel: not on a frame
// record (the saved frame pointer and return address every kernel function keeps, -fno-omit-
// frame-pointer) and not above the kernel's outermost frame, where the grader's launch code and
// the fiber's entry live. A pointer walked past a local array reaches these first.
HALO_CALLBACK_CODE void check_local_store(Worker& w, uintptr_t a, unsigned size, const void* pc, uintptr_t f) {
  const uintptr_t top = w.current->kernel_caller_frame;
  constexpr uintptr_t kRecord = 2 * sizeof(void*);
  if (f - w.stack_lo >= w.stack_hi - w.stack_lo)  // no frame of the kernel's: nothing to vouch for
    refuse(w, DiagnosticKind::out_of_bounds, pc, [&] {
      return std::string("write to the thread's stack from code without a frame record");
    });
  for (int depth = 0; depth < 4096; ++depth) {
    const uintptr_t next = *reinterpret_cast<const uintptr_t*>(f);
    const bool outermost = top && next == top;
    if ((a < f + kRecord && f < a + size) || (outermost && a + size > f + kRecord))
      refuse(w, DiagnosticKind::out_of_bounds, pc, [&] {
        return std::string("write to the thread's stack outside its local variables (") +
               (outermost && a >= f + kRecord ? "the grader's frame above the kernel" : "a saved return address") +
               "): a pointer walked past the end of a local array?";
      });
    if (outermost || next <= f || next - w.stack_lo >= w.stack_hi - w.stack_lo) return;
    f = next;
  }
}

// An access in an array's zone that a check refuses: the first of its faults, in this order.
[[noreturn]] HALO_CALLBACK_CODE __attribute__((cold)) void refuse_global(Worker& w, const Region& r, uintptr_t a,
                                                                        unsigned size, bool store, const void* pc) {
  if (a < r.lo || a + size > r.hi)
    refuse(w, DiagnosticKind::out_of_bounds, pc, [&] { return out_of_bounds_message(r, a, store); });
  if (r.is_image() && (a - r.lo) % r.pitch + size > r.row_bytes)
    refuse(w, DiagnosticKind::pitch_padding, pc, [&] { return padding_message(r, a, store); });
  refuse(w, DiagnosticKind::write_to_input, pc, [&] {
    return "write to " + element_name(r, a) + ", but " + r.name + " is an input of this kernel (read-only)";
  });
}

// Whether an access inside image `r` stays inside one row's pixels, off its pitch padding. The
// pixels of the row checked last are kept (Worker::row_lo): a kernel walks along rows, and most
// accesses are then known to be fine without the division by the pitch.
[[gnu::always_inline]] inline bool in_row_pixels(Worker& w, const Region& r, uintptr_t a, unsigned size) {
  if (a >= w.row_lo && a + size <= w.row_hi) return true;
  const uintptr_t row = r.lo + (a - r.lo) / r.pitch * r.pitch;
  if (a - row + size > r.row_bytes) return false;
  w.row_lo = row, w.row_hi = row + r.row_bytes;  // inside region r alone: regions are disjoint
  return true;
}

// Counts an access of array k per thread and per element, when the launch asked for them.
HALO_CALLBACK_CODE void count_in_detail(Worker& w, size_t k, uintptr_t a, unsigned size, bool store) {
  const Launch& L = *w.launch;
  const Region& r = L.regions[k];
  ArrayTraffic& t = L.record->arrays[k];
  if (L.per_thread) {
    const uint32_t elements = size >= r.element_size ? uint32_t(size / r.element_size) : 1u;
    (store ? t.thread_stores : t.thread_loads)[w.block_linear * L.threads_per_block() + w.thread_linear] += elements;
  }
  if (L.per_element) {  // blocks run on several cores: the slots are shared, so add atomically
    uint32_t* slots = (store ? t.element_stores : t.element_loads).data();
    const size_t first = (a - r.lo) / r.element_size, last = (a + size - 1 - r.lo) / r.element_size;
    for (size_t e = first; e <= last; ++e) __atomic_fetch_add(&slots[e], 1u, __ATOMIC_RELAXED);
  }
}

HALO_CALLBACK_CODE void global_access(Worker& w, size_t k, uintptr_t a, unsigned size, bool store, const void* pc) {
  const Launch& L = *w.launch;
  const Region& r = L.regions[k];
  if (L.checks) {
    if (a < r.lo || a + size > r.hi || (r.is_image() && !in_row_pixels(w, r, a, size)) || (store && r.read_only))
        [[unlikely]]
      refuse_global(w, r, a, size, store, pc);
  } else if (a < r.lo || a + size > r.hi) {
    // Unchecked: counted as host memory, and left to happen. A red zone is never the stack, so no
    // frame is needed for the local-store check.
    return other_access(w, a, size, store, pc, 0);
  }
  // The block's tally (Worker::ArrayTally): a load in its phase only, and the global space's
  // total from the arrays' when the block ends, so two counters per access rather than six.
  Worker::ArrayTally& tally = w.array_tally[k];
  Traffic& c = store ? tally.stores : tally.loads_phase[w.current->barriers_passed ? 1 : 0];
  c.accesses += 1;
  c.bytes += size;
  if (L.per_thread | L.per_element) [[unlikely]]
    count_in_detail(w, k, a, size, store);
}

// A kernel that reads or writes the runtime's own pointer to its worker (in the TLS block): it
// could switch its own counting off. Never a diagnostic to turn off.
[[noreturn]] HALO_CALLBACK_CODE __attribute__((cold)) void refuse_own_state(Worker& w, bool store, const void* pc) {
  refuse(w, DiagnosticKind::outside_memory, pc, [&] {
    return std::string(store ? "write to " : "read of ") +
           "the grader's own state in shared memory (outside every __shared__ variable of the kernel)";
  });
}

HALO_CALLBACK_CODE void shared_access(Worker& w, uintptr_t a, unsigned size, bool store, const void* pc) {
  const bool checks = w.launch->checks;
  // Bounds first: an index one past a __shared__ array is named as that, whatever the linker
  // placed after the array (the runtime's own state, in some builds). The array of the last
  // access that was in bounds is asked first (Worker::shared_hit_lo), here, without a call.
  if (checks) {
    const uint64_t offset = a - w.tls_lo;
    if (!(offset >= w.shared_hit_lo && offset + size <= w.shared_hit_hi) && !check_shared_bounds(w, a, size, store, pc))
      stop_current_thread();
  }
  // The TLS block also holds the runtime's own pointer to this worker.
  const uintptr_t own = reinterpret_cast<uintptr_t>(&tls_worker);
  if (a < own + sizeof tls_worker && own < a + size) [[unlikely]]
    refuse_own_state(w, store, pc);
  Traffic& s = w.space_tally[store][int(Space::shared)];
  s.accesses += 1;
  s.bytes += size;
  // Counted first, so that the race and initialisation checks end in a tail call: they raise
  // diagnostics but never stop the thread (only a time-out may stop it there, and then the
  // launch's counts are cut short anyway), so the count is the same.
  if (checks) check_shared_access(w, a, size, store, pc);
}

[[noreturn]] HALO_CALLBACK_CODE __attribute__((cold)) void refuse_host_store(Worker& w, uintptr_t a, const void* pc) {
  refuse(w, DiagnosticKind::outside_memory, pc, [&] {
    return "write to memory that is not an array of the launch, shared, local or constant memory (address 0x" +
           [&] { char b[32]; std::snprintf(b, sizeof b, "%lx", static_cast<unsigned long>(a)); return std::string(b); }() +
           "): a pointer computed from something other than a kernel argument?";
  });
}

HALO_CALLBACK_CODE void other_access(Worker& w, uintptr_t a, unsigned size, bool store, const void* pc,
                                     uintptr_t kernel_frame) {
  const Launch& L = *w.launch;
  Space space = Space::host;
  // Near constant memory: inside the __constant__ variable of the last read that was (Worker::
  // constant_hit_lo) is in bounds without a call, as check_constant_access would say.
  if (L.checks && L.constant_hi > L.constant_lo && a - L.constant_lo < L.constant_hi + kConstantSlackBytes - L.constant_lo &&
      !(!store && a >= w.constant_hit_lo && a + size <= w.constant_hit_hi) && !check_constant_access(w, a, size, store, pc))
    stop_current_thread();
  if (a - L.constant_lo < L.constant_hi - L.constant_lo) space = Space::constant;
  else if (a - w.stack_lo < w.stack_hi - w.stack_lo) {
    space = Space::local;
    if (store) check_local_store(w, a, size, pc, kernel_frame);
  }
  // Any other memory is the process's (the runtime, its records, the heap): a kernel may read
  // constant data there, but a store could rewrite what the grader measured, so none happens.
  // The first 64 KiB are never mapped: a store there (through a null pointer) crashes, and the
  // crash report says more than this one would.
  constexpr uintptr_t kNeverMapped = 1 << 16;
  if (space == Space::host && store && a >= kNeverMapped) [[unlikely]]
    refuse_host_store(w, a, pc);
  Traffic& s = w.space_tally[store][int(space)];
  s.accesses += 1;
  s.bytes += size;
}

}  // namespace

HALO_CALLBACK_CODE void check_atomic_access(const void* address, unsigned size, const void* pc,
                                            const void* kernel_frame) {
  // Blocks may share an element through atomics: no race between blocks (block_race.cpp). The
  // flag is the worker's, which no kernel store reaches (a store outside the launch's memory is
  // refused before it happens).
  Worker* w = tls_worker;
  if (w) w->in_atomic = true;
  on_access(address, size, false, pc);
  on_access(address, size, true, pc, reinterpret_cast<uintptr_t>(kernel_frame));
  if (w) w->in_atomic = false;
}

HALO_CALLBACK_CODE void check_kernel_read(const void* address, unsigned size, const void* pc) {
  on_access(address, size, false, pc);
}

bool in_callback_code(const void* pc) {
  static const platform::AddressRange callbacks = platform::callback_code_section();
  return callbacks.contains(reinterpret_cast<uintptr_t>(pc));
}

void raise_diagnostic(Worker& w, DiagnosticKind kind, std::string what, const void* pc) {
  raise_diagnostic_with(w, kind, pc, [&](Diagnostic&) { return std::move(what); });
}

}  // namespace halo::cpu

// clang's names and signatures (see SanitizerCoverage); the argument is the address about to
// be accessed, the return address points just after the call, inside the kernel's code.
// A store callback also hands on its caller's frame pointer, the kernel's (kernels keep frame
// pointers): where the frame chain starts for a store into the thread's stack. A load needs none,
// and its callback keeps no frame.
#define HALO_LOAD_CALLBACK(bytes, type)                                                    \
  extern "C" HALO_CALLBACK_CODE void __sanitizer_cov_load##bytes(type* p) {                \
    halo::cpu::on_access(p, bytes, false, __builtin_return_address(0));                    \
  }
#define HALO_STORE_CALLBACK(bytes, type)                                                   \
  extern "C" HALO_CALLBACK_CODE void __sanitizer_cov_store##bytes(type* p) {               \
    halo::cpu::on_access(p, bytes, true, __builtin_return_address(0),                      \
                         reinterpret_cast<uintptr_t>(__builtin_frame_address(1)));         \
  }
HALO_LOAD_CALLBACK(1, uint8_t)
HALO_LOAD_CALLBACK(2, uint16_t)
HALO_LOAD_CALLBACK(4, uint32_t)
HALO_LOAD_CALLBACK(8, uint64_t)
HALO_LOAD_CALLBACK(16, __int128)
HALO_STORE_CALLBACK(1, uint8_t)
HALO_STORE_CALLBACK(2, uint16_t)
HALO_STORE_CALLBACK(4, uint32_t)
HALO_STORE_CALLBACK(8, uint64_t)
HALO_STORE_CALLBACK(16, __int128)

// -fsanitize-coverage=func also asks for these; Halo does not use edge coverage.
extern "C" void __sanitizer_cov_trace_pc_guard_init(uint32_t*, uint32_t*) {}
extern "C" void __sanitizer_cov_trace_pc_guard(uint32_t*) {}
