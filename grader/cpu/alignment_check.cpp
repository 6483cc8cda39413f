// The alignment check of 16-byte vector accesses (a float4 load or store).
//
// A GPU stops a kernel whose float4 access is not on a 16-byte boundary ("misaligned address").
// x86-64 makes such an access with an aligned SSE instruction (movaps), which faults; aarch64's
// `ldr q` takes any address and runs on with the wrong pixels. So the compile of a kernel file
// (tools/halo/core/alignment_checks.py) puts a call of one of these before every vector load or
// store that the LLVM IR marks 16-byte aligned, after the instrumentation's callback for that
// access: the access is counted and bounds-checked first, as it always was, and then named here
// the same way on every machine, before the instruction that would fault.
//
// Nothing else is checked: an access the IR marks `align 4` (four floats that the optimiser
// combined) is no aligned instruction on any machine, and must pass. The callback only compares
// the pointer's value; it reads and writes no memory through it. It stops the access with the
// checks off too (HALO_DIAGNOSTICS=off): left to happen, it would crash on one machine only.
#include <cstdint>
#include <cstdio>
#include <string>

#include "execution.hpp"
#include "halo/cpu/code_context.hpp"

namespace halo::cpu {
namespace {

constexpr uintptr_t kVectorAlignment = 16;

// What the misaligned address is, in the words of the other diagnostics: an element of an array
// of the launch, of a __shared__ array, or a place in the thread's own memory.
std::string place(const Worker& w, uintptr_t a) {
  const Launch& L = *w.launch;
  for (size_t k = 0; k < L.zones.size(); ++k)
    if (a - L.zones[k].lo < L.zones[k].span) return element_name(L.regions[k], a);
  if (a - w.tls_lo < w.tls_hi - w.tls_lo) return shared_element_name(a - w.tls_lo) + " in shared memory";
  if (a - L.constant_lo < L.constant_hi - L.constant_lo) return "constant memory";
  if (a - w.stack_lo < w.stack_hi - w.stack_lo) return "a local variable of the thread";
  char address[32];
  std::snprintf(address, sizeof address, "address 0x%lx", static_cast<unsigned long>(a));
  return address;
}

[[noreturn]] __attribute__((cold)) void misaligned(const void* p, bool store, const void* pc) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (on_host_stack(current_stack_pointer()))  // the kernel file's host code: where x86-64 would crash the worker
    stop_worker("a host function of the kernel file made a 16-byte vector access at an address that is not a "
                "multiple of 16", a, pc);
  Worker* w = tls_worker;
  if (!w) stop_worker("instrumented code ran outside every CUDA thread", a, pc);
  raise_diagnostic_with(*w, DiagnosticKind::misaligned_address, pc, [&](Diagnostic&) {
    return std::string(store ? "16-byte write to " : "16-byte read of ") + place(*w, a) +
           ", an address that is not a multiple of 16: a float4 must start on a 16-byte boundary (in an "
           "array of floats that starts on one, an element whose index is a multiple of 4); a GPU stops the "
           "launch there";
  });
  stop_current_thread();
}

}  // namespace
}  // namespace halo::cpu

// The names the compile's rewrite calls (alignment_checks.py); the source layer of the validator
// refuses every `__halo` name, so only that rewrite calls them. The argument is the address of
// the access about to happen; the return address is in the kernel, at the access's line.
extern "C" HALO_CALLBACK_CODE void __halo_check_aligned16_load(const void* p) {
  if (reinterpret_cast<uintptr_t>(p) % halo::cpu::kVectorAlignment != 0) [[unlikely]]
    halo::cpu::misaligned(p, false, __builtin_return_address(0));
}

extern "C" HALO_CALLBACK_CODE void __halo_check_aligned16_store(const void* p) {
  if (reinterpret_cast<uintptr_t>(p) % halo::cpu::kVectorAlignment != 0) [[unlikely]]
    halo::cpu::misaligned(p, true, __builtin_return_address(0));
}
