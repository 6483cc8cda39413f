// What a run measured: a progress line per measurement, and the raw JSON that
// tools/halo/bench/bench_gpu.py turns into the table, the JSON and the Markdown of docs/results/.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace halo::bench {

struct Row {
  std::string name, section, variant;
  int dims = 1, mask = 0;
  // "ok" (right before and after timing: timed), "wrong" (failed validation: not timed), "refused"
  // (right on the validation run, wrong after the timed runs: no time), "skipped", "error"
  std::string status;
  std::string note;    // why it is not ok, or what the vendor chose (the cuDNN algorithm)
  double bytes = 0, ms = 0, min_ms = 0, max_ms = 0, gbps = 0, fraction_of_copy = 0;
  double sm_mhz = 0;         // the SM clock across the timed calls, median (0: not read)
  double max_rel_error = 0;  // the worse of the two checks
  size_t checked = 0;        // outputs compared, both checks together
  int runs = 0;
};

struct Copy {
  double bytes = 0, ms = 0, min_ms = 0, max_ms = 0, gbps = 0, sm_mhz = 0;
  int runs = 0;
};

// The FP32 FMA throughput of the device, measured by a kernel of independent FMA chains.
struct Fp32 {
  std::string what, error;  // the launch in words; why it was not measured ("" when it was)
  double fmas = 0, ms = 0, min_ms = 0, max_ms = 0, fmas_per_s = 0, tflops = 0;  // TFLOP/s: 2 FLOPs per FMA
  double sm_mhz = 0;
  int runs = 0;
};

struct RunInfo {
  std::string device, date;
  int cc_major = 0, cc_minor = 0, sm_count = 0, memory_bus_bits = 0;
  size_t l2_bytes = 0, global_memory_bytes = 0, flush_bytes = 0;
  bool persisting_reset = true;  // cudaCtxResetPersistingL2Cache before every run (false: not supported)
  int driver_api_version = 0, runtime_version = 0;
  uint64_t seed = 0;
  int warmup = 0, runs = 0;
  long long width_1d = 0;
  int width_2d = 0, height_2d = 0;
  std::vector<int> masks;
  std::string mode;  // "reference" or "student"
  std::map<std::string, std::string> facts;  // what units add (the cuDNN version)
};

void print_row(const Row& r);
bool write_json(const std::string& path, const RunInfo& info, const Copy& copy, const Fp32& fp32,
                const std::vector<Row>& rows);

}  // namespace halo::bench
