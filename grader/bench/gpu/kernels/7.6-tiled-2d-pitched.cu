// Section 7.6 in the benchmark: its kernel file, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.6-tiled-2d-pitched, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_6 {
#include "convolution_2d_tiled.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_6;
using halo::bench::Entry;
using halo::bench::Problem;

// The shared tile is sized for MAX_MASK_WIDTH; a block is (O_TILE_WIDTH + Mask_Width - 1)^2
// threads, which must stay within 1024.
std::string too_wide(int m) {
  if (m > MAX_MASK_WIDTH)
    return "Mask_Width " + std::to_string(m) + " > MAX_MASK_WIDTH = " + std::to_string(MAX_MASK_WIDTH);
  const int side = O_TILE_WIDTH + m - 1;
  if (side * side > 1024) return "a block of " + std::to_string(side) + " x " + std::to_string(side) + " threads is over 1024";
  return std::string();
}

constexpr const char* SECTION = "7.6";

std::vector<Entry> make() {
  std::vector<Entry> all;
  {
    Entry e = halo::bench::kernel_entry("convolution_2D_tiled_kernel", SECTION);
    e.dims = 2;
    e.order = 0;
    e.layout = halo::bench::Layout::pitched;
    e.unsupported = too_wide;
    e.launch = [](const Problem& p) {
      dim3 grid(0, 0, 0), block(0, 0, 0);  // left empty by an unfinished launch config: the launch then fails
      k::convolution_2D_tiled_launch_config(p.width, p.height, p.mask_width, &grid, &block);
      k::convolution_2D_tiled_kernel<<<grid, block>>>(p.N, p.P, p.height, p.width, int(p.pitch), p.mask_width, p.M);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  return all;
}

const bool registered = halo::bench::add_entries(make());
}  // namespace
