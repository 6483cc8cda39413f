// The instruction a signal interrupted, read from the signal handler's context: where a crash
// or an endless loop is reported. The register that holds it is named differently on each
// architecture, so this is the one place that knows them; a new platform adds a branch here.
#pragma once

#include <ucontext.h>

namespace halo::cpu {

// The address to give source_line(), which looks one byte before it (it expects a return
// address): so +1, which makes it look at the interrupted instruction itself. nullptr on an
// architecture not listed: the report then has no file:line, and says so, rather than a wrong one.
inline const void* interrupted_pc(const void* context) {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__linux__) && defined(__x86_64__)
  return reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RIP]) + 1;
#elif defined(__linux__) && defined(__aarch64__)
  return reinterpret_cast<const char*>(uc->uc_mcontext.pc) + 1;
#else
  (void)uc;
  return nullptr;
#endif
}

}  // namespace halo::cpu
