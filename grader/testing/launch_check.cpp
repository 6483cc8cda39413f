#include "launch_check.hpp"

#include "measured_launch.hpp"

namespace halo::test {

std::string stub_notes() {
  std::string out;
#if defined(HALO_BACKEND_CPU)
  for (const auto& note : cpu::todos_reached()) out += (out.empty() ? "" : "\n") + std::string("still a stub: ") + note;
#endif
  return out;
}

std::string kernel_printed() {
  std::string out;
#if defined(HALO_BACKEND_CPU)
  const auto& record = cpu::last_launch();
  if (!record.valid || record.printed_total == 0) return out;
  const uint64_t total = record.printed_total, shown = record.printed.size();
  out = "the kernel printed " + std::to_string(total) + (total == 1 ? " line" : " lines") + " in its last launch" +
        (shown < total ? "; the first " + std::to_string(shown) + " in block and thread order" : "") + ":";
  for (const auto& line : record.printed) out += "\n    " + line;
#endif
  return out;
}

#if defined(HALO_BACKEND_CPU)
namespace {
// Whether the launch touched memory: a stub's body is the HALO_TODO line alone, and it loads and
// stores nothing, so a launch that did is a kernel written with its TODO line still in it.
bool launch_did_work(const cpu::LaunchRecord& record) {
  for (const auto& a : record.arrays)
    if (a.loads.accesses || a.stores.accesses) return true;
  for (const auto& space : {record.block_space_loads, record.block_space_stores})
    for (int s = 0; s < cpu::kSpaceCount; ++s)
      for (const auto& t : space[s])
        if (t.accesses) return true;
  return false;
}
}  // namespace
#endif

Verdict judge_launch(cudaError_t error, const std::string& what) {
  Verdict v;
#if defined(HALO_BACKEND_CPU)
  const auto& record = cpu::last_launch();
  const uint64_t todos = record.counts[int(cpu::DiagnosticKind::todo_reached)];
  if (record.valid && record.diagnostic_total() > todos)
    v.fail("launch with " + what + ":\n" + record.diagnostics_report());
  else if (todos && launch_did_work(record))  // written, but the TODO line left in: not a stub
    v.fail("launch with " + what + ": " + std::string(kTodoLeftIn));
  else if (todos)  // where the TODO is comes with every failure (stub_notes)
    v.fail("launch with " + what + ": the kernel has not been written yet");
#endif
  if (error != cudaSuccess && v.ok)
    v.fail("launch with " + what + " failed: " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
  return v;
}

Verdict stored_once_never_read(const std::string& array, uint64_t outputs, const std::string& launch) {
  Verdict v;
  const auto* out = measured_launch().array(array);
  if (!out) {
    v.fail("no array named " + array + " in the last launch");
    return v;
  }
  if (out->store_elements() != outputs)
    v.fail(launch + ": the kernel stored " + std::to_string(out->store_elements()) + " elements of " + array +
           " for " + std::to_string(outputs) + " outputs; each output is stored once, by one thread");
  if (out->load_elements() != 0)
    v.fail(launch + ": the kernel read " + array + " " + std::to_string(out->load_elements()) +
           " times; accumulate in a register and store the result once");
  return v;
}

}  // namespace halo::test
