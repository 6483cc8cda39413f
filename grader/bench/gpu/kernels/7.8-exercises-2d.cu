// Section 7.8 in the benchmark: its kernel file, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.8-exercises-2d, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_8 {
#include "convolution_2d.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_8;
using halo::bench::Entry;
using halo::bench::Problem;

// The grader's launches (chapters/7.8-exercises-2d/questions.toml, grader/sections/7.8-*):
// the basic kernels in blocks of 32 x 8 threads, the tiled kernel in IN_TILE_DIM^2 blocks
// stepping by OUT_TILE_DIM = IN_TILE_DIM - 2r, the cached kernel in TILE_DIM^2 blocks.
constexpr unsigned kBasicX = 32, kBasicY = 8;

// The filter's capacity in constant memory is MAX_FILTER_RADIUS; the tiled kernel also needs
// an output tile left: IN_TILE_DIM - 2r >= 1.
std::string too_wide(int m) {
  const int r = m / 2;
  return r > MAX_FILTER_RADIUS ? "r = " + std::to_string(r) + " > MAX_FILTER_RADIUS = " + std::to_string(MAX_FILTER_RADIUS)
                               : std::string();
}
std::string too_wide_tiled(int m) {
  const std::string why = too_wide(m);
  if (!why.empty()) return why;
  return IN_TILE_DIM - 2 * (m / 2) < 1 ? "IN_TILE_DIM - 2r < 1: no output tile left" : std::string();
}
std::string copy_filter(const Problem& p) {
  const cudaError_t err = k::copy_filter_to_constant(p.M_host, p.radius());
  return err == cudaSuccess ? std::string() : std::string("copy_filter_to_constant: ") + cudaGetErrorName(err);
}
dim3 basic_grid(const Problem& p) {
  return dim3(halo::bench::blocks_for(p.width, kBasicX), halo::bench::blocks_for(p.height, kBasicY));
}

constexpr const char* SECTION = "7.8";

std::vector<Entry> make() {
  std::vector<Entry> all;
  {
    Entry e = halo::bench::kernel_entry("convolution_2D_basic_kernel", SECTION);
    e.dims = 2;
    e.order = 0;
    e.unsupported = too_wide;
    e.launch = [](const Problem& p) {
      k::convolution_2D_basic_kernel<<<basic_grid(p), dim3(kBasicX, kBasicY)>>>(p.N, p.M, p.P, p.radius(), p.width, p.height);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  {
    Entry e = halo::bench::kernel_entry("convolution_2D_const_mem_kernel", SECTION);
    e.dims = 2;
    e.order = 1;
    e.unsupported = too_wide;
    e.prepare = copy_filter;
    e.launch = [](const Problem& p) {
      k::convolution_2D_const_mem_kernel<<<basic_grid(p), dim3(kBasicX, kBasicY)>>>(p.N, p.P, p.radius(), p.width, p.height);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  {
    Entry e = halo::bench::kernel_entry("convolution_tiled_2D_const_mem_kernel", SECTION);
    e.dims = 2;
    e.order = 2;
    e.unsupported = too_wide_tiled;
    e.prepare = copy_filter;
    e.launch = [](const Problem& p) {
      const unsigned out = unsigned(IN_TILE_DIM - 2 * p.radius());  // blocks step by OUT_TILE_DIM
      const dim3 grid(halo::bench::blocks_for(p.width, out), halo::bench::blocks_for(p.height, out));
      k::convolution_tiled_2D_const_mem_kernel<<<grid, dim3(IN_TILE_DIM, IN_TILE_DIM)>>>(p.N, p.P, p.radius(), p.width, p.height);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  {
    Entry e = halo::bench::kernel_entry("convolution_cached_tiled_2D_const_mem_kernel", SECTION);
    e.dims = 2;
    e.order = 3;
    e.unsupported = too_wide;
    e.prepare = copy_filter;
    e.launch = [](const Problem& p) {
      const dim3 grid(halo::bench::blocks_for(p.width, TILE_DIM), halo::bench::blocks_for(p.height, TILE_DIM));
      k::convolution_cached_tiled_2D_const_mem_kernel<<<grid, dim3(TILE_DIM, TILE_DIM)>>>(p.N, p.P, p.radius(), p.width, p.height);
      return cudaGetLastError();
    };
    all.push_back(e);
  }
  return all;
}

const bool registered = halo::bench::add_entries(make());
}  // namespace
