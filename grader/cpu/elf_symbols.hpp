// The running executable's own symbol table, read once from /proc/self/exe: how the runtime
// names the variables a kernel declared (__shared__ arrays live in the TLS block, __constant__
// ones in the halo_constant section) when it reports an access to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace halo::cpu {

struct ElfSymbol {
  uint64_t value = 0, size = 0;  // for TLS symbols, value is the offset in the TLS block
  bool tls = false;
  std::string section;           // the name of the section that holds it
  std::string mangled;           // as in the table
  std::string name;              // demangled, without its scope: "N_ds" for "kernel(...)::N_ds"
};

// Every defined symbol with a size.
const std::vector<ElfSymbol>& executable_symbols();

// Where the executable was loaded: a symbol's address is load_bias() + its value.
uintptr_t load_bias();

}  // namespace halo::cpu
