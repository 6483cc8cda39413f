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

std::string todo_note(const char* what, const char* file, int line) {
  return project_relative(file) + ":" + std::to_string(line) + ": TODO: " + what;
}
}  // namespace

// Runs in every thread of a stub kernel (2^20 of them in a large launch): a thread whose TODO
// this worker has noted already only counts it, so a stub's launch costs what a written kernel's
// does (with the note made in every thread, the 2^20 test case of 7.2's stub took 1.5 s on
// x86-64 and 17 s under qemu; 0.2 s on x86-64 without it).
void todo_reached(const char* what, const char* file, int line) {
  Worker* w = tls_worker;
  const Worker::TodoSite site{what, file, line};
  if (!w || w->todo_noted.what != what || w->todo_noted.file != file || w->todo_noted.line != line) {
    std::string note = todo_note(what, file, line);
    std::lock_guard lock(todo_mutex);
    todo_set().insert(std::move(note));
    if (w) w->todo_noted = site;
  }
  if (w)
    raise_diagnostic_with(*w, DiagnosticKind::todo_reached, nullptr, [&](Diagnostic&) {
      return "the kernel is still the stub (" + todo_note(what, file, line) + ")";
    });
}

std::vector<std::string> todos_reached() {
  std::lock_guard lock(todo_mutex);
  return {todo_set().begin(), todo_set().end()};
}

}  // namespace halo::cpu
