// HALO_TODO(): how an unfinished stub says so on the CPU backend.
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "execution.hpp"
#include "source_lines.hpp"

namespace halo::cpu {
namespace {
std::mutex todo_mutex;
std::set<std::string>& todo_set() {
  static std::set<std::string> s;
  return s;
}
}  // namespace

void todo_reached(const char* what, const char* file, int line) {
  std::string note = project_relative(file) + ":" + std::to_string(line) + ": TODO: " + what;
  {
    std::lock_guard lock(todo_mutex);
    todo_set().insert(note);
  }
  if (Worker* w = tls_worker)
    raise_diagnostic(*w, DiagnosticKind::todo_reached, "the kernel is still the stub (" + note + ")", nullptr);
}

std::vector<std::string> todos_reached() {
  std::lock_guard lock(todo_mutex);
  return {todo_set().begin(), todo_set().end()};
}

}  // namespace halo::cpu
