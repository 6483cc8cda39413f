// The running executable's image on Linux: its ELF symbol table (read from /proc/self/exe), its
// load address and static TLS block (from the dynamic loader, dl_iterate_phdr), and the bounds of
// the runtime's sections (__start_/__stop_ symbols, which the linker defines for every section
// whose name is a C identifier).
#include <cxxabi.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "../platform.hpp"

extern "C" char __start_halo_constant[] __attribute__((weak));
extern "C" char __stop_halo_constant[] __attribute__((weak));
extern "C" char __start_halo_callbacks[] __attribute__((weak));
extern "C" char __stop_halo_callbacks[] __attribute__((weak));

namespace halo::platform {
namespace {

std::string short_name(const std::string& mangled) {
  std::string name = mangled;
  int status = 0;
  if (char* plain = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status)) {
    name = plain;  // "convolution_1D_tiled_kernel(float const*, float*, int, int)::N_ds"
    std::free(plain);
  }
  if (auto cut = name.rfind("::"); cut != std::string::npos) name.erase(0, cut + 2);
  return name;
}

std::vector<ExecutableSymbol> read_symbols() {
  std::vector<ExecutableSymbol> out;
  // One read of the whole file (a few MB): through istreambuf_iterator, a byte at a time, it was
  // a visible part of every worker's start.
  std::ifstream f("/proc/self/exe", std::ios::binary | std::ios::ate);
  std::vector<char> elf(size_t(std::max<std::streamoff>(0, f.tellg())));
  f.seekg(0);
  f.read(elf.data(), std::streamsize(elf.size()));
  elf.resize(size_t(std::max<std::streamsize>(0, f.gcount())));
  if (elf.size() < sizeof(Elf64_Ehdr)) return out;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(elf.data());
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff + eh->e_shnum * sizeof(Elf64_Shdr) > elf.size() ||
      eh->e_shstrndx >= eh->e_shnum)
    return out;
  const auto* sh = reinterpret_cast<const Elf64_Shdr*>(elf.data() + eh->e_shoff);
  const Elf64_Shdr& names = sh[eh->e_shstrndx];
  auto section_name = [&](uint16_t index) -> std::string {
    if (index == SHN_UNDEF || index >= eh->e_shnum || sh[index].sh_name >= names.sh_size) return {};
    return elf.data() + names.sh_offset + sh[index].sh_name;
  };
  for (int k = 0; k < eh->e_shnum; ++k) {
    if (sh[k].sh_type != SHT_SYMTAB || sh[k].sh_link >= eh->e_shnum) continue;  // the full table, not .dynsym
    const Elf64_Shdr& strtab = sh[sh[k].sh_link];
    const auto* sym = reinterpret_cast<const Elf64_Sym*>(elf.data() + sh[k].sh_offset);
    const size_t count = sh[k].sh_size / sizeof(Elf64_Sym);
    for (size_t j = 0; j < count; ++j) {
      if (sym[j].st_name >= strtab.sh_size || sym[j].st_shndx == SHN_UNDEF || sym[j].st_size == 0) continue;
      ExecutableSymbol s;
      s.value = sym[j].st_value;
      s.size = sym[j].st_size;
      s.tls = ELF64_ST_TYPE(sym[j].st_info) == STT_TLS;
      s.section = section_name(sym[j].st_shndx);
      s.mangled = elf.data() + strtab.sh_offset + sym[j].st_name;
      s.name = short_name(s.mangled);
      out.push_back(std::move(s));
    }
  }
  return out;
}

AddressRange between(const char* lo, const char* hi) {
  return {reinterpret_cast<uintptr_t>(lo), reinterpret_cast<uintptr_t>(hi)};
}

}  // namespace

const std::vector<ExecutableSymbol>& executable_symbols() {
  static std::once_flag once;
  static std::vector<ExecutableSymbol> symbols;
  std::call_once(once, [] { symbols = read_symbols(); });
  return symbols;
}

uintptr_t load_bias() {
  uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        *static_cast<uintptr_t*>(data) = info->dlpi_addr;  // the first object is the executable
        return 1;
      },
      &bias);
  return bias;
}

AddressRange thread_tls_block() {
  AddressRange out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        if (info->dlpi_name && info->dlpi_name[0] != '\0') return 0;  // the executable has no name here
        for (int k = 0; k < info->dlpi_phnum; ++k) {
          if (info->dlpi_phdr[k].p_type == PT_TLS && info->dlpi_tls_data) {
            auto* o = static_cast<AddressRange*>(data);
            o->lo = reinterpret_cast<uintptr_t>(info->dlpi_tls_data);
            o->hi = o->lo + info->dlpi_phdr[k].p_memsz;
          }
        }
        return 1;
      },
      &out);
  return out;
}

AddressRange constant_section() { return between(__start_halo_constant, __stop_halo_constant); }
AddressRange callback_code_section() { return between(__start_halo_callbacks, __stop_halo_callbacks); }

}  // namespace halo::platform
