// What a run measured: a progress line per measurement, and the raw JSON.
#include "report.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace halo::bench {
namespace {
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string num(double x) {  // JSON has no NaN or infinity: those become null
  if (!(x == x) || x > 1e300 || x < -1e300) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}
}  // namespace

void print_row(const Row& r) {
  std::printf("  %-4s %-34s %-9s mask %d%s: ", r.section.c_str(), r.name.c_str(), r.variant.c_str(), r.mask,
              r.dims == 2 ? ("x" + std::to_string(r.mask)).c_str() : "");
  if (r.status == "ok")
    std::printf("%8.3f ms  %7.1f GB/s  %5.2f of copy  SM %4.0f MHz  (max rel. error %.1e over %zu outputs)%s%s\n", r.ms,
                r.gbps, r.fraction_of_copy, r.sm_mhz, r.max_rel_error, r.checked, r.note.empty() ? "" : "; ",
                r.note.c_str());
  else
    std::printf("%s: %s\n", r.status.c_str(), r.note.c_str());
  std::fflush(stdout);
}

bool write_json(const std::string& path, const RunInfo& i, const Copy& c, const Fp32& fp, const std::vector<Row>& rows) {
  std::ostringstream o;
  o << "{\n  \"schema\": \"halo-gpu-bench/2\",\n  \"mode\": " << quoted(i.mode) << ",\n  \"date\": " << quoted(i.date)
    << ",\n  \"seed\": " << i.seed << ",\n  \"device\": {\"name\": " << quoted(i.device)
    << ", \"compute_capability\": \"" << i.cc_major << "." << i.cc_minor << "\", \"sm_count\": " << i.sm_count
    << ", \"l2_bytes\": " << i.l2_bytes << ", \"global_memory_bytes\": " << i.global_memory_bytes
    << ", \"memory_bus_bits\": " << i.memory_bus_bits << ", \"driver_api_version\": " << i.driver_api_version
    << ", \"runtime_version\": " << i.runtime_version << "},\n  \"facts\": {";
  { bool first = true;
    for (const auto& [k, v] : i.facts) { o << (first ? "" : ", ") << quoted(k) << ": " << quoted(v); first = false; } }
  o << "},\n"
    << "  \"protocol\": {\"warmup\": " << i.warmup << ", \"runs\": " << i.runs << ", \"statistic\": \"median\""
    << ", \"l2_flush_bytes\": " << i.flush_bytes << ", \"l2_persisting_reset\": " << (i.persisting_reset ? "true" : "false")
    << ", \"timer\": \"cudaEvent\", \"events\": \"one start/stop pair per call\""
    << ", \"inputs\": \"written afresh before every run from the run number\""
    << ", \"checked\": \"validation run before timing; the last timed run (output poisoned first) after\"},\n"
    << "  \"sizes\": {\"width_1d\": " << i.width_1d << ", \"width_2d\": " << i.width_2d
    << ", \"height_2d\": " << i.height_2d << ", \"masks\": [";
  for (size_t k = 0; k < i.masks.size(); ++k) o << (k ? ", " : "") << i.masks[k];
  o << "]},\n  \"copy\": {\"what\": \"cudaMemcpyAsync device to device of the input's bytes\", \"bytes\": "
    << num(c.bytes) << ", \"ms\": " << num(c.ms) << ", \"min_ms\": " << num(c.min_ms) << ", \"max_ms\": "
    << num(c.max_ms) << ", \"gbps\": " << num(c.gbps) << ", \"sm_mhz\": " << num(c.sm_mhz) << ", \"runs\": " << c.runs << "},\n"
    << "  \"fp32\": {\"what\": " << quoted("fmaf chains: " + fp.what) << ", \"error\": " << quoted(fp.error)
    << ", \"fmas\": " << num(fp.fmas) << ", \"ms\": " << num(fp.ms) << ", \"min_ms\": " << num(fp.min_ms)
    << ", \"max_ms\": " << num(fp.max_ms) << ", \"runs\": " << fp.runs << ", \"fmas_per_s\": " << num(fp.fmas_per_s)
    << ", \"tflops\": " << num(fp.tflops) << ", \"sm_mhz\": " << num(fp.sm_mhz) << "},\n  \"rows\": [";
  for (size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    o << (k ? "," : "") << "\n    {\"name\": " << quoted(r.name) << ", \"section\": " << quoted(r.section)
      << ", \"variant\": " << quoted(r.variant) << ", \"dims\": " << r.dims << ", \"mask\": " << r.mask
      << ", \"status\": " << quoted(r.status) << ", \"note\": " << quoted(r.note) << ", \"bytes\": " << num(r.bytes)
      << ", \"ms\": " << num(r.ms) << ", \"min_ms\": " << num(r.min_ms) << ", \"max_ms\": " << num(r.max_ms)
      << ", \"gbps\": " << num(r.gbps) << ", \"fraction_of_copy\": " << num(r.fraction_of_copy)
      << ", \"sm_mhz\": " << num(r.sm_mhz)
      << ", \"max_rel_error\": " << num(r.max_rel_error) << ", \"checked\": " << r.checked << ", \"runs\": " << r.runs
      << "}";
  }
  o << "\n  ]\n}\n";
  std::ofstream f(path);
  f << o.str();
  return bool(f);
}

}  // namespace halo::bench
