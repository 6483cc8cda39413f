// Control for build-differs-7.4 (issue 32, item 3): the CPU half of that file alone, the tiled
// kernel clang built. It scores more than the stub: what the two-build file earned on the CPU
// while nvcc built the untiled half, before such files were refused.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  const int n = Mask_Width / 2;
  const int tx = threadIdx.x, tile = blockDim.x, start = blockIdx.x * tile, i = start + tx;
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  if (tx >= tile - n) {
    const int left = start - tile + tx;
    N_ds[tx - (tile - n)] = (left >= 0) ? N[left] : 0.0f;
  }
  N_ds[n + tx] = (i < Width) ? N[i] : 0.0f;
  if (tx < n) {
    const int right = start + tile + tx;
    N_ds[n + tile + tx] = (right < Width) ? N[right] : 0.0f;
  }
  __syncthreads();
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) sum += N_ds[tx + j] * M[j];
    P[i] = sum;
  }
}
