// The platform layer: everything the grader asks of the operating system and the executable
// format, behind one small interface. Nothing outside grader/platform/ includes <elf.h>, <link.h>,
// <ucontext.h>, <sys/prctl.h> or reads /proc (tools/tests/test_platform_layer.py checks it), so a
// port to another system (docs/platforms.md, "Native macOS, on paper") adds an implementation
// folder beside linux/ and changes no caller.
//
// linux/ implements it for ELF executables on Linux (x86-64 and aarch64). Starting and
// supervising the worker, and its sandbox, are the other half of the layer: worker_process.hpp
// (linux/worker_process.cpp: fork, a subreaper supervisor, rlimits, bubblewrap).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace halo::platform {

struct AddressRange {
  uintptr_t lo = 0, hi = 0;  // [lo, hi); both 0 when there is none
  bool contains(uintptr_t a) const { return a >= lo && a < hi; }
};

// ---- the running executable's image

struct ExecutableSymbol {
  uint64_t value = 0, size = 0;  // for TLS symbols, value is the offset in the TLS block
  bool tls = false;
  std::string section;           // the name of the section that holds it
  std::string mangled;           // as in the table
  std::string name;              // demangled, without its scope: "N_ds" for "kernel(...)::N_ds"
};

// Every defined symbol of the executable with a size, read once: how the runtime names the
// variables a kernel declared (__shared__ arrays live in the TLS block, __constant__ ones in the
// constant section) when it reports an access to them.
const std::vector<ExecutableSymbol>& executable_symbols();

// Where the executable was loaded: a (non-TLS) symbol's address is load_bias() + its value.
uintptr_t load_bias();

// The executable's static TLS block of the calling thread: every `static thread_local` variable
// of a kernel translation unit, i.e. all __shared__ memory, lives inside it.
AddressRange thread_tls_block();

// The linker-made bounds of the two sections the runtime names (attributes in
// halo/cpu/cuda_dialect.hpp and cpu/execution.hpp): every __constant__ variable, and the code of
// the access-check callbacks.
AddressRange constant_section();
AddressRange callback_code_section();

// ---- symbolizing

// "file:line" (the path as the debug info names it) of the instruction at `address`, from the
// debug info of the executable or library holding it; "file:?" where the compiler recorded no
// line; empty when unknown. Starts a program (addr2line): for diagnostics shown in full only.
std::string code_line(uintptr_t address);

// ---- signals

// The address of the instruction a signal interrupted, from the context a SA_SIGINFO handler is
// given, plus one: what the runtime's source_line() expects, as it looks one byte before a return
// address; nullptr on an architecture not known here (the report then has no file:line, and says
// so, rather than a wrong one). Async-signal-safe.
const void* interrupted_pc(const void* signal_context);

// ---- CPUs

// The CPUs this process may use: the fewest of its affinity mask, its cgroup's CPU quota and
// SLURM_CPUS_PER_TASK (docs/platforms.md, "Using the CPUs you are given"); at least 1. The same
// rule as tools/halo/core/cpus.py.
unsigned usable_cpus();

}  // namespace halo::platform
