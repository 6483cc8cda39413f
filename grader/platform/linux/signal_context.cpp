// The instruction a signal interrupted, read from a Linux signal handler's context. The register
// that holds it is named differently on each architecture, so this is the one place that knows
// them; a new architecture adds a branch here.
#include <ucontext.h>

#include "../platform.hpp"

namespace halo::platform {

const void* interrupted_pc(const void* signal_context) {
  const auto* uc = static_cast<const ucontext_t*>(signal_context);
#if defined(__x86_64__)
  return reinterpret_cast<const char*>(uc->uc_mcontext.gregs[REG_RIP]) + 1;
#elif defined(__aarch64__)
  return reinterpret_cast<const char*>(uc->uc_mcontext.pc) + 1;
#else
  (void)uc;
  return nullptr;
#endif
}

}  // namespace halo::platform
