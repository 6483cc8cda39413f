// The tile-loading loop runs one cell past the tile: <= where < was meant.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  extern __shared__ float N_ds[];
  const int n = Mask_Width / 2;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int c = threadIdx.x; c <= int(blockDim.x) + 2 * n; c += blockDim.x) {
    const int g = int(blockIdx.x * blockDim.x) - n + c;
    N_ds[c] = (g >= 0 && g < Width) ? N[g] : 0.0f;
  }
  __syncthreads();
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) sum += N_ds[threadIdx.x + j] * M[j];
    P[i] = sum;
  }
}
