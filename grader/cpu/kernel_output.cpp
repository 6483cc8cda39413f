// What a kernel prints and asserts, on the CPU backend.
//
// The executable defines printf, puts, putchar and __assert_fail itself, so every call from
// the kernel's object file binds here rather than to the C library (clang turns
// printf("text\n") into puts and printf("%c", c) into putchar; <cassert>'s assert calls
// __assert_fail). Called by a CUDA thread, a print is kept in the launch record with the
// thread that made it, as a GPU's printf buffer would keep it, and shown with a failure; a
// false assert stops the thread and becomes a diagnostic with its condition and line, and the
// launch returns cudaErrorAssert as on a GPU. Called from host code, each does what the C
// library does.
// glibc defines putchar inline when optimising; this file defines it for the executable.
#define __NO_INLINE__ 1
#include <algorithm>
#include <cassert>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "execution.hpp"
#include "source_lines.hpp"

namespace halo::cpu {
namespace {

struct Printed {
  uint64_t order, sequence;
  std::string text;
};

// One launch at a time; its blocks run on several OS threads.
std::mutex printed_mutex;
std::vector<Printed> printed;
uint64_t printed_total = 0;
// More than the record keeps, so that the first lines in thread order survive even when
// later blocks, run first on another core, printed before them.
constexpr size_t kCaptured = 4096;

bool in_kernel() {
  const Worker* w = tls_worker;
  return w && w->in_fiber;
}

void keep(std::string text) {
  const Worker& w = *tls_worker;
  if (!text.empty() && text.back() == '\n') text.pop_back();
  const uint64_t order = w.block_linear * w.launch->threads_per_block() + w.thread_linear;
  std::lock_guard lock(printed_mutex);
  if (printed.size() < kCaptured)
    printed.push_back({order, printed_total, "block " + triple(w.block_idx) + " thread " + triple(w.thread_idx) + ": " +
                                                 text});
  ++printed_total;
}

}  // namespace

void begin_kernel_output() {
  std::lock_guard lock(printed_mutex);
  printed.clear();
  printed_total = 0;
}

void end_kernel_output(LaunchRecord& record) {
  std::lock_guard lock(printed_mutex);
  std::sort(printed.begin(), printed.end(),
            [](const Printed& a, const Printed& b) { return std::tie(a.order, a.sequence) < std::tie(b.order, b.sequence); });
  record.printed.clear();
  for (size_t k = 0; k < printed.size() && k < LaunchRecord::kPrintedKept; ++k) record.printed.push_back(printed[k].text);
  record.printed_total = printed_total;
  printed.clear();
}

}  // namespace halo::cpu

using halo::cpu::in_kernel;

extern "C" int printf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  int n;
  if (in_kernel()) {
    va_list again;
    va_copy(again, args);
    n = std::vsnprintf(nullptr, 0, format, args);
    std::string text(n > 0 ? size_t(n) : 0, '\0');
    if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    halo::cpu::keep(std::move(text));
  } else {
    n = std::vfprintf(stdout, format, args);
  }
  va_end(args);
  return n;
}

extern "C" int puts(const char* text) {
  if (!in_kernel()) return std::fputs(text, stdout) < 0 ? EOF : std::fputc('\n', stdout);
  halo::cpu::keep(text);
  return 1;
}

extern "C" int putchar(int c) {
  if (!in_kernel()) return std::fputc(c, stdout);
  halo::cpu::keep(std::string(1, char(c)));
  return c;
}

extern "C" void __assert_fail(const char* assertion, const char* file, unsigned int line, const char* function) noexcept {
  if (!in_kernel()) {
    std::fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, function, assertion);
    std::abort();
  }
  halo::cpu::Worker& w = *halo::cpu::tls_worker;
  halo::cpu::raise_diagnostic_with(w, halo::cpu::DiagnosticKind::assert_failed, __builtin_return_address(0),
                                   [&](halo::cpu::Diagnostic& d) {
                                     d.line = halo::cpu::project_relative(file) + ":" + std::to_string(line);
                                     return "assert(" + std::string(assertion) + ") is false";
                                   });
  halo::cpu::stop_current_thread();
}
