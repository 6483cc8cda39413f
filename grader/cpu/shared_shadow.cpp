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
#include <cxxabi.h>
#include <elf.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "execution.hpp"

namespace halo::cpu {
namespace {

void race(Worker& w, uintptr_t word_address, const void* pc, bool store, int other, const void* other_pc,
          bool other_wrote) {
  raise_diagnostic_with(w, DiagnosticKind::shared_race, pc, [&](Diagnostic& d) {
    d.has_other = true;
    d.other_thread = unflatten(size_t(other), w.launch->block);
    d.other_pc = other_pc;
    d.other_role = other_wrote ? "wrote it" : "read it";
    return std::string(store ? "write to " : "read of ") + shared_element_name(word_address - w.tls_lo) +
           " in shared memory while thread " + triple(d.other_thread) + " " + d.other_role +
           " in the same barrier interval: missing __syncthreads() between them?";
  });
}

}  // namespace

HALO_CALLBACK_CODE void check_shared_access(Worker& w, uintptr_t address, unsigned size, bool store, const void* pc) {
  const int t = int(w.thread_linear);
  const uintptr_t first = (address - w.tls_lo) / 4, last = (address + size - 1 - w.tls_lo) / 4;
  for (uintptr_t k = first; k <= last && k < w.shadow.size(); ++k) {
    Worker::SharedWord& s = w.shadow[k];
    if (s.block_serial != w.block_serial) s = Worker::SharedWord{w.block_serial};
    const uintptr_t word = w.tls_lo + k * 4;
    if (store) {
      if (s.writer >= 0 && s.writer != t && s.write_epoch == w.epoch)
        race(w, word, pc, true, s.writer, s.write_pc, true);
      else if (s.reader >= 0 && s.reader != t && s.read_epoch == w.epoch)
        race(w, word, pc, true, s.reader, s.read_pc, false);
      s.writer = t;
      s.write_epoch = w.epoch;
      s.write_pc = pc;
    } else {
      if (s.writer < 0) {
        raise_diagnostic_with(w, DiagnosticKind::uninitialised_shared_read, pc, [&](Diagnostic&) {
          return "read of " + shared_element_name(word - w.tls_lo) +
                 " in shared memory, which no thread of this block has written yet";
        });
      } else if (s.writer != t && s.write_epoch == w.epoch) {
        race(w, word, pc, false, s.writer, s.write_pc, true);
      }
      if (s.reader < 0 || s.read_epoch != w.epoch) {
        s.reader = t;
        s.read_epoch = w.epoch;
        s.read_pc = pc;
      }
    }
  }
}

namespace {

struct TlsSymbol {
  uint64_t offset, size;
  std::string name;
  bool kernel_local;  // a function-local static: how __shared__ variables of a kernel appear
};

// The executable's thread-local symbols (every __shared__ variable is one), from its ELF
// symbol table: their offsets are offsets into the TLS block.
std::vector<TlsSymbol> read_tls_symbols() {
  std::vector<TlsSymbol> out;
  std::ifstream f("/proc/self/exe", std::ios::binary);
  std::vector<char> elf((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (elf.size() < sizeof(Elf64_Ehdr)) return out;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(elf.data());
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) > elf.size()) return out;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(elf.data() + eh->e_shoff);
  for (int k = 0; k < eh->e_shnum; ++k) {
    if (sh[k].sh_type != SHT_SYMTAB || sh[k].sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr& strtab = sh[sh[k].sh_link];
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(elf.data() + sh[k].sh_offset);
    const size_t count = sh[k].sh_size / sizeof(Elf64_Sym);
    for (size_t j = 0; j < count; ++j) {
      if (ELF64_ST_TYPE(sym[j].st_info) != STT_TLS || sym[j].st_name >= strtab.sh_size) continue;
      std::string name = elf.data() + strtab.sh_offset + sym[j].st_name;
      const bool kernel_local = name.rfind("_ZZ", 0) == 0;  // mangled local entity
      int status = 0;
      if (char* plain = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status)) {
        name = plain;  // "convolution_1D_tiled_kernel(float const*, float*, int, int)::N_ds"
        std::free(plain);
      }
      if (auto cut = name.rfind("::"); cut != std::string::npos) name.erase(0, cut + 2);
      out.push_back({sym[j].st_value, sym[j].st_size, name, kernel_local});
    }
  }
  return out;
}


const std::vector<TlsSymbol>& tls_symbols() {
  static std::once_flag once;
  static std::vector<TlsSymbol> symbols;
  std::call_once(once, [] { symbols = read_tls_symbols(); });
  return symbols;
}

}  // namespace

void poison_shared_variables(const Worker& w) {
  const uint32_t poison = 0x7FC0DEADu;  // the outputs' poison: a quiet NaN no arithmetic makes
  for (const auto& s : tls_symbols()) {
    if (!s.kernel_local || s.offset + s.size > w.tls_hi - w.tls_lo) continue;
    char* base = reinterpret_cast<char*>(w.tls_lo + s.offset);
    for (uint64_t k = 0; k + 4 <= s.size; k += 4) std::memcpy(base + k, &poison, 4);
  }
}

std::string shared_element_name(uintptr_t offset) {
  const auto& symbols = tls_symbols();
  for (const auto& s : symbols)
    if (offset >= s.offset && offset < s.offset + s.size)
      // Counted in 4-byte elements (float and int tiles), row by row for 2D arrays.
      return "element " + std::to_string((offset - s.offset) / 4) + " of " + s.name;
  return "the word at offset " + std::to_string(offset) + " of the block's shared memory (outside every __shared__ "
         "variable: an index out of range?)";
}

}  // namespace halo::cpu
