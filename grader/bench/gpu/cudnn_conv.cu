// The vendor baseline: the same 2D convolutions through cuDNN, timed by the same loop as the
// kernels. Single channel, NCHW float, cross-correlation (the book's convolution does not flip
// the mask), zero padding r, stride 1: the output has the input's size. The algorithm is the
// fastest that cudnnFindConvolutionForwardAlgorithm measures among those computing in plain
// FP32 (CUDNN_FMA_MATH): TF32 tensor-core algorithms would be compared with FP32 kernels on
// unequal terms. Built only where cudnn.h is found; otherwise torch_conv2d.py does this job.
#include <cudnn.h>

#include <string>

#include "bench.hpp"

namespace {
using halo::bench::Entry;
using halo::bench::Problem;

std::string status_text(const char* call, cudnnStatus_t s) {
  return std::string(call) + ": " + cudnnGetErrorString(s);
}
#define HALO_CUDNN_TRY(call)                                                   \
  do {                                                                         \
    const cudnnStatus_t halo_s_ = (call);                                      \
    if (halo_s_ != CUDNN_STATUS_SUCCESS) return status_text(#call, halo_s_);   \
  } while (0)

const char* algo_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "unknown";
  }
}

// One set of descriptors, re-made for each mask (prepare runs once per mask, before timing).
struct Cudnn {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
  std::string chosen;

  std::string prepare(const Problem& p) {
    if (!handle) {
      HALO_CUDNN_TRY(cudnnCreate(&handle));
      HALO_CUDNN_TRY(cudnnSetStream(handle, 0));  // the default stream, where the events are recorded
      HALO_CUDNN_TRY(cudnnCreateTensorDescriptor(&x));
      HALO_CUDNN_TRY(cudnnCreateTensorDescriptor(&y));
      HALO_CUDNN_TRY(cudnnCreateFilterDescriptor(&w));
      HALO_CUDNN_TRY(cudnnCreateConvolutionDescriptor(&conv));
    }
    if (p.pitch != size_t(p.width)) return "cuDNN entry needs a linear (unpitched) image";
    const int r = p.radius(), m = p.mask_width;
    HALO_CUDNN_TRY(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, p.height, p.width));
    HALO_CUDNN_TRY(cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1, p.height, p.width));
    HALO_CUDNN_TRY(cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1, m, m));
    HALO_CUDNN_TRY(cudnnSetConvolution2dDescriptor(conv, r, r, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    HALO_CUDNN_TRY(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
    int n = 0, c = 0, h = 0, wd = 0;
    HALO_CUDNN_TRY(cudnnGetConvolution2dForwardOutputDim(conv, x, w, &n, &c, &h, &wd));
    if (n != 1 || c != 1 || h != p.height || wd != p.width)
      return "cuDNN's output would be " + std::to_string(h) + " x " + std::to_string(wd) + ", not the input's size";

    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    HALO_CUDNN_TRY(cudnnFindConvolutionForwardAlgorithm(handle, x, w, conv, y, CUDNN_CONVOLUTION_FWD_ALGO_COUNT,
                                                        &returned, perf));
    int best = -1;
    for (int k = 0; k < returned && best < 0; ++k)  // sorted fastest first
      if (perf[k].status == CUDNN_STATUS_SUCCESS && perf[k].mathType == CUDNN_FMA_MATH) best = k;
    for (int k = 0; k < returned && best < 0; ++k)
      if (perf[k].status == CUDNN_STATUS_SUCCESS && perf[k].mathType == CUDNN_DEFAULT_MATH) best = k;
    if (best < 0) return "cudnnFindConvolutionForwardAlgorithm found no FP32 algorithm that runs";
    algo = perf[best].algo;
    HALO_CUDNN_TRY(cudnnSetConvolutionMathType(conv, CUDNN_FMA_MATH));
    size_t need = 0;
    HALO_CUDNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(handle, x, w, conv, y, algo, &need));
    if (need > workspace_bytes) {
      cudaFree(workspace);
      workspace = nullptr;
      workspace_bytes = 0;
      if (cudaError_t err = cudaMalloc(&workspace, need); err != cudaSuccess)
        return "cudaMalloc of a " + std::to_string(need) + "-byte cuDNN workspace: " + cudaGetErrorName(err);
      workspace_bytes = need;
    }
    chosen = std::string("algorithm ") + algo_name(algo) + ", workspace " + std::to_string(need / 1048576) + " MiB";
    return std::string();
  }

  cudaError_t launch(const Problem& p) {
    const float alpha = 1.0f, beta = 0.0f;
    const cudnnStatus_t s = cudnnConvolutionForward(handle, &alpha, x, p.N, w, p.M, conv, algo, workspace,
                                                    workspace_bytes, &beta, y, p.P);
    if (s != CUDNN_STATUS_SUCCESS) {
      std::fprintf(stderr, "halo bench: cudnnConvolutionForward: %s\n", cudnnGetErrorString(s));
      return cudaErrorUnknown;
    }
    return cudaGetLastError();
  }
};

Cudnn& cudnn() {
  static Cudnn c;
  return c;
}

const bool registered = [] {
  halo::bench::add_fact("cudnn_version", std::to_string(cudnnGetVersion()));
  halo::bench::add_fact("cudnn_source", "cuDNN called directly (cudnn.h)");
  Entry e;
  e.name = "cudnnConvolutionForward";
  e.section = "-";
  e.variant = "cuDNN";
  e.dims = 2;
  e.prepare = [](const Problem& p) { return cudnn().prepare(p); };
  e.note = [] { return cudnn().chosen; };
  e.launch = [](const Problem& p) { return cudnn().launch(p); };
  e.tolerance = 1e-3;  // FFT and Winograd algorithms round differently from a direct sum; a wrong
                       // convolution (flipped, shifted) is off by far more
  return halo::bench::add_entries({e});
}();
}  // namespace
