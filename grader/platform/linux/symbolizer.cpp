// Names the source line of an address on Linux: the loaded object holding it (dl_iterate_phdr)
// and its -g debug info, read by addr2line (binutils), one subprocess per question.
#include <link.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>

#include "../platform.hpp"

namespace halo::platform {
namespace {

struct Module {
  std::string file;
  uintptr_t bias = 0;  // load address minus link address: 0 for a non-PIE executable
};

// The running executable's real path: "/proc/self/exe" would name addr2line itself.
std::string executable_path() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, size_t(n)) : std::string("/proc/self/exe");
}

bool find_module(uintptr_t address, Module& out) {
  struct Query { uintptr_t address; Module* out; bool found; } q{address, &out, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* q = static_cast<Query*>(data);
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          const auto& ph = info->dlpi_phdr[k];
          uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && q->address >= lo && q->address < lo + ph.p_memsz) {
            q->out->file = (info->dlpi_name && info->dlpi_name[0]) ? info->dlpi_name : executable_path();
            q->out->bias = info->dlpi_addr;
            q->found = true;
            return 1;
          }
        }
        return 0;
      },
      &q);
  return q.found;
}

}  // namespace

std::string code_line(uintptr_t address) {
  Module m;
  if (!find_module(address, m)) return {};
  char command[1024];
  std::snprintf(command, sizeof command, "addr2line -e '%s' 0x%lx 2>/dev/null", m.file.c_str(),
                static_cast<unsigned long>(address - m.bias));
  FILE* pipe = popen(command, "r");
  if (!pipe) return {};
  std::array<char, 1024> line{};
  std::string out = std::fgets(line.data(), line.size(), pipe) ? line.data() : "";
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (auto cut = out.find(" (discriminator"); cut != std::string::npos) out.erase(cut);
  if (out.empty() || out.rfind("??", 0) == 0) return {};
  return out;
}

}  // namespace halo::platform
