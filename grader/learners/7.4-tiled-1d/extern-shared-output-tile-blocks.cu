// Blocks of the output tile's size, the tile in dynamic shared memory, loaded by a strided loop.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  extern __shared__ float N_ds[];
  const int n = Mask_Width / 2;
  const unsigned tx = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tx;
  for (int c = tx; c < int(blockDim.x) + 2 * n; c += blockDim.x) {
    const int g = int(blockIdx.x * blockDim.x) - n + c;
    N_ds[c] = (g >= 0 && g < Width) ? N[g] : 0.0f;
  }
  __syncthreads();
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) sum += N_ds[tx + j] * M[j];
    P[i] = sum;
  }
}
