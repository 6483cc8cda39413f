// Halo GPU benchmarks: what every part of the benchmark program shares.
//
// `./workbook bench` builds this folder with nvcc (tools/halo/bench/bench_gpu.py drives the build;
// run.sh is the same thing as one command) and runs every registered kernel at a size that
// fills the GPU: 2^26 floats in 1D, 8192 x 8192 in 2D, masks 3, 5, 7 and 9 wide. Each kernel and
// mask is measured under one protocol (protocol.hpp): a validation run (output poisoned, a
// sample of outputs compared with a double-precision CPU reference), warm-up, then many runs
// each timed on its own with CUDA events, every run on inputs written afresh from its run
// number after an L2 flush (persisting lines reset too); the output is poisoned before the
// last timed run and checked again after it. A kernel wrong before timing is not timed; one
// wrong after it is refused (no time). The report gives effective bandwidth against a
// device-to-device copy of the same bytes and the roofline of this GPU (the copy's bandwidth
// and the FP32 FMA throughput, both measured in the same process). Timings inform; they never
// decide a test.
//
// Files, one concern each:
//   bench.hpp          the Problem a kernel runs on, the registry Entry, the check macro
//   protocol.hpp       the order of the timing protocol's steps, free of CUDA (tested by
//                      grader/bench/protocol_test.cpp in ./workbook check)
//   registry.cpp       the one list of entries (kernels/*.cu, cudnn_conv.cu, npp_conv.cu add theirs)
//   inputs.cpp         inputs (a function of seed, run and index) and the double-precision reference
//   timing.cu          the protocol's steps on the GPU: inputs, flush, event timing, checks; the
//                      copy baseline and the FP32 FMA throughput kernel
//   report.cpp         the console table and the raw JSON the Python side turns into docs
//   main.cu            device query, the loop over entries and masks
//   kernels/<folder>.cu  one per section: includes that section's kernel file and says how
//                      to launch each kernel in it (one Entry per kernel)
//   cudnn_conv.cu      the vendor baseline (built only where cudnn.h is found)
//   npp_conv.cu        NPP's nppiFilter_32f_C1R_Ctx, a second vendor (built only where NPP's headers are found)
//   torch_conv2d.py    the cuDNN baseline through PyTorch where cudnn.h is missing
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace halo::bench {

// A failed CUDA call inside the benchmark's own code (not a kernel under test) ends the run
// with the call, the file and line, and CUDA's message.
#define HALO_CUDA_CHECK(call)                                                                         \
  do {                                                                                                \
    cudaError_t halo_err_ = (call);                                                                   \
    if (halo_err_ != cudaSuccess) ::halo::bench::fail_cuda(#call, halo_err_, __FILE__, __LINE__);      \
  } while (0)
[[noreturn]] void fail_cuda(const char* what, cudaError_t err, const char* file, int line);

// One convolution to run. 1D: height = 1, pitch = width. 2D: mask_width x mask_width weights,
// row-major. Every kernel reads N once and writes P once as far as DRAM is concerned, so the
// bytes that count are width * height * 4 read plus the same written (padding excluded).
struct Problem {
  int dims = 1;
  int width = 0, height = 1;
  size_t pitch = 0;          // elements from one row to the next (width unless pitched)
  int mask_width = 0;        // 2r + 1
  const float* N = nullptr;  // device input
  float* P = nullptr;        // device output
  const float* M = nullptr;  // device copy of the mask (for kernels that take it as a pointer)
  const float* M_host = nullptr;  // the same mask on the host (for copies to constant memory)
  int radius() const { return mask_width / 2; }
  size_t elements() const { return size_t(width) * size_t(height); }
};

enum class Layout { linear, pitched };  // how N and P are allocated (pitched: cudaMallocPitch)

// A device image the benchmark writes inputs into: the first element and the row pitch in elements.
struct Input {
  float* ptr = nullptr;
  size_t pitch = 0;
};

// One benchmark entry: a kernel (or a vendor call) and how to run it. A section's unit adds
// one per kernel; a new section adds one file under kernels/ (see README in bench.hpp above).
struct Entry {
  std::string name;     // the kernel's name, as in the book
  std::string section;  // "7.4"
  std::string variant;  // "reference", "student", or the vendor ("cuDNN")
  int dims = 1;
  Layout layout = Layout::linear;
  // Why this entry cannot run a mask this wide (a capacity #define), or "" when it can.
  std::function<std::string(int mask_width)> unsupported = [](int) { return std::string(); };
  // Once per mask, before validation and timing: copies to constant memory, vendor set-up.
  // Returns "" on success or what went wrong (the entry is then reported, not timed).
  std::function<std::string(const Problem&)> prepare = [](const Problem&) { return std::string(); };
  // Said beside the timing once prepared (what a vendor library chose), or "".
  std::function<std::string()> note = [] { return std::string(); };
  // Enqueues one run on the default stream; returns the launch's error (cudaGetLastError).
  std::function<cudaError_t(const Problem&)> launch;
  // Where the entry reads its input: the timer writes each run's inputs there (width x height
  // values, rows `pitch` elements apart) before the run. p.N unless the entry keeps its own copy
  // (NPP reads a zero-padded image of its own: its interior is the input).
  std::function<Input(const Problem&)> input = [](const Problem& p) { return Input{const_cast<float*>(p.N), p.pitch}; };
  // Bytes moved, for GB/s: one read of N and one write of P unless an entry says otherwise.
  std::function<double(const Problem&)> bytes = [](const Problem& p) { return 2.0 * p.elements() * sizeof(float); };
  // Tolerance of the validation: |error| / (sum of |N * M| terms).
  double tolerance = 1e-5;
  // Outputs within this many pixels of the image's edges that validation leaves out: only for a
  // vendor whose border handling differs from the chapter's there, which its note says. 0 (every
  // kernel of the chapter): the edges are checked in full.
  std::function<int(const Problem&)> unchecked_edge = [](const Problem&) { return 0; };
  int order = 0;  // sort key within a section (the order the book introduces the kernels)
};

// The registry: units call add_entries() from a static initialiser; main() reads entries().
bool add_entries(std::vector<Entry> entries);
// Facts a unit wants in the report ("cudnn_version"), by key.
void add_fact(const std::string& key, const std::string& value);
std::vector<std::pair<std::string, std::string>> facts();
std::vector<Entry> entries();  // sorted: 1D before 2D, by section, order, reference before student, vendor last

// Grid helper: blocks of `block` needed to cover `n` (rounded up).
inline unsigned blocks_for(long long n, unsigned block) { return unsigned((n + block - 1) / block); }

// The name of the kernel tree a unit was compiled from (set by the build with -DHALO_BENCH_VARIANT).
#define HALO_BENCH_STR2(x) #x
#define HALO_BENCH_STR(x) HALO_BENCH_STR2(x)

}  // namespace halo::bench
