// Section 7.4 in the benchmark: its kernel file, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.4-tiled-1d, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_4 {
#include "convolution_1d_tiled.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_4;
using halo::bench::Entry;
using halo::bench::Problem;

constexpr unsigned kBlock = TILE_SIZE;  // the largest block the grader launches: TILE_SIZE threads


constexpr const char* SECTION = "7.4";

std::vector<Entry> make() {
  std::vector<Entry> all;
  {
    Entry e = halo::bench::kernel_entry("convolution_1D_tiled_kernel", SECTION);
    e.dims = 1;
    e.order = 0;
    e.unsupported = halo::bench::mask_too_wide_for_constant_memory;
    e.prepare = halo::bench::copy_mask_to_constant_memory<k::copy_mask_to_constant>;
    e.launch = [](const Problem& p) {
      k::convolution_1D_tiled_kernel<<<halo::bench::blocks_for(p.width, kBlock), kBlock>>>(p.N, p.P, p.mask_width, p.width);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  return all;
}

const bool registered = halo::bench::add_entries(make());
}  // namespace
