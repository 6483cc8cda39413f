// The benchmark program: device query, the copy baseline and the FP32 FMA throughput, then every
// registered entry at every mask, measured under the timing protocol (protocol.hpp: validated,
// timed on fresh inputs, checked again after). Usage (tools/halo/bench/bench_gpu.py passes these):
//   halo_bench_gpu --json FILE [--mode reference|student] [--warmup N] [--runs N]
//                  [--masks 3,5,7,9] [--width-1d N] [--size-2d W] [--height-2d H]
// Exit status: 0 measured; 77 no CUDA device (nothing timed); 3 a reference entry failed
// validation (before or after timing) or could not run; 2 bad usage or a CUDA failure in the
// benchmark itself.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "inputs.hpp"
#include "report.hpp"
#include "timing.hpp"

namespace halo::bench {

[[noreturn]] void fail_cuda(const char* what, cudaError_t err, const char* file, int line) {
  std::fprintf(stderr, "halo bench: %s failed at %s:%d: %s (%s)\n", what, file, line, cudaGetErrorName(err),
               cudaGetErrorString(err));
  std::exit(2);
}

namespace {

struct Options {
  std::string json = "gpu-bench-raw.json", mode = "reference";
  int warmup = 5, runs = 30;
  std::vector<int> masks = {3, 5, 7, 9};
  long long width_1d = 1ll << 26;
  int width_2d = 8192, height_2d = 8192;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr, "halo bench: %s\n", why.c_str());
  std::exit(2);
}

Options parse(int argc, char** argv) {
  Options o;
  bool height_given = false;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    auto value = [&]() -> std::string {
      if (k + 1 >= argc) usage(a + " needs a value");
      return argv[++k];
    };
    auto whole = [&](const std::string& v, long long least) {
      char* end = nullptr;
      const long long x = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || !end || *end || x < least)
        usage(a + ": '" + v + "' is not a " + (least > 0 ? "positive" : "non-negative") + " whole number");
      return x;
    };
    auto positive = [&](const std::string& v) { return whole(v, 1); };
    if (a == "--json") o.json = value();
    else if (a == "--mode") o.mode = value();
    else if (a == "--warmup") o.warmup = int(whole(value(), 0));
    else if (a == "--runs") o.runs = int(positive(value()));
    else if (a == "--width-1d") o.width_1d = positive(value());
    else if (a == "--size-2d") o.width_2d = int(positive(value()));
    else if (a == "--height-2d") o.height_2d = int(positive(value())), height_given = true;
    else if (a == "--masks") {
      o.masks.clear();
      std::string v = value(), item;
      for (size_t start = 0; start <= v.size();) {
        const size_t comma = std::min(v.find(',', start), v.size());
        const long long m = positive(v.substr(start, comma - start));
        if (m % 2 == 0) usage("--masks: " + std::to_string(m) + " is even; masks are 2r+1 wide");
        o.masks.push_back(int(m));
        start = comma + 1;
      }
    } else usage("unknown argument " + a);
  }
  if (!height_given) o.height_2d = o.width_2d;
  return o;
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Device buffers freed at exit; a pitched buffer keeps its pitch in elements.
struct DeviceBuffer {
  float* ptr = nullptr;
  size_t pitch = 0;  // elements per row
  ~DeviceBuffer() { cudaFree(ptr); }
};
void alloc_linear(DeviceBuffer& b, size_t n) {
  HALO_CUDA_CHECK(cudaMalloc(&b.ptr, n * sizeof(float)));
  b.pitch = n;
}
void alloc_pitched(DeviceBuffer& b, int width, int height) {
  size_t pitch_bytes = 0;
  HALO_CUDA_CHECK(cudaMallocPitch(&b.ptr, &pitch_bytes, size_t(width) * sizeof(float), size_t(height)));
  if (pitch_bytes % sizeof(float)) usage("cudaMallocPitch gave a pitch that is not a whole number of floats");
  b.pitch = pitch_bytes / sizeof(float);
}

}  // namespace

int run(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  int devices = 0;
  if (cudaError_t err = cudaGetDeviceCount(&devices); err != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: nothing to time (%s)\n",
                err != cudaSuccess ? cuda_error("cudaGetDeviceCount", err).c_str() : "no device found");
    return 77;
  }
  HALO_CUDA_CHECK(cudaSetDevice(0));
  cudaDeviceProp prop{};
  HALO_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));

  RunInfo info;
  info.device = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = size_t(prop.l2CacheSize);
  info.global_memory_bytes = prop.totalGlobalMem;
  info.memory_bus_bits = prop.memoryBusWidth;
  HALO_CUDA_CHECK(cudaDriverGetVersion(&info.driver_api_version));
  HALO_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  info.date = utc_now();
  info.seed = run_seed();
  info.warmup = opt.warmup;
  info.runs = opt.runs;
  info.width_1d = opt.width_1d;
  info.width_2d = opt.width_2d;
  info.height_2d = opt.height_2d;
  info.masks = opt.masks;
  info.mode = opt.mode;

  const std::vector<Entry> all = entries();
  for (const auto& [k, v] : facts()) info.facts[k] = v;
  if (all.empty()) usage("no benchmark entries were linked into this program");
  bool need_1d = false, need_2d = false, need_pitched = false;
  for (const Entry& e : all) {
    need_1d |= e.dims == 1;
    need_2d |= e.dims == 2 && e.layout == Layout::linear;
    need_pitched |= e.dims == 2 && e.layout == Layout::pitched;
  }

  std::printf("device: %s (compute capability %d.%d, %d SMs, %.0f MiB L2), CUDA driver API %d, runtime %d\n",
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0,
              info.driver_api_version, info.runtime_version);
  std::printf("seed: %llu (HALO_SEED=%llu replays these inputs)\n", (unsigned long long)info.seed,
              (unsigned long long)info.seed);
  Timer timer(info.l2_bytes);
  info.flush_bytes = timer.flush_bytes();
  std::printf("protocol: for every kernel and mask a validation run, %d warm-up runs and %d timed runs (the median "
              "reported), each on fresh inputs written from its run number and after an L2 flush (%.0f MiB written, "
              "persisting lines reset); one pair of CUDA events per call; the output poisoned before the last timed "
              "run and checked after it: a kernel wrong before or after timing gets no time\n",
              opt.warmup, opt.runs, double(info.flush_bytes) / 1048576.0);
  std::fflush(stdout);

  // Device buffers: one image per dimensionality (pitched as well where an entry wants it). Their
  // contents are written before every run (the protocol's regenerate), never here.
  const size_t n1 = size_t(opt.width_1d), n2 = size_t(opt.width_2d) * size_t(opt.height_2d);
  const uint64_t key1 = input_key(info.seed, 1), key2 = input_key(info.seed, 2);
  HostInputs host_inputs;
  DeviceBuffer dN1, dP1, dN2, dP2, dN2p, dP2p, dM, scratch;
  if (need_1d) {
    alloc_linear(dN1, n1);
    alloc_linear(dP1, n1);
  }
  if (need_2d) {
    alloc_linear(dN2, n2);
    alloc_linear(dP2, n2);
  }
  if (need_pitched) {
    alloc_pitched(dN2p, opt.width_2d, opt.height_2d);
    alloc_pitched(dP2p, opt.width_2d, opt.height_2d);
  }
  int max_mask = 1;
  for (int m : opt.masks) max_mask = std::max(max_mask, m);
  alloc_linear(dM, size_t(max_mask) * size_t(max_mask));

  // The copy baseline: the bytes of the largest input, device to device. It reads them once
  // and writes them once, the traffic every kernel here needs at least. Same protocol: fresh
  // source every run, the destination checked in full before and after the timed runs.
  Copy copy;
  {
    const size_t elems = std::max(need_1d ? n1 : 0, (need_2d || need_pitched) ? n2 : 0);
    alloc_linear(scratch, elems);
    float* src = need_1d && n1 == elems ? dN1.ptr : nullptr;
    if (!src) {
      if (!dN2.ptr) alloc_linear(dN2, n2);  // only pitched entries: any buffer of the size will do
      src = dN2.ptr;
    }
    CopyOps ops(timer, src, scratch.ptr, elems, input_key(info.seed, 3));
    const Measurement t = measure(ops, opt.warmup, opt.runs);
    if (!t.ok()) usage("the copy baseline failed: " + t.message);
    const double bytes = double(elems) * sizeof(float);
    copy.bytes = 2.0 * bytes;
    copy.ms = t.median_ms;
    copy.min_ms = t.min_ms;
    copy.max_ms = t.max_ms;
    copy.runs = t.runs;
    copy.gbps = copy.bytes / (copy.ms * 1e6);
    copy.sm_mhz = t.median_sm_mhz;
    std::printf("copy: cudaMemcpyAsync device to device, %.0f MiB read + %.0f MiB written: %.3f ms, %.1f GB/s, SM %.0f MHz\n",
                bytes / 1048576.0, bytes / 1048576.0, copy.ms, copy.gbps, copy.sm_mhz);
    std::fflush(stdout);
  }

  // The FP32 FMA throughput, the other limit of the roofline: a kernel of independent FMA chains
  // filling every SM, measured the same way. Without it the report has no FP32 limit.
  Fp32 fp32;
  {
    FmaOps ops(timer, prop.multiProcessorCount);
    const Measurement t = measure(ops, opt.warmup, opt.runs);
    fp32.what = ops.shape();
    if (!t.ok()) {
      fp32.error = t.message;
      std::printf("FP32: not measured: %s\n", t.message.c_str());
    } else {
      fp32.fmas = ops.fmas();
      fp32.ms = t.median_ms;
      fp32.min_ms = t.min_ms;
      fp32.max_ms = t.max_ms;
      fp32.runs = t.runs;
      fp32.fmas_per_s = fp32.fmas / (fp32.ms * 1e-3);
      fp32.tflops = 2.0 * fp32.fmas_per_s / 1e12;
      fp32.sm_mhz = t.median_sm_mhz;
      std::printf("FP32: %s: %.3f ms, %.1f TFLOP/s (2 FLOPs per FMA), SM %.0f MHz\n", fp32.what.c_str(), fp32.ms,
                  fp32.tflops, fp32.sm_mhz);
    }
    info.persisting_reset = timer.persisting_reset();
    std::fflush(stdout);
  }

  std::vector<Row> rows;
  std::string broken;  // set once the device is in an error state: nothing after it can run
  bool reference_failed = false;
  for (const Entry& e : all) {
    for (int m : opt.masks) {
      Row row;
      row.name = e.name;
      row.section = e.section;
      row.variant = e.variant;
      row.dims = e.dims;
      row.mask = m;
      auto finish = [&](const std::string& status, const std::string& note) {
        row.status = status;
        row.note = note;
        if (status != "ok" && status != "skipped" && e.variant == "reference") reference_failed = true;
        print_row(row);
        rows.push_back(row);
      };
      if (!broken.empty()) {
        finish("error", "not run: " + broken);
        continue;
      }
      if (const std::string why = e.unsupported(m); !why.empty()) {
        finish("skipped", why);
        continue;
      }
      const std::vector<float> M_host = random_floats(e.dims == 2 ? size_t(m) * m : size_t(m), info.seed, 100 + m * 2 + e.dims);
      HALO_CUDA_CHECK(cudaMemcpy(dM.ptr, M_host.data(), M_host.size() * sizeof(float), cudaMemcpyHostToDevice));
      Problem p;
      p.dims = e.dims;
      p.mask_width = m;
      p.M = dM.ptr;
      p.M_host = M_host.data();
      if (e.dims == 1) {
        p.width = int(n1);
        p.height = 1;
        p.pitch = n1;
        p.N = dN1.ptr;
        p.P = dP1.ptr;
      } else {
        p.width = opt.width_2d;
        p.height = opt.height_2d;
        const bool pitched = e.layout == Layout::pitched;
        p.pitch = pitched ? dN2p.pitch : size_t(opt.width_2d);
        p.N = pitched ? dN2p.ptr : dN2.ptr;
        p.P = pitched ? dP2p.ptr : dP2.ptr;
      }
      row.bytes = e.bytes(p);
      if (const std::string why = e.prepare(p); !why.empty()) {
        finish("error", why);
        continue;
      }
      row.note = e.note();
      EntryOps ops(timer, e, p, e.dims == 1 ? key1 : key2, host_inputs, M_host,
                   sample_outputs(p, info.seed + m, e.unchecked_edge(p)));
      const Measurement t = measure(ops, opt.warmup, opt.runs);
      row.max_rel_error = std::max(t.before.max_rel_error, t.after.max_rel_error);
      row.checked = t.before.checked + t.after.checked;
      if (t.verdict == Verdict::wrong_before) {
        finish("wrong", t.message);
        continue;
      }
      if (t.verdict == Verdict::wrong_after) {
        finish("refused", t.message);
        continue;
      }
      if (t.verdict == Verdict::error) {
        if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess)
          broken = e.section + " " + e.name + " (" + e.variant + ") left the device in an error state";
        finish("error", t.message);
        continue;
      }
      row.ms = t.median_ms;
      row.min_ms = t.min_ms;
      row.max_ms = t.max_ms;
      row.runs = t.runs;
      row.gbps = row.bytes / (row.ms * 1e6);
      row.fraction_of_copy = row.gbps / copy.gbps;
      row.sm_mhz = t.median_sm_mhz;
      finish("ok", row.note);
    }
  }
  if (!write_json(opt.json, info, copy, fp32, rows)) usage("could not write " + opt.json);
  std::printf("raw results: %s\n", opt.json.c_str());
  return reference_failed ? 3 : 0;
}

}  // namespace halo::bench

int main(int argc, char** argv) { return halo::bench::run(argc, argv); }
