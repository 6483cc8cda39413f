// Handlers for the two checks of clang's UndefinedBehaviorSanitizer that kernel files are compiled
// with (-fsanitize=array-bounds,integer-divide-by-zero, HALO_KERNEL_FLAGS): an index outside an
// array whose size the compiler knows, and an integer division by zero. The sanitizer's own
// runtime is not linked; these are the functions the compiler calls, with its documented data.
//
// A division by zero traps on x86-64 but gives 0 on aarch64 (sdiv): the handler names it the same
// way on both, before the division happens. An index past a local array would otherwise store into
// the thread's stack unseen; the handler notes it and the access it guards is named (access_check).
#include <cctype>
#include <cstdint>
#include <fstream>
#include <string>

#include "execution.hpp"
#include "halo/cpu/code_context.hpp"

namespace {

struct SourceLocation {
  const char* file;
  uint32_t line, column;
};
struct TypeDescriptor {
  uint16_t kind;  // 0: integer, 1: floating point
  uint16_t info;  // integers: bit 0 set when signed, log2 of the bit width above it
  char name[1];   // "'float[8]'", "'int'"
};
struct OutOfBoundsData {
  SourceLocation location;
  const TypeDescriptor* array_type;
  const TypeDescriptor* index_type;
};
struct DivisionData {
  SourceLocation location;
  const TypeDescriptor* type;
};

// The element count of an array type's name, "'float[8]'": the last bracketed number.
uint64_t array_count(const char* name) {
  const std::string s(name);
  const size_t close = s.rfind(']'), open = s.rfind('[', close);
  if (open == std::string::npos || close == std::string::npos) return 0;
  try {
    return std::stoull(s.substr(open + 1, close - open - 1));
  } catch (...) {
    return 0;
  }
}

int64_t index_value(const TypeDescriptor& t, uintptr_t raw) {
  const bool is_signed = t.kind == 0 && (t.info & 1);
  const unsigned bits = t.kind == 0 ? 1u << (t.info >> 1) : 64;
  if (!is_signed || bits >= 64) return int64_t(raw);
  const uint64_t sign = uint64_t(1) << (bits - 1), mask = (sign << 1) - 1;
  const uint64_t v = uint64_t(raw) & mask;
  return int64_t(v ^ sign) - int64_t(sign);
}

bool in_kernel_fiber() {
  const auto* w = halo::cpu::tls_worker;
  return w && w->in_fiber && !halo::cpu::on_host_stack(halo::cpu::current_stack_pointer());
}

}  // namespace

extern "C" void __ubsan_handle_out_of_bounds(OutOfBoundsData* data, uintptr_t index) {
  if (!in_kernel_fiber()) return;  // host code: its stores are held to its own stack anyway
  halo::cpu::FiberSlot& slot = *halo::cpu::tls_worker->current;
  auto& pending = slot.local_index;
  if (!pending.pending) {
    slot.parked_accesses = slot.accesses;
    slot.accesses = ~uint64_t(0) - 1;  // the next access passes the limit and finds this (check_access)
  }
  pending.pending = true;
  pending.index = index_value(*data->index_type, index);
  pending.count = array_count(data->array_type->name);
  pending.file = data->location.file;
  pending.line = data->location.line;
  pending.column = data->location.column;
}

extern "C" void __ubsan_handle_divrem_overflow(DivisionData*, uintptr_t, uintptr_t) {
  if (!in_kernel_fiber()) return;  // host code: the division traps, or not, as the machine does
  halo::cpu::Worker& w = *halo::cpu::tls_worker;
  halo::cpu::raise_diagnostic(w, halo::cpu::DiagnosticKind::crash, "the thread crashed: integer division by zero",
                              __builtin_return_address(0));
  halo::cpu::stop_current_thread();
}

namespace halo::cpu {
namespace {

// The array's name as the file spells it at the compiler's column (the subscript's base), or
// "a local array" when the file cannot be read here.
std::string array_name_at(const char* file, uint32_t line, uint32_t column) {
  std::ifstream in(file ? file : "");
  std::string text;
  for (uint32_t k = 0; k < line && std::getline(in, text); ++k) {
  }
  if (!in || column == 0 || column > text.size()) return {};
  size_t end = column - 1;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (std::isdigit(static_cast<unsigned char>(text[end])) || !word(text[end])) return {};
  while (end < text.size() && word(text[end])) ++end;
  return text.substr(column - 1, end - (column - 1));
}

}  // namespace

void check_local_index(Worker& w, uintptr_t address, bool store, const void* pc) {
  FiberSlot::LocalIndex pending = w.current->local_index;
  w.current->local_index = {};
  w.current->accesses = w.current->parked_accesses + 1;  // this access counted, as it would have been
  // A __shared__ or __constant__ array: its own checks name the access. Otherwise the access is
  // into the thread's stack, or the compiler dropped it (an index it knows is out of bounds is
  // undefined behaviour) and this is the next one: the index is named either way.
  const Launch& L = *w.launch;
  const bool shared = address - w.tls_lo < w.tls_hi - w.tls_lo;
  const bool constant = address - L.constant_lo < L.constant_hi + kConstantSlackBytes - L.constant_lo;
  if (shared || constant) return;
  raise_diagnostic_with(w, DiagnosticKind::out_of_bounds, pc, [&](Diagnostic&) {
    // The name when the source can be read here (the sandboxed worker may not see it): "acc[8],
    // outside acc[0..7]"; otherwise "element [8], outside [0..7]" with the line to find it by.
    const std::string name = array_name_at(pending.file, pending.line, pending.column);
    const std::string range = pending.count ? "[0.." + std::to_string(pending.count - 1) + "] (" +
                                                  std::to_string(pending.count) +
                                                  (pending.count == 1 ? " element)" : " elements)")
                                            : std::string();
    return std::string(store ? "write of " : "read of ") + (name.empty() ? "element " : name) + "[" +
           std::to_string(pending.index) + "], outside " + name + range + ", local array";
  });
  stop_current_thread();
}

}  // namespace halo::cpu
