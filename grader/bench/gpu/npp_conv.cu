// A second vendor baseline: NVIDIA's NPP, nppiFilter_32f_C1R_Ctx (single channel float, a
// general 2D filter), timed and checked by the same protocol as the kernels. Built only where
// nppi.h is found (tools/halo/bench/bench_gpu.py decides), linked with nppif and nppc.
//
// Two differences from the chapter's convolution, both handed to NPP so that its output is ours:
//   - NPP computes the true convolution: its coefficients are applied in reverse order (the mask
//     rotated by 180 degrees). The chapter computes P[r][c] = sum F[i][j] * N[r-R+i][c-R+j], no
//     flip; so NPP is given F rotated by 180 degrees, and the two rotations cancel.
//   - NPP does no border handling: it reads the pixels around its ROI wherever they are in
//     memory. It is given a zero-padded image (R pixels of 0 on every side, allocated and zeroed
//     in `prepare`) and the ROI of the real image inside it, so its ghost cells are 0 as in the
//     chapter. The benchmark writes each run's inputs into that interior (Entry::input), never
//     into the border.
// Measured on an H200 with NPP 13: for 3x3 and 5x5 masks nppiFilter does not read around its ROI
// but replicates the ROI's edge pixels (a probe with an all-ones image gives the full mask sum in
// the corners), so its outputs within R of the image's edges differ from the chapter's. A search
// over every anchor, both mask orientations, nppiFilter and nppiFilterBorder (the padded image
// as source with REPLICATE, the image itself with CONSTANT) on a random 37 x 29 probe found no
// call that matches at the edges for those masks; nppiFilter with the rotated mask and anchor
// (R, R) matches everywhere else, and at 7x7 and 9x9 everywhere. So for 3x3 and 5x5 the outputs
// within R of an edge (about 4R / 8192 of an 8192^2 image: 0.05% at 3x3, 0.1% at 5x5) are left out
// of NPP's validation, and its note says so: the time is for the same work, the edge band's
// values are NPP's own.
// Stream: the default stream, where the events are recorded, described in an NppStreamContext
// filled from the device's properties (the fields nppGetStreamContext filled; NPP 13 no longer
// has that function).
#include <nppcore.h>
#include <nppi_filtering_functions.h>

#include <climits>
#include <string>
#include <vector>

#include "bench.hpp"

namespace {
using halo::bench::Entry;
using halo::bench::Input;
using halo::bench::Problem;

std::string cuda_text(const char* call, cudaError_t err) { return std::string(call) + ": " + cudaGetErrorName(err); }
#define HALO_NPP_CUDA_TRY(call)                                      \
  do {                                                               \
    const cudaError_t halo_e_ = (call);                              \
    if (halo_e_ != cudaSuccess) return cuda_text(#call, halo_e_);    \
  } while (0)

// Masks whose nppiFilter replicates the ROI's edge pixels instead of reading around the ROI
// (measured, NPP 13: see the top of this file).
bool edge_replicated(int mask_width) { return mask_width <= 5; }

struct Npp {
  NppStreamContext ctx{};
  bool have_ctx = false;
  float* padded = nullptr;  // (width + 2R) x (height + 2R), zero outside the interior
  size_t padded_pitch = 0;  // elements
  int radius = -1, width = 0, height = 0;
  float* rotated = nullptr;  // the mask rotated by 180 degrees, on the device
  size_t rotated_capacity = 0;
  std::string chosen;

  std::string stream_context() {
    int device = 0;
    HALO_NPP_CUDA_TRY(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    HALO_NPP_CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    ctx.hStream = 0;  // the default stream
    ctx.nCudaDeviceId = device;
    ctx.nMultiProcessorCount = prop.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = prop.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = prop.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = prop.sharedMemPerBlock;
    HALO_NPP_CUDA_TRY(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMajor,
                                             cudaDevAttrComputeCapabilityMajor, device));
    HALO_NPP_CUDA_TRY(cudaDeviceGetAttribute(&ctx.nCudaDevAttrComputeCapabilityMinor,
                                             cudaDevAttrComputeCapabilityMinor, device));
    unsigned flags = 0;  // the default stream's flags: cudaStreamDefault where a runtime will not say
    if (cudaStreamGetFlags(ctx.hStream, &flags) != cudaSuccess) {
      flags = cudaStreamDefault;
      cudaGetLastError();
    }
    ctx.nStreamFlags = flags;
    have_ctx = true;
    return std::string();
  }

  std::string prepare(const Problem& p) {
    if (!have_ctx)
      if (std::string why = stream_context(); !why.empty()) return why;
    const int r = p.radius(), m = p.mask_width;
    // The padded image, re-made when the radius or the size changes; zeroed once here.
    if (r != radius || p.width != width || p.height != height) {
      cudaFree(padded);
      padded = nullptr;
      radius = -1;
      size_t pitch_bytes = 0;
      const size_t pw = size_t(p.width) + 2 * size_t(r), ph = size_t(p.height) + 2 * size_t(r);
      HALO_NPP_CUDA_TRY(cudaMallocPitch(reinterpret_cast<void**>(&padded), &pitch_bytes, pw * sizeof(float), ph));
      if (pitch_bytes % sizeof(float) || pitch_bytes > size_t(INT_MAX))
        return "the padded image's pitch (" + std::to_string(pitch_bytes) + " bytes) does not suit NPP";
      padded_pitch = pitch_bytes / sizeof(float);
      HALO_NPP_CUDA_TRY(cudaMemset2D(padded, pitch_bytes, 0, pw * sizeof(float), ph));
      HALO_NPP_CUDA_TRY(cudaDeviceSynchronize());
      radius = r;
      width = p.width;
      height = p.height;
    }
    if (p.pitch * sizeof(float) > size_t(INT_MAX)) return "the output's pitch does not fit NPP's 32-bit step";
    // The mask rotated by 180 degrees: NPP applies its coefficients in reverse order.
    std::vector<float> rot(size_t(m) * size_t(m));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) rot[size_t(m - 1 - i) * m + size_t(m - 1 - j)] = p.M_host[size_t(i) * m + j];
    if (rot.size() > rotated_capacity) {
      cudaFree(rotated);
      rotated = nullptr;
      rotated_capacity = 0;
      HALO_NPP_CUDA_TRY(cudaMalloc(&rotated, rot.size() * sizeof(float)));
      rotated_capacity = rot.size();
    }
    HALO_NPP_CUDA_TRY(cudaMemcpy(rotated, rot.data(), rot.size() * sizeof(float), cudaMemcpyHostToDevice));
    chosen = "input zero-padded to " + std::to_string(p.width + 2 * r) + " x " + std::to_string(p.height + 2 * r) +
             ", mask rotated 180 degrees";
    if (edge_replicated(m))
      chosen += "; outputs within " + std::to_string(r) +
                " of the edges not checked: NPP replicates the image's edge pixels there for masks up to 5x5";
    return std::string();
  }

  Input input(const Problem& p) const {
    if (!padded || radius != p.radius()) return Input{};  // not prepared: writing the inputs fails, said so
    return Input{padded + size_t(radius) * padded_pitch + size_t(radius), padded_pitch};
  }

  cudaError_t launch(const Problem& p) {
    const int r = p.radius(), m = p.mask_width;
    if (!padded || radius != r) return cudaErrorNotReady;
    const float* src = padded + size_t(r) * padded_pitch + size_t(r);
    const NppStatus s = nppiFilter_32f_C1R_Ctx(src, int(padded_pitch * sizeof(float)), p.P, int(p.pitch * sizeof(float)),
                                               NppiSize{p.width, p.height}, rotated, NppiSize{m, m}, NppiPoint{r, r}, ctx);
    if (s != NPP_SUCCESS) {
      std::fprintf(stderr, "halo bench: nppiFilter_32f_C1R_Ctx returned NppStatus %d\n", int(s));
      if (s < 0) return cudaErrorUnknown;  // negative: an error; positive: a warning, the output stands
    }
    return cudaGetLastError();
  }
};

Npp& npp() {
  static Npp n;
  return n;
}

std::string npp_version() {
  const NppLibraryVersion* v = nppGetLibVersion();
  if (!v) return "unknown";
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->build);
}

const bool registered = [] {
  halo::bench::add_fact("npp_version", npp_version());
  halo::bench::add_fact("npp_source", "NPP called directly (nppi.h), nppiFilter_32f_C1R_Ctx");
  Entry e;
  e.name = "nppiFilter_32f_C1R_Ctx";
  e.section = "-";
  e.variant = "NPP";
  e.dims = 2;
  e.order = 1;  // after cuDNN
  e.prepare = [](const Problem& p) { return npp().prepare(p); };
  e.note = [] { return npp().chosen; };
  e.input = [](const Problem& p) { return npp().input(p); };
  e.launch = [](const Problem& p) { return npp().launch(p); };
  e.unchecked_edge = [](const Problem& p) { return edge_replicated(p.mask_width) ? p.radius() : 0; };
  e.tolerance = 1e-4;  // its own order of summation; a flipped or shifted convolution is off by far more
  return halo::bench::add_entries({e});
}();
}  // namespace
