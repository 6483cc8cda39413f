// The book's structure, but the right halo index has a stray + 1: it starts one element into the
// next tile.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n = Mask_Width / 2;
  int left = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
  if (threadIdx.x >= blockDim.x - n) N_ds[threadIdx.x - (blockDim.x - n)] = (left < 0) ? 0.0f : N[left];
  N_ds[n + threadIdx.x] = (i < Width) ? N[i] : 0.0f;
  int right = (blockIdx.x + 1) * blockDim.x + threadIdx.x + 1;
  if (threadIdx.x < n) N_ds[n + blockDim.x + threadIdx.x] = (right >= Width) ? 0.0f : N[right];
  __syncthreads();
  if (i < Width) {
    float Pvalue = 0.0f;
    for (int j = 0; j < Mask_Width; j++) Pvalue += N_ds[threadIdx.x + j] * M[j];
    P[i] = Pvalue;
  }
}
