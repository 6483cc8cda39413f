// __restrict__ locals, __ldg for the halo reads, #pragma unroll on the mask loop, and a small
// __device__ helper for "is k in my tile".
#include "halo/given/constant_mask_1d.cuh"

__device__ __forceinline__ bool in_tile(int k, int start, int len) { return k >= start && k < start + len; }

__global__ void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE];
  const float* __restrict__ in = N;
  float* __restrict__ out = P;

  int start = blockIdx.x * blockDim.x;
  int i = start + threadIdx.x;

  if (i < Width)
    N_ds[threadIdx.x] = __ldg(&in[i]);
  else
    N_ds[threadIdx.x] = 0.0f;
  __syncthreads();

  if (i < Width) {
    int half = Mask_Width / 2;
    float sum = 0.0f;
#pragma unroll 5
    for (int j = 0; j < Mask_Width; j++) {
      int k = i - half + j;
      if (k >= 0 && k < Width) {
        float v = in_tile(k, start, blockDim.x) ? N_ds[k - start] : __ldg(&in[k]);
        sum += v * M[j];
      }
    }
    out[i] = sum;
  }
}
