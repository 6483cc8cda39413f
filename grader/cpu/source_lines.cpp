// Turns the address of an instrumented access into `file:line`, from the kernel's -g debug info
// (platform::code_line). Only diagnostics shown in full are symbolised, so one question to the
// symbolizer per report is cheap.
#include <map>
#include <mutex>
#include <string>

#include "../platform/platform.hpp"
#include "project_root.hpp"
#include "source_lines.hpp"

namespace halo::cpu {

std::string project_relative(std::string path) {
  const std::string root = project_root;
  if (path.rfind(root, 0) == 0) path.erase(0, root.size());
  return path;
}

namespace {
std::string ask_symbolizer(uintptr_t address) { return project_relative(platform::code_line(address)); }
}  // namespace

std::string source_line(const void* pc) {
  if (!pc) return {};
  static std::mutex mutex;
  static std::map<const void*, std::string> cache;
  std::lock_guard lock(mutex);
  if (auto it = cache.find(pc); it != cache.end()) return it->second;
  // pc is a return address; the call that reported the access is the instruction before it.
  uintptr_t at = reinterpret_cast<uintptr_t>(pc) - 1;
  std::string where = ask_symbolizer(at);
  // Compiler-made code between statements has no line ("file:?"); the instructions just before
  // the call belong to the access's own statement.
  for (uintptr_t step = 1; step <= 24 && !where.empty() && where.back() == '?'; ++step) {
    where = ask_symbolizer(at - step);
    if (!where.empty() && where.back() == '?') where = ask_symbolizer(at + step);
  }
  cache.emplace(pc, where);
  return where;
}

}  // namespace halo::cpu
