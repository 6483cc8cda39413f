// Section 7.9 in the benchmark: its kernel files, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.9-speed-of-light, where <tree> is solutions/ or a student's exercises/.
#include "unit_prelude.hpp"
// The copy engine's given header includes CUDA's own: at global scope, before the namespace.
#include "halo/given/tile_copy.cuh"
#include "tensor_copies_launch.hpp"

namespace halo_bench_units::HALO_BENCH_VARIANT::s7_9 {
#include "convolution_2d_speed_of_light.cu"
#include "convolution_2d_tensor_copies.cu"
}

namespace {
namespace k = halo_bench_units::HALO_BENCH_VARIANT::s7_9;
using halo::bench::Entry;
using halo::bench::Problem;

constexpr const char* SECTION = "7.9";

// The filter lives in F_c (capacity MAX_FILTER_RADIUS); the kernel is instantiated per radius
// and the section's own selector says which radii it has.
std::string unsupported(int m) {
  const int r = m / 2;
  if (r > MAX_FILTER_RADIUS)
    return "r = " + std::to_string(r) + " > MAX_FILTER_RADIUS = " + std::to_string(MAX_FILTER_RADIUS);
  if (!k::convolution_2D_speed_of_light_kernel_for(r)) return "no kernel instantiated for r = " + std::to_string(r);
  return std::string();
}

std::string copy_filter(const Problem& p) {
  const cudaError_t err = k::copy_filter_to_constant(p.M_host, p.radius());
  return err == cudaSuccess ? std::string() : std::string("copy_filter_to_constant: ") + cudaGetErrorName(err);
}

const bool registered = halo::bench::add_entries({[] {
  Entry e = halo::bench::kernel_entry("convolution_2D_speed_of_light_kernel", SECTION);
  e.dims = 2;
  e.layout = halo::bench::Layout::pitched;  // rows 16-byte aligned, as its float4 loads need
  e.unsupported = unsupported;
  e.prepare = copy_filter;
  e.launch = [](const Problem& p) {
    dim3 grid(0, 0, 0), block(0, 0, 0);  // a stub that sets nothing cannot launch
    const cudaError_t config =
        k::convolution_2D_speed_of_light_launch_config(p.width, p.height, int(p.pitch), p.radius(), &grid, &block);
    if (config != cudaSuccess) return config;
    const auto kernel = k::convolution_2D_speed_of_light_kernel_for(p.radius());
    if (!kernel) return cudaErrorInvalidDeviceFunction;
    kernel<<<grid, block>>>(p.N, p.P, p.width, p.height, int(p.pitch));
    return cudaGetLastError();
  };
  return e;
}(), [] {
  // Part 2: a persistent grid and a tensor map, made once per image and radius outside the timed
  // runs (tensor_copies_launch.hpp), as host work before a launch is for cuDNN's plan.
  Entry e = halo::bench::kernel_entry("convolution_2D_tensor_copies_kernel", SECTION);
  e.dims = 2;
  e.layout = halo::bench::Layout::pitched;
  e.order = 1;
  e.unsupported = [](int m) {
    const int r = m / 2;
    if (r > MAX_FILTER_RADIUS)
      return "r = " + std::to_string(r) + " > MAX_FILTER_RADIUS = " + std::to_string(MAX_FILTER_RADIUS);
    if (!k::convolution_2D_tensor_copies_kernel_for(r)) return "no kernel instantiated for r = " + std::to_string(r);
    int device = 0, major = 0;
    if (cudaGetDevice(&device) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major < 9)
      return std::string("tensor copies need a Hopper GPU or newer (compute capability 9.0)");
    return std::string();
  };
  e.prepare = [](const Problem& p) {
    const cudaError_t err = k::copy_tile_filter_to_constant(p.M_host, p.radius());
    return err == cudaSuccess ? std::string() : std::string("copy_tile_filter_to_constant: ") + cudaGetErrorName(err);
  };
  e.launch = [](const Problem& p) {
    const auto kernel = k::convolution_2D_tensor_copies_kernel_for(p.radius());
    if (!kernel) return cudaErrorInvalidDeviceFunction;
    return halo::bench::launch_tensor_copies(k::convolution_2D_tensor_copies_launch_config, kernel, p.N, p.P, p.width,
                                             p.height, int(p.pitch), p.radius());
  };
  return e;
}()});
}  // namespace
