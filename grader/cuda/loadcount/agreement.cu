// GPU load counts of the 1D reference kernels (7.2 basic, 7.4 tiled) at their measured
// launches, counted by the load-counting tool (LD_PRELOAD=libhalo_loadcount.so), beside the
// chapter's formulas, which the CPU backend's counts equal exactly (the 7.2 and 7.4 loads
// tests require it). Prints one line per row and exits 1 on any difference, 77 without the tool.
#include <dlfcn.h>

#include <cstdio>
#include <vector>

#include "halo/chapter_data.hpp"

__global__ void convolution_1D_basic_kernel(const float* N, const float* M, float* P, int Mask_Width, int Width);
__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width);
cudaError_t copy_mask_to_constant(const float* h_M, int Mask_Width);

namespace {

using Register = void (*)(const void*, size_t, const char*, unsigned);
using BlockElements = long long (*)(const char*, unsigned, int);
using Blocks = unsigned (*)();
Register reg;
BlockElements block_elements;
Blocks blocks;
int differences = 0;

void row(const char* kernel, const char* array, const char* where, long long gpu, double formula) {
  const bool same = gpu == (long long)formula;
  differences += !same;
  std::printf("| %s | %s | %s | %lld | %.0f | %s |\n", kernel, array, where, gpu, formula, same ? "equal" : "DIFFERENT");
}

long long total(const char* array) {
  long long sum = 0;
  for (unsigned b = 0; b < blocks(); ++b) sum += block_elements(array, b, 0);
  return sum;
}

}  // namespace

int main() {
  reg = reinterpret_cast<Register>(dlsym(RTLD_DEFAULT, "halo_loadcount_register"));
  block_elements = reinterpret_cast<BlockElements>(dlsym(RTLD_DEFAULT, "halo_loadcount_block_elements"));
  blocks = reinterpret_cast<Blocks>(dlsym(RTLD_DEFAULT, "halo_loadcount_blocks"));
  if (!reg || !block_elements || !blocks) {
    std::printf("the load-counting tool is not loaded (LD_PRELOAD=libhalo_loadcount.so): skipped\n");
    return 77;
  }
  namespace d = halo::data;
  const auto& m = d::measurements::basic_1d_large;
  const int width = int(m.Width), mask = int(m.Mask_Width), block = int(m.blockDim);
  std::vector<float> hN(size_t(width), 1.0f), hM(size_t(mask), 0.5f);
  float *N, *M, *P;
  cudaMalloc(&N, hN.size() * 4);
  cudaMalloc(&M, hM.size() * 4);
  cudaMalloc(&P, hN.size() * 4);
  cudaMemcpy(N, hN.data(), hN.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(M, hM.data(), hM.size() * 4, cudaMemcpyHostToDevice);
  reg(N, hN.size() * 4, "N", 4);
  reg(M, hM.size() * 4, "M", 4);
  reg(P, hN.size() * 4, "P", 4);
  const unsigned grid = unsigned((width + block - 1) / block);

  std::printf("| kernel | array | where | GPU loads | formula (= CPU backend) | |\n|---|---|---|---|---|---|\n");
  convolution_1D_basic_kernel<<<grid, block>>>(N, M, P, mask, width);
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  for (const char* a : {"N", "M"}) {
    row("7.2 basic", a, "internal block (block 1)", block_elements(a, 1, 0), d::basic_1d_loads_internal_block(block, mask));
    row("7.2 basic", a, "first block (block 0)", block_elements(a, 0, 0), d::basic_1d_loads_boundary_block(block, mask));
    row("7.2 basic", a, "whole grid", total(a), d::basic_1d_loads_total(width, mask));
  }
  row("7.2 basic", "P", "stores, whole grid", [&] {
    long long s = 0;
    for (unsigned b = 0; b < blocks(); ++b) s += block_elements("P", b, 1);
    return s;
  }(), double(width));

  const auto& t = d::measurements::tiled_1d_large;
  if (copy_mask_to_constant(hM.data(), int(t.Mask_Width)) != cudaSuccess) return 2;
  convolution_1D_tiled_kernel<<<grid, block>>>(N, P, int(t.Mask_Width), int(t.Width));
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  row("7.4 tiled", "N", "internal block (block 1)", block_elements("N", 1, 0), d::tiled_1d_loads_internal_block(t.blockDim, t.Mask_Width));
  row("7.4 tiled", "N", "first block (block 0)", block_elements("N", 0, 0), d::tiled_1d_loads_boundary_block(t.blockDim, t.Mask_Width));
  row("7.4 tiled", "N", "whole grid", total("N"), d::tiled_1d_loads_total(t.Width, t.blockDim, t.Mask_Width));
  row("7.4 tiled", "M", "whole grid (constant memory)", total("M"), 0);
  std::printf("\n%d difference(s)\n", differences);
  return differences ? 1 : 0;
}
