// Section 7.2 in the benchmark: its kernel file, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.2-basic-1d, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_2 {
#include "convolution_1d_basic.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_2;
using halo::bench::Entry;
using halo::bench::Problem;

constexpr unsigned kBlock = 256;  // the grader's launch: one thread per output, 256 per block

const bool registered = halo::bench::add_entries({[] {
  Entry e = halo::bench::kernel_entry("convolution_1D_basic_kernel", "7.2");
  e.dims = 1;
  e.launch = [](const Problem& p) {
    k::convolution_1D_basic_kernel<<<halo::bench::blocks_for(p.width, kBlock), kBlock>>>(p.N, p.M, p.P, p.mask_width,
                                                                                          p.width);
    return cudaGetLastError();
  };
  return e;
}()});
}  // namespace
