// Shared-memory checks. Every 4-byte word of the TLS block (where __shared__ variables live)
// has a shadow record of the last write and the first read in the current barrier interval
// ("epoch") of the current block. From it:
//
//   race            two different threads access one word in one epoch and at least one of
//                   them writes: a __syncthreads() between them would order the accesses;
//   uninitialised   a thread reads a word no thread of this block has written.
//
// Records of an earlier block are recognised by their block serial and count as unwritten, so
// nothing needs clearing between blocks. Threads of a block run one after the other between
// barriers, so every conflicting pair is seen, in one order or the other.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#include "../platform/platform.hpp"
#include "execution.hpp"

// The block's dynamic shared memory: every `extern __shared__` array of a kernel file names it
// (HALO_EXTERN_SHARED in cuda_dialect.hpp); the launch says how much of it the kernel may use.
extern "C" {
alignas(128) thread_local unsigned char halo_dynamic_shared_memory[halo::cpu::kDynamicSharedMaxBytes];
}

namespace halo::cpu {
namespace {

// The diagnostics below are raised out of line (cold), so that check_shared_access, asked on every
// shared access, keeps its values in registers.
HALO_CALLBACK_CODE __attribute__((cold)) void race(Worker& w, uintptr_t word_address, const void* pc, bool store,
                                                   int other, const void* other_pc, bool other_wrote) {
  raise_diagnostic_with(w, DiagnosticKind::shared_race, pc, [&](Diagnostic& d) {
    d.has_other = true;
    d.other_thread = unflatten(size_t(other), w.launch->block);
    d.other_pc = other_pc;
    d.other_role = other_wrote ? "wrote it" : "read it";
    // Two stores to one word in one phase: no barrier orders them into anything useful, the
    // tile's indices give one cell two writers.
    const std::string why = store && other_wrote
                                ? ": two threads store into one cell in one phase (each cell of a tile needs exactly "
                                  "one writer: check the index of each store)"
                                : ": missing __syncthreads() between them?";
    return std::string(store ? "write to " : "read of ") + shared_element_name(word_address - w.tls_lo) +
           " in shared memory while thread " + triple(d.other_thread) + " " + d.other_role +
           " in the same barrier interval" + why;
  });
}

HALO_CALLBACK_CODE __attribute__((cold)) void copy_in_flight(Worker& w, uintptr_t word, bool store, const void* pc) {
  raise_diagnostic_with(w, DiagnosticKind::tile_copy, pc, [&](Diagnostic&) {
    return store ? "write to " + shared_element_name(word - w.tls_lo) +
                       " in shared memory while a tensor copy into it is in flight: the copy would overwrite it"
                 : "read of " + shared_element_name(word - w.tls_lo) +
                       " in shared memory while the tensor copy into it is in flight: wait_tile() for its barrier first";
  });
}

HALO_CALLBACK_CODE __attribute__((cold)) void uninitialised_read(Worker& w, uintptr_t word, const void* pc) {
  raise_diagnostic_with(w, DiagnosticKind::uninitialised_shared_read, pc, [&](Diagnostic&) {
    return "read of " + shared_element_name(word - w.tls_lo) +
           " in shared memory, which no thread of this block has written yet";
  });
}

}  // namespace

HALO_CALLBACK_CODE void check_shared_access(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc) {
  const int t = int(w.thread_linear);
  // Read once: the diagnostics raised below change none of them, and the compiler cannot know.
  const uintptr_t tls_lo = w.tls_lo;
  const uint64_t serial = w.block_serial;
  const uint32_t epoch = w.epoch;
  Worker::SharedWord* const shadow = w.shadow.data();
  const uintptr_t words = w.shadow.size();
  const uintptr_t first = (address - tls_lo) / 4, last = (address + size - 1 - tls_lo) / 4;
  for (uintptr_t k = first; k <= last && k < words; ++k) {
    Worker::SharedWord& s = shadow[k];
    if (s.block_serial != serial) s = Worker::SharedWord{serial};
    const uintptr_t word = tls_lo + k * 4;
    if (store) {
      if (s.writer == Worker::kCopyInFlightWriter) [[unlikely]]
        copy_in_flight(w, word, true, pc);
      if (s.writer >= 0 && s.writer != t && s.write_epoch == epoch) [[unlikely]]
        race(w, word, pc, true, s.writer, s.write_pc, true);
      else if (s.reader >= 0 && s.reader != t && s.read_epoch == epoch) [[unlikely]]
        race(w, word, pc, true, s.reader, s.read_pc, false);
      s.writer = t;
      s.write_epoch = epoch;
      s.write_pc = pc;
    } else {
      if (s.writer >= 0) [[likely]] {
        if (s.writer != t && s.write_epoch == epoch) [[unlikely]]
          race(w, word, pc, false, s.writer, s.write_pc, true);
      } else if (s.writer == Worker::kCopyInFlightWriter) {
        copy_in_flight(w, word, false, pc);
      } else if (s.writer == Worker::kCopyEngineWriter) {
        // landed: the copy engine is no thread, and its wait ordered it before this read
      } else {
        uninitialised_read(w, word, pc);
      }
      if (s.reader < 0 || s.read_epoch != epoch) {
        s.reader = t;
        s.read_epoch = epoch;
        s.read_pc = pc;
      }
    }
  }
}

namespace {

// What the executable's TLS block holds, from its ELF symbol table (offsets into the block).
struct TlsSymbol {
  uint64_t offset, size;
  std::string name, mangled;
  enum Kind : uint8_t { array, guard, dynamic, other } kind;
};

// Whether `s` is the variable the dialect declared right after `guard`: in the same function
// (a function-local static's mangled name starts with its function's), or both at namespace
// scope with a plain name. The guard of a variable the optimiser removed is followed by
// something else, often the runtime's own.
bool declared_after(const TlsSymbol& guard, const TlsSymbol& s) {
  if (guard.mangled.rfind("_ZZ", 0) != 0) return s.mangled.rfind("_Z", 0) != 0 && s.kind == TlsSymbol::other;
  size_t scope = guard.mangled.rfind("halo_shared_guard_");
  while (scope > 0 && std::isdigit(static_cast<unsigned char>(guard.mangled[scope - 1]))) --scope;
  return s.mangled.compare(0, scope, guard.mangled, 0, scope) == 0;
}

struct SharedLayout {
  std::vector<TlsSymbol> symbols;  // sorted by offset
  std::string dynamic_name = "the dynamic shared memory";  // extern __shared__'s name(s)
};

// The dialect puts a guard before every __shared__ variable (cuda_dialect.hpp): what follows a
// guard is a kernel's array, at block or namespace scope; the dynamic buffer has its own name;
// anything else (the runtime's, the C++ library's) is no kernel's.
TlsSymbol::Kind kind_of(const std::string& mangled, const std::string& plain) {
  if (mangled == "halo_dynamic_shared_memory") return TlsSymbol::dynamic;
  return plain.rfind("halo_shared_guard_", 0) == 0 ? TlsSymbol::guard : TlsSymbol::other;
}

SharedLayout read_layout() {
  SharedLayout out;
  std::vector<std::string> extern_names;
  for (const platform::ExecutableSymbol& e : platform::executable_symbols()) {
    if (e.name.rfind("halo_extern_shared_name_", 0) == 0) {
      const std::string declared = e.name.substr(24);
      if (std::find(extern_names.begin(), extern_names.end(), declared) == extern_names.end())
        extern_names.push_back(declared);
    }
    if (e.tls) out.symbols.push_back({e.value, e.size, e.name, e.mangled, kind_of(e.mangled, e.name)});
  }
  std::sort(out.symbols.begin(), out.symbols.end(),
            [](const TlsSymbol& a, const TlsSymbol& b) { return a.offset < b.offset; });
  for (size_t k = 1; k < out.symbols.size(); ++k) {
    const TlsSymbol& before = out.symbols[k - 1];
    if (before.kind == TlsSymbol::guard && out.symbols[k].kind == TlsSymbol::other &&
        before.offset + before.size <= out.symbols[k].offset && declared_after(before, out.symbols[k]))
      out.symbols[k].kind = TlsSymbol::array;
  }
  if (!extern_names.empty()) {
    out.dynamic_name = extern_names[0];
    for (size_t k = 1; k < extern_names.size(); ++k) out.dynamic_name += "/" + extern_names[k];
  }
  return out;
}

const SharedLayout& layout() {
  static const SharedLayout l = read_layout();  // a function-local static: after the first call, one
  return l;                                     // flag test per access rather than a pthread_once call
}

const TlsSymbol* symbol_at(uint64_t offset) {
  for (const auto& s : layout().symbols)
    if (offset >= s.offset && offset < s.offset + s.size) return &s;
  return nullptr;
}

// The 4-byte element an offset falls on, counted from the array's start (negative before it).
int64_t element_of(uint64_t offset, const TlsSymbol& s) {
  const int64_t d = int64_t(offset) - int64_t(s.offset);
  return d >= 0 ? d / 4 : -((-d + 3) / 4);
}

// The kernel array an out-of-place offset most likely belongs to: the one whose end or start
// is nearest (an index one past the end, or -1).
const TlsSymbol* nearest_array(uint64_t offset) {
  const TlsSymbol* best = nullptr;
  uint64_t best_distance = ~uint64_t(0);
  for (const auto& s : layout().symbols) {
    if (s.kind != TlsSymbol::array) continue;
    const uint64_t distance = offset < s.offset ? s.offset - offset : offset - (s.offset + s.size) + 1;
    if (distance < best_distance) best = &s, best_distance = distance;
  }
  return best;
}

std::string outside_message(const std::string& name, int64_t index, uint64_t elements, bool store, bool before,
                            const std::string& end_note) {
  return std::string(store ? "write to " : "read of ") + name + "[" + std::to_string(index) + "] in shared memory, outside " +
         name + "[0.." + std::to_string(elements ? elements - 1 : 0) + "] (" + std::to_string(elements) +
         (elements == 1 ? " element" : " elements") + ")" + (before ? ": before the first element" : end_note);
}

}  // namespace

uintptr_t dynamic_shared_offset(uintptr_t tls_lo) {
  return reinterpret_cast<uintptr_t>(&halo_dynamic_shared_memory[0]) - tls_lo;
}

HALO_CALLBACK_CODE bool check_shared_bounds(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc) {
  const uint64_t offset = address - w.tls_lo;
  const uint64_t dynamic = dynamic_shared_offset(w.tls_lo);
  if (offset >= dynamic && offset < dynamic + kDynamicSharedMaxBytes) {
    const uint64_t bytes = w.launch->dynamic_shared_bytes;
    if (offset - dynamic + size <= bytes) {
      w.shared_hit_lo = dynamic, w.shared_hit_hi = dynamic + bytes;  // the same test, asked first next time
      return true;
    }
    raise_diagnostic_with(w, DiagnosticKind::out_of_bounds, pc, [&](Diagnostic&) {
      const std::string& name = layout().dynamic_name;
      return outside_message(name, int64_t(offset - dynamic) / 4, bytes / 4, store, false,
                             bytes ? ": past the end of the " + std::to_string(bytes) +
                                         " bytes of dynamic shared memory this launch gave (extern __shared__)"
                                   : ": this launch gave no dynamic shared memory (extern __shared__)");
    });
    return false;
  }
  if (offset >= w.shared_hit_lo && offset + size <= w.shared_hit_hi) return true;
  const TlsSymbol* s = symbol_at(offset);
  if (s && s->kind == TlsSymbol::array && offset + size <= s->offset + s->size) {
    w.shared_hit_lo = s->offset, w.shared_hit_hi = s->offset + s->size;
    return true;
  }
  const TlsSymbol* a = s && s->kind == TlsSymbol::array ? s : nearest_array(offset);
  if (!a) return true;
  raise_diagnostic_with(w, DiagnosticKind::out_of_bounds, pc, [&](Diagnostic&) {
    return outside_message(a->name, element_of(offset, *a), a->size / 4, store, offset < a->offset,
                           ": past the end of " + a->name);
  });
  return false;
}

void poison_shared_variables(const Worker& w) {
  const uint32_t poison = 0x7FC0DEADu;  // the outputs' poison: a quiet NaN no arithmetic makes
  auto fill = [&](uint64_t offset, uint64_t size) {
    if (offset + size > w.tls_hi - w.tls_lo) return;
    char* base = reinterpret_cast<char*>(w.tls_lo + offset);
    for (uint64_t k = 0; k + 4 <= size; k += 4) std::memcpy(base + k, &poison, 4);
  };
  for (const auto& s : layout().symbols)
    if (s.kind == TlsSymbol::array) fill(s.offset, s.size);
  fill(dynamic_shared_offset(w.tls_lo), std::min<uint64_t>(w.launch->dynamic_shared_bytes, kDynamicSharedMaxBytes));
}

std::string shared_element_name(uintptr_t offset) {
  if (const TlsSymbol* s = symbol_at(offset)) {
    if (s->kind == TlsSymbol::array)  // counted in 4-byte elements (float and int tiles), row by row for 2D arrays
      return "element " + std::to_string((offset - s->offset) / 4) + " of " + s->name;
    if (s->kind == TlsSymbol::dynamic)
      return "element " + std::to_string((offset - s->offset) / 4) + " of " + layout().dynamic_name +
             " (extern __shared__)";
  }
  return "the word at offset " + std::to_string(offset) + " of the block's shared memory (outside every __shared__ "
         "variable: an index out of range?)";
}

}  // namespace halo::cpu
