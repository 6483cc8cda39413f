#include "faults.hpp"

#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../platform/platform.hpp"
#include "execution.hpp"

namespace halo::cpu {
namespace {

// SIGTRAP too: a trap instruction (__builtin_trap(), code the compiler proved unreachable) is
// ud2 and SIGILL on x86-64 but brk and SIGTRAP on aarch64; both are the same crash.
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, kTimeoutSignal};
struct sigaction previous[sizeof kSignals / sizeof kSignals[0]];
constexpr size_t kFaultStackBytes = 64 * 1024;

const char* describe(int sig) {
  switch (sig) {
    case SIGSEGV: return "segmentation fault";
    case SIGBUS: return "bus error";
    case SIGFPE: return "arithmetic error (an integer division by zero?)";
    case SIGILL:
    case SIGTRAP: return "illegal instruction";
  }
  return "fatal signal";
}

// Runs on the faulting thread. Leaving by a context switch (not a return) is what makes the
// thread "stopped"; SA_NODEFER keeps the signal unblocked for the next fault.
void on_fault(int sig, siginfo_t* info, void* context) {
  Worker* w = tls_worker;
  if (sig == kTimeoutSignal && (!w || !w->in_fiber)) return;  // between threads: the scheduler sees the flag
  if (!w || !w->in_fiber) {
    for (size_t k = 0; k < sizeof kSignals / sizeof kSignals[0]; ++k)
      if (kSignals[k] == sig) sigaction(sig, &previous[k], nullptr);
    return;  // the fault happens again, under the previous handler
  }
  const void* pc = platform::interrupted_pc(context);
  if (sig == kTimeoutSignal) {
    // Interrupted inside the instrumentation: name the kernel's line of the access being checked.
    if (in_callback_code(pc) && w->access_pc) pc = w->access_pc;
    w->stopped_by_timeout = true;
    raise_diagnostic_with(*w, DiagnosticKind::launch_timeout, pc, [&](Diagnostic&) {
      char limit[32];
      std::snprintf(limit, sizeof limit, "%.1f", w->launch->timeout_s);
      return std::string("the launch did not finish within ") + limit +
             " s of CPU time (HALO_LAUNCH_TIMEOUT); this thread was still running: an endless loop?";
    });
    stop_current_thread();
  }
  const void* address = info->si_addr;
  raise_diagnostic_with(*w, DiagnosticKind::crash, pc, [&](Diagnostic&) {
    char where[64];
    std::snprintf(where, sizeof where, "%p", address);
    std::string what = std::string("the thread crashed: ") + describe(sig);
    if (sig == SIGSEGV || sig == SIGBUS) what += std::string(" at address ") + where + " (not an array of this launch)";
    return what;
  });
  stop_current_thread();
}

}  // namespace

FaultHandlers::FaultHandlers() {
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_sigaction = on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (size_t k = 0; k < sizeof kSignals / sizeof kSignals[0]; ++k) sigaction(kSignals[k], &action, &previous[k]);
}

FaultHandlers::~FaultHandlers() {
  for (size_t k = 0; k < sizeof kSignals / sizeof kSignals[0]; ++k) sigaction(kSignals[k], &previous[k], nullptr);
}

FaultStack::FaultStack() : memory_(std::malloc(kFaultStackBytes)) {
  stack_t ss;
  ss.ss_sp = memory_;
  ss.ss_size = kFaultStackBytes;
  ss.ss_flags = 0;
  if (memory_) sigaltstack(&ss, nullptr);
}

FaultStack::~FaultStack() {
  stack_t ss;
  std::memset(&ss, 0, sizeof ss);
  ss.ss_flags = SS_DISABLE;
  sigaltstack(&ss, nullptr);
  std::free(memory_);
}

}  // namespace halo::cpu
