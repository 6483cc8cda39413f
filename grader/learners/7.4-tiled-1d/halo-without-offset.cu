// The centre cells are stored without the n-cell offset of the left halo.
#include "halo/given/constant_mask_1d.cuh"

__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  const int n = Mask_Width / 2;
  const int tx = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + tx;
  if (tx >= int(blockDim.x) - n) {
    const int left = i - int(blockDim.x);
    N_ds[tx - (int(blockDim.x) - n)] = left >= 0 ? N[left] : 0.0f;
  }
  N_ds[tx] = i < Width ? N[i] : 0.0f;
  if (tx < n) {
    const int right = i + int(blockDim.x);
    N_ds[n + blockDim.x + tx] = right < Width ? N[right] : 0.0f;
  }
  __syncthreads();
  if (i < Width) {
    float sum = 0.0f;
    for (int j = 0; j < Mask_Width; ++j) sum += N_ds[tx + j] * M[j];
    P[i] = sum;
  }
}
