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
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "execution.hpp"
#include "halo/cpu/code_context.hpp"
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

// A CUDA thread is calling: decided by the stack it runs on (code_context.hpp), not by a flag.
bool in_kernel() {
  return tls_worker && !on_host_stack(current_stack_pointer());
}

// Reads a string the kernel handed over, each character checked and counted as its load first.
void check_string(const char* text, const void* pc) {
  for (const char* c = text;; ++c) {
    check_kernel_read(c, 1, pc);
    if (*c == '\0') return;
  }
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

// Whether a kernel's printf format asks only for what the runtime can check: every conversion
// reads its argument by value, except %s, whose characters are read here first, each checked and
// counted as the kernel's load. %n (a store through an argument), positional arguments and
// conversions the C library adds (%m) are refused; the validator refuses them too where the format
// is a literal, and a format that is not one.
bool format_checked(const char* format, va_list args, const void* pc, std::string& why) {
  va_list scan;
  va_copy(scan, args);
  bool ok = true;
  for (const char* f = format;; ++f) {
    check_kernel_read(f, 1, pc);
    if (*f == '\0') break;
    if (*f != '%') continue;
    ++f;
    check_kernel_read(f, 1, pc);
    if (*f == '%') continue;
    while (*f && std::strchr("-+ #0", *f)) check_kernel_read(++f, 1, pc);
    auto number = [&](const char* what) {
      if (*f == '*') {
        (void)va_arg(scan, int);
        check_kernel_read(++f, 1, pc);
        return;
      }
      while (*f >= '0' && *f <= '9') check_kernel_read(++f, 1, pc);
      (void)what;
    };
    number("width");
    if (*f == '$') { why = "a positional argument ($)"; ok = false; break; }
    int precision = -1;
    if (*f == '.') {
      check_kernel_read(++f, 1, pc);
      if (*f == '*') {
        precision = va_arg(scan, int);
        check_kernel_read(++f, 1, pc);
      } else {
        precision = 0;
        while (*f >= '0' && *f <= '9') {
          precision = precision * 10 + (*f - '0');
          if (precision > 4096) precision = 4096;
          check_kernel_read(++f, 1, pc);
        }
      }
    }
    int longs = 0;
    bool long_double = false;
    while (*f && std::strchr("hljztL", *f)) {
      longs += *f == 'l' || *f == 'j' || *f == 'z' || *f == 't';
      long_double |= *f == 'L';
      check_kernel_read(++f, 1, pc);
    }
    const char c = *f;
    if (c && std::strchr("diouxXc", c)) {
      if (longs) (void)va_arg(scan, long long);
      else (void)va_arg(scan, int);
    } else if (c && std::strchr("fFeEgGaA", c)) {
      if (long_double) (void)va_arg(scan, long double);
      else (void)va_arg(scan, double);
    } else if (c == 'p') {
      (void)va_arg(scan, void*);
    } else if (c == 's' && !longs) {
      const char* text = va_arg(scan, const char*);
      for (int k = 0; text && (precision < 0 || k < precision); ++k) {
        check_kernel_read(text + k, 1, pc);
        if (text[k] == '\0') break;
      }
    } else {
      why = c == 'n' ? std::string("%n (it stores through its argument)")
                     : "the conversion %" + std::string(c ? 1 : 0, c) + " (not one a kernel's printf prints)";
      ok = false;
      break;
    }
  }
  va_end(scan);
  return ok;
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
  std::string why;
  const bool checked = halo::cpu::format_checked(format, args, __builtin_return_address(0), why);
  if (in_kernel()) {
    if (!checked) {
      va_end(args);
      halo::cpu::raise_diagnostic(*halo::cpu::tls_worker, halo::cpu::DiagnosticKind::outside_memory,
                                  "printf with " + why + " is not allowed in a kernel", __builtin_return_address(0));
      halo::cpu::stop_current_thread();
    }
    va_list again;
    va_copy(again, args);
    n = std::vsnprintf(nullptr, 0, format, args);
    std::string text(n > 0 ? size_t(n) : 0, '\0');
    if (n > 0) std::vsnprintf(text.data(), text.size() + 1, format, again);
    va_end(again);
    halo::cpu::keep(std::move(text));
  } else {
    if (!checked) {  // the kernel file's host code: nothing to stop but the worker
      std::fprintf(stderr, "halo: printf with %s is not allowed in the kernel file: the worker stops\n", why.c_str());
      std::_Exit(70);
    }
    n = std::vfprintf(stdout, format, args);
  }
  va_end(args);
  return n;
}

extern "C" int puts(const char* text) {
  if (!in_kernel()) return std::fputs(text, stdout) < 0 ? EOF : std::fputc('\n', stdout);
  halo::cpu::check_string(text, __builtin_return_address(0));
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
  halo::cpu::check_string(assertion, __builtin_return_address(0));
  halo::cpu::check_string(file, __builtin_return_address(0));
  halo::cpu::Worker& w = *halo::cpu::tls_worker;
  halo::cpu::raise_diagnostic_with(w, halo::cpu::DiagnosticKind::assert_failed, __builtin_return_address(0),
                                   [&](halo::cpu::Diagnostic& d) {
                                     d.line = halo::cpu::project_relative(file) + ":" + std::to_string(line);
                                     return "assert(" + std::string(assertion) + ") is false";
                                   });
  halo::cpu::stop_current_thread();
}
