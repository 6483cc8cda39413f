// Reading and printing what a launch measured.
#include "halo/cpu/launch_record.hpp"

#include <string>

#include "execution.hpp"
#include "memory_registry.hpp"
#include "source_lines.hpp"

namespace halo::cpu {

const char* space_name(Space s) {
  switch (s) {
    case Space::global: return "global";
    case Space::constant: return "constant";
    case Space::shared: return "shared";
    case Space::local: return "local";
    case Space::host: return "host";
  }
  return "?";
}

const char* diagnostic_kind_name(DiagnosticKind k) {
  switch (k) {
    case DiagnosticKind::out_of_bounds: return "out-of-bounds access";
    case DiagnosticKind::pitch_padding: return "access to pitch padding";
    case DiagnosticKind::write_to_input: return "write to an input";
    case DiagnosticKind::barrier_divergence: return "barrier divergence";
    case DiagnosticKind::todo_reached: return "unfinished stub";
    case DiagnosticKind::shared_race: return "shared-memory race";
    case DiagnosticKind::uninitialised_shared_read: return "read of uninitialised shared memory";
    case DiagnosticKind::launch_timeout: return "launch did not finish";
    case DiagnosticKind::crash: return "crash";
    case DiagnosticKind::outside_memory: return "access outside the kernel's memory";
    case DiagnosticKind::assert_failed: return "device-side assertion failed";
    case DiagnosticKind::work_limit: return "too many memory accesses in one thread";
    case DiagnosticKind::tile_copy: return "tensor copy misuse";
    case DiagnosticKind::block_race: return "race between blocks";
    case DiagnosticKind::misaligned_address: return "misaligned address";
    case DiagnosticKind::count_: break;
  }
  return "?";
}

std::string triple(uint3 v) {
  return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

void Diagnostic::resolve_lines() {
  if (line.empty() && pc) line = source_line(pc);
  if (other_line.empty() && other_pc) other_line = source_line(other_pc);
}

std::string Diagnostic::where() const {
  std::string w = "block " + triple(block) + " thread " + triple(thread);
  const std::string at = line.empty() ? source_line(pc) : line;
  if (!at.empty()) w += ", " + at;
  return w;
}

std::string Diagnostic::full() const {
  std::string out = what + "\n    at " + where();
  if (has_other) {
    out += "\n    and thread " + triple(other_thread) + " " + other_role;
    const std::string at = other_line.empty() ? source_line(other_pc) : other_line;
    if (!at.empty()) out += ", " + at;
  }
  return out;
}

const ArrayTraffic* LaunchRecord::array(std::string_view name) const {
  for (const auto& a : arrays)
    if (a.name == name) return &a;
  return nullptr;
}

uint64_t LaunchRecord::diagnostic_total() const {
  uint64_t n = 0;
  for (uint64_t c : counts) n += c;
  return n;
}

std::string LaunchRecord::diagnostics_report() const {
  std::string out;
  for (int k = 0; k < kDiagnosticKinds; ++k) {
    if (!counts[k]) continue;
    out += std::string(diagnostic_kind_name(DiagnosticKind(k))) + ": " + first[k].full() + "\n";
    if (counts[k] > 1)
      out += "    (and " + std::to_string(counts[k] - 1) + " more like it in this launch)\n";
  }
  return out;
}

void name_array(const void* device_ptr, std::string name, size_t element_size, bool read_only) {
  MemoryRegistry::instance().rename(device_ptr, std::move(name), element_size, read_only);
}

void describe_image(const void* device_ptr, size_t width_elements, size_t height) {
  MemoryRegistry::instance().set_image_width(device_ptr, width_elements, height);
}

}  // namespace halo::cpu
