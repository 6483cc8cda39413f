// Section 7.9 in the benchmark: its kernel files, included in a namespace (unit_prelude.hpp
// says why), and one Entry per kernel saying how the grader launches it. Compiled with
// -I<tree>/7.9-speed-of-light, where <tree> is solutions/ or a student's exercises/.
#include <map>
#include <tuple>

#include "unit_prelude.hpp"
// The copy engine's given header includes CUDA's own: at global scope, before the namespace.
#include "halo/given/tile_copy.cuh"

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
  // Part 2: a persistent grid of as many blocks as fit on the GPU at once, and the tensor map of
  // N with the box the launch configuration asks for; both made once per image and radius, outside
  // the timed runs (host work the grader does before a launch, as for a cuDNN plan).
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
    struct Prepared {
      dim3 grid, block;
      int shared = 0;
      TensorMap map;
    };
    static std::map<std::tuple<const float*, int, int, size_t, int>, Prepared> made;
    const auto key = std::make_tuple(p.N, p.width, p.height, p.pitch, p.radius());
    auto it = made.find(key);
    const auto kernel = k::convolution_2D_tensor_copies_kernel_for(p.radius());
    if (!kernel) return cudaErrorInvalidDeviceFunction;
    if (it == made.end()) {
      // How many blocks fit at once: the launch configuration's shared memory, at one block of
      // the largest grid, tells the occupancy calculator what a block needs.
      Prepared w;
      dim3 box(0, 0, 0);
      w.grid = w.block = dim3(0, 0, 0);
      cudaError_t err = k::convolution_2D_tensor_copies_launch_config(p.width, p.height, int(p.pitch), p.radius(), 1,
                                                                     &w.grid, &w.block, &box, &w.shared);
      if (err != cudaSuccess) return err;
      const void* f = reinterpret_cast<const void*>(kernel);
      if ((err = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, w.shared)) != cudaSuccess) return err;
      int per_sm = 0, device = 0, sms = 0;
      if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, int(w.block.x * w.block.y * w.block.z),
                                                                size_t(w.shared))) != cudaSuccess ||
          (err = cudaGetDevice(&device)) != cudaSuccess ||
          (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device)) != cudaSuccess)
        return err;
      if ((err = k::convolution_2D_tensor_copies_launch_config(p.width, p.height, int(p.pitch), p.radius(),
                                                              std::max(1, per_sm * sms), &w.grid, &w.block, &box,
                                                              &w.shared)) != cudaSuccess)
        return err;
      if ((err = halo::make_tensor_map(p.N, p.width, p.height, int(p.pitch), int(box.x), int(box.y), &w.map)) !=
          cudaSuccess)
        return err;
      it = made.emplace(key, w).first;
    }
    const Prepared& w = it->second;
    kernel<<<w.grid, w.block, size_t(w.shared)>>>(w.map, p.P, p.width, p.height, int(p.pitch));
    return cudaGetLastError();
  };
  return e;
}()});
}  // namespace
