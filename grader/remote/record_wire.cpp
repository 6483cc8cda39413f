#include "record_wire.hpp"

namespace halo::remote {
namespace {

void write_traffic_list(Writer& w, const std::vector<cpu::Traffic>& v) { w.vec(v); }

void write_diagnostic(Writer& w, const cpu::Diagnostic& d) {
  w.pod(d.kind);
  w.pod(d.block);
  w.pod(d.thread);
  w.pod(d.order);
  w.str(d.what);
  w.pod(uint8_t(d.has_other));
  w.pod(d.other_thread);
  w.str(d.other_role);
  w.str(d.line);
  w.str(d.other_line);
}

cpu::Diagnostic read_diagnostic(Reader& in) {
  cpu::Diagnostic d;
  d.kind = in.pod<cpu::DiagnosticKind>();
  if (int(d.kind) >= cpu::kDiagnosticKinds) throw WireError("a diagnostic of an unknown kind");
  d.block = in.pod<uint3>();
  d.thread = in.pod<uint3>();
  d.order = in.pod<uint64_t>();
  d.what = in.str();
  d.has_other = in.pod<uint8_t>() != 0;
  d.other_thread = in.pod<uint3>();
  d.other_role = in.str();
  d.line = in.str();
  d.other_line = in.str();
  return d;
}

// Per-block lists are empty or have one entry per block; per-thread lists one per thread.
template <class T>
std::vector<T> read_sized(Reader& in, size_t expected, const char* what) {
  auto v = in.vec<T>();
  if (!v.empty() && v.size() != expected) throw WireError(std::string("the record's ") + what + " has the wrong length");
  return v;
}

}  // namespace

void write_record(Writer& w, const cpu::LaunchRecord& r) {
  w.pod(uint8_t(r.valid));
  w.pod(r.error);
  w.pod(uint64_t(r.arrays.size()));
  for (const auto& a : r.arrays) {
    w.str(a.name);
    w.pod(uint64_t(a.element_size));
    w.pod(a.loads);
    w.pod(a.stores);
    write_traffic_list(w, a.block_loads);
    write_traffic_list(w, a.block_stores);
    w.vec(a.thread_loads);
    w.vec(a.thread_stores);
    w.vec(a.element_loads);
    w.vec(a.element_stores);
    write_traffic_list(w, a.block_loads_phase[0]);
    write_traffic_list(w, a.block_loads_phase[1]);
  }
  for (int s = 0; s < cpu::kSpaceCount; ++s) {
    w.pod(r.space_loads[s]);
    w.pod(r.space_stores[s]);
    write_traffic_list(w, r.block_space_loads[s]);
    write_traffic_list(w, r.block_space_stores[s]);
  }
  for (int k = 0; k < cpu::kDiagnosticKinds; ++k) {
    w.pod(r.counts[k]);
    if (r.counts[k]) write_diagnostic(w, r.first[k]);
  }
  w.pod(r.seconds);
  w.pod(uint64_t(r.printed.size()));
  for (const auto& line : r.printed) w.str(line);
  w.pod(r.printed_total);
}

cpu::LaunchRecord read_record(Reader& in, dim3 grid, dim3 block, bool per_thread) {
  cpu::LaunchRecord r;
  r.grid = grid;
  r.block = block;
  r.valid = in.pod<uint8_t>() != 0;
  r.error = in.pod<cudaError_t>();
  const size_t blocks = r.block_count(), threads = blocks * r.threads_per_block();
  const uint64_t arrays = in.count(1);
  for (uint64_t k = 0; k < arrays; ++k) {
    cpu::ArrayTraffic a;
    a.name = in.str();
    a.element_size = size_t(in.pod<uint64_t>());
    if (a.element_size == 0) throw WireError("an array with elements of 0 bytes");
    a.loads = in.pod<cpu::Traffic>();
    a.stores = in.pod<cpu::Traffic>();
    a.block_loads = read_sized<cpu::Traffic>(in, blocks, "per-block loads");
    a.block_stores = read_sized<cpu::Traffic>(in, blocks, "per-block stores");
    a.thread_loads = read_sized<uint32_t>(in, threads, "per-thread loads");
    a.thread_stores = read_sized<uint32_t>(in, threads, "per-thread stores");
    // Tests index per-thread counts by thread: when asked for, they must all be there.
    if (per_thread && r.valid && (a.thread_loads.size() != threads || a.thread_stores.size() != threads))
      throw WireError("the record lacks the per-thread counts the judge asked for");
    a.element_loads = in.vec<uint32_t>();
    a.element_stores = in.vec<uint32_t>();
    a.block_loads_phase[0] = read_sized<cpu::Traffic>(in, blocks, "loads before the barrier");
    a.block_loads_phase[1] = read_sized<cpu::Traffic>(in, blocks, "loads after the barrier");
    r.arrays.push_back(std::move(a));
  }
  for (int s = 0; s < cpu::kSpaceCount; ++s) {
    r.space_loads[s] = in.pod<cpu::Traffic>();
    r.space_stores[s] = in.pod<cpu::Traffic>();
    r.block_space_loads[s] = read_sized<cpu::Traffic>(in, blocks, "per-block loads of a memory space");
    r.block_space_stores[s] = read_sized<cpu::Traffic>(in, blocks, "per-block stores of a memory space");
  }
  for (int k = 0; k < cpu::kDiagnosticKinds; ++k) {
    r.counts[k] = in.pod<uint64_t>();
    if (r.counts[k]) r.first[k] = read_diagnostic(in);
  }
  r.seconds = in.pod<double>();
  const uint64_t printed = in.count(8);
  if (printed > cpu::LaunchRecord::kPrintedKept) throw WireError("more printed lines than a record keeps");
  for (uint64_t k = 0; k < printed; ++k) r.printed.push_back(in.str());
  r.printed_total = in.pod<uint64_t>();
  if (r.printed_total < r.printed.size()) throw WireError("fewer printed lines in all than in the record");
  return r;
}

}  // namespace halo::remote
