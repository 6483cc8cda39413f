// The tile is filled right (left halo, centre, right halo), but the compute loop starts at the
// thread's own centre cell, N_ds[n + tx + j], as if the window began at N[i].
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  int tx = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tx;
  int n = Mask_Width / 2;

  if (i < Width) N_ds[n + tx] = N[i];
  else N_ds[n + tx] = 0.0f;

  if (tx >= blockDim.x - n) {
    int left = i - blockDim.x;
    N_ds[tx - (blockDim.x - n)] = left >= 0 ? N[left] : 0.0f;
  }
  if (tx < n) {
    int right = i + blockDim.x;
    N_ds[n + blockDim.x + tx] = right < Width ? N[right] : 0.0f;
  }
  __syncthreads();

  if (i < Width) {
    float result = 0.0f;
    for (int j = 0; j < Mask_Width; j++) result += N_ds[n + tx + j] * M[j];
    P[i] = result;
  }
}
