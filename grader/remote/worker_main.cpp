// main() of a worker: the program built from a student's kernel file, the CPU backend and the
// section's entry table. It answers the judge's requests on fd 3, one at a time, and decides
// nothing: whatever it says is data the judge checks. It runs inside the sandbox the judge
// started it in (worker_process.cpp).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "../cpu/memory_registry.hpp"
#include "frame.hpp"
#include "halo/cpu/launch_record.hpp"
#include "record_wire.hpp"
#include "worker_serve.hpp"

namespace halo::worker {

extern const Entry kEntries[];
extern const size_t kEntryCount;

namespace {

constexpr int kJudgeFd = 3;
constexpr uint64_t kMaxRequestBytes = uint64_t(2) << 30;

const Entry* find_entry(const std::string& name) {
  for (size_t k = 0; k < kEntryCount; ++k)
    if (name == kEntries[k].name) return &kEntries[k];
  return nullptr;
}

std::string answer(const std::string& request) {
  Writer body;
  std::string error;
  try {
    Reader in(request);
    const std::string name = in.str();
    const auto op = in.pod<Op>();
    const Entry* e = find_entry(name);
    if (!e) throw WireError("no entry point named " + name);
    e->serve(op, in, body);
  } catch (const std::exception& ex) {
    error = ex.what();
  }
  Writer out;
  out.pod(uint8_t(error.empty()));
  const auto notes = cpu::todos_reached();
  out.pod(uint64_t(notes.size()));
  for (const auto& n : notes) out.str(n);
  if (!error.empty()) {
    out.str(error);
    return out.take();
  }
  out.bytes(body.data().data(), body.data().size());
  return out.take();
}

}  // namespace

LaunchArrays::~LaunchArrays() {
  for (char* b : base) cpu::MemoryRegistry::instance().release(b);
}

void refuse(Op op, const char* entry_kind) {
  throw WireError("a " + std::string(entry_kind) + " cannot serve request " + std::to_string(int(op)));
}

LaunchHeader read_launch_header(Reader& in, LaunchArrays& arrays) {
  LaunchHeader h;
  h.selector = in.pod<int32_t>();
  h.grid = in.pod<dim3>();
  h.block = in.pod<dim3>();
  h.dynamic_shared_bytes = size_t(in.pod<uint64_t>());  // run_grid refuses more than a GPU allows
  cpu::set_count_per_thread(in.pod<uint8_t>() != 0);
  cpu::set_count_per_element(in.pod<uint8_t>() != 0);
  cpu::set_schedule(in.pod<uint8_t>() ? cpu::Schedule::reverse : cpu::Schedule::forward);
  if (const auto checks = in.pod<int8_t>(); checks >= 0) cpu::set_checks(checks != 0);
  cpu::set_launch_timeout(in.pod<double>());  // <= 0: scaled to the launch (launch_cpu_limit)
  const uint64_t count = in.count(1);
  auto& registry = cpu::MemoryRegistry::instance();
  for (uint64_t k = 0; k < count; ++k) {
    const auto bytes = in.pod<uint64_t>();
    const auto pitch = in.pod<uint64_t>();
    const auto row_bytes = in.pod<uint64_t>();
    const auto height = in.pod<uint64_t>();
    const auto element_size = in.pod<uint64_t>();
    const bool read_only = in.pod<uint8_t>() != 0;
    const std::string name = in.str();
    const char* contents = in.take(bytes);
    char* p = static_cast<char*>(registry.allocate(bytes, pitch, row_bytes, height));
    if (!p) throw WireError("cannot allocate " + std::to_string(bytes) + " bytes for " + name);
    arrays.base.push_back(p);
    arrays.bytes.push_back(bytes);
    arrays.read_only.push_back(read_only);
    std::memcpy(p, contents, bytes);
    registry.rename(p, name, element_size ? element_size : 1, read_only);
  }
  return h;
}

void write_launch_reply(Writer& out, const LaunchArrays& arrays) {
  cpu::LaunchRecord record = cpu::last_launch();
  for (auto& d : record.first) d.resolve_lines();  // the judge cannot read this process's addresses
  remote::write_record(out, record);
  for (size_t k = 0; k < arrays.base.size(); ++k)
    if (!arrays.read_only[k]) out.str(std::string_view(arrays.base[k], arrays.bytes[k]));
}

// Requests until the judge closes the socket. Every reply is written before the next request
// is read, so the judge always knows which request a lost worker was answering.
int serve_forever() {
  std::string request;
  for (;;) {
    switch (remote::read_frame(kJudgeFd, request, kMaxRequestBytes)) {
      case remote::ReadStatus::ok: break;
      case remote::ReadStatus::eof: return 0;
      default: return 2;
    }
    if (!remote::write_frame(kJudgeFd, answer(request))) return 2;
  }
}

}  // namespace halo::worker

int main() { return halo::worker::serve_forever(); }
