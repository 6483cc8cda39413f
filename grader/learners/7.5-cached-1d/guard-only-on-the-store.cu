// Every thread computes its sum, threads past the end of N too; only the store is guarded.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_cached_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE];
  int tile_start = blockIdx.x * blockDim.x;
  int tile_end = tile_start + blockDim.x;
  int i = tile_start + threadIdx.x;

  N_ds[threadIdx.x] = (i < Width) ? N[i] : 0.0f;
  __syncthreads();

  int n = Mask_Width / 2;
  float Pvalue = 0.0f;
  for (int j = 0; j < Mask_Width; j++) {
    int k = i - n + j;
    if (k < 0 || k >= Width) continue;  // ghost cell
    if (k >= tile_start && k < tile_end)
      Pvalue += N_ds[k - tile_start] * M[j];
    else
      Pvalue += N[k] * M[j];  // halo cell, from L2
  }
  if (i < Width) P[i] = Pvalue;
}
