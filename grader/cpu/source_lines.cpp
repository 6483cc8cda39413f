// Turns the address of an instrumented access into `file:line`, from the kernel's -g debug
// info, by asking addr2line (binutils). Only diagnostics shown in full are symbolised, so one
// subprocess per report is cheap.
#include <link.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>

#include "source_lines.hpp"

namespace halo::cpu {
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

bool find_module(uintptr_t pc, Module& out) {
  struct Query { uintptr_t pc; Module* out; bool found; } q{pc, &out, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* q = static_cast<Query*>(data);
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          const auto& ph = info->dlpi_phdr[k];
          uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && q->pc >= lo && q->pc < lo + ph.p_memsz) {
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

std::string ask_addr2line(const Module& m, uintptr_t address) {
  char command[1024];
  std::snprintf(command, sizeof command, "addr2line -e '%s' 0x%lx 2>/dev/null", m.file.c_str(),
                static_cast<unsigned long>(address));
  FILE* pipe = popen(command, "r");
  if (!pipe) return {};
  std::array<char, 1024> line{};
  std::string out = std::fgets(line.data(), line.size(), pipe) ? line.data() : "";
  pclose(pipe);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  if (auto cut = out.find(" (discriminator"); cut != std::string::npos) out.erase(cut);
  if (out.empty() || out.rfind("??", 0) == 0) return {};
  return project_relative(out);
}

}  // namespace

std::string project_relative(std::string path) {
#ifdef HALO_SOURCE_DIR
  const std::string root = HALO_SOURCE_DIR "/";
  if (path.rfind(root, 0) == 0) path.erase(0, root.size());
#endif
  return path;
}

std::string source_line(const void* pc) {
  if (!pc) return {};
  static std::mutex mutex;
  static std::map<const void*, std::string> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(pc); it != cache.end()) return it->second;
  // pc is a return address; the call that reported the access is the instruction before it.
  uintptr_t at = reinterpret_cast<uintptr_t>(pc) - 1;
  Module m;
  std::string where = find_module(at, m) ? ask_addr2line(m, at - m.bias) : std::string();
  // Compiler-made code between statements has no line ("file:?"); the instructions just before
  // the call belong to the access's own statement.
  for (uintptr_t step = 1; step <= 24 && !where.empty() && where.back() == '?'; ++step) {
    where = ask_addr2line(m, at - step - m.bias);
    if (!where.empty() && where.back() == '?') where = ask_addr2line(m, at + step - m.bias);
  }
  cache.emplace(pc, where);
  return where;
}

}  // namespace halo::cpu
