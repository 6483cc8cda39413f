// Section 7.3 in the benchmark: its kernel file, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.3-constant-memory, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_3 {
#include "convolution_1d_constant.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_3;
using halo::bench::Entry;
using halo::bench::Problem;

constexpr unsigned kBlock = 256;  // the grader's launch: one thread per output, 256 per block

// The mask goes to constant memory through the section's own host function; its capacity is
// MAX_MASK_WIDTH (the chapter's #define), so a wider mask is skipped, not truncated.
std::string too_wide(int m) {
  return m > MAX_MASK_WIDTH ? "Mask_Width " + std::to_string(m) + " > MAX_MASK_WIDTH = " + std::to_string(MAX_MASK_WIDTH)
                            : std::string();
}
std::string copy_mask(const Problem& p) {
  const cudaError_t err = k::copy_mask_to_constant(p.M_host, p.mask_width);
  return err == cudaSuccess ? std::string() : std::string("copy_mask_to_constant: ") + cudaGetErrorName(err);
}

constexpr const char* SECTION = "7.3";

std::vector<Entry> make() {
  std::vector<Entry> all;
  {
    Entry e;
    e.name = "convolution_1D_const_kernel";
    e.section = SECTION;
    e.variant = HALO_BENCH_STR(HALO_BENCH_VARIANT);
    e.dims = 1;
    e.order = 0;
    e.unsupported = too_wide;
    e.prepare = copy_mask;
    e.launch = [](const Problem& p) {
      k::convolution_1D_const_kernel<<<halo::bench::blocks_for(p.width, kBlock), kBlock>>>(p.N, p.P, p.mask_width, p.width);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  return all;
}

const bool registered = halo::bench::add_entries(make());
}  // namespace
