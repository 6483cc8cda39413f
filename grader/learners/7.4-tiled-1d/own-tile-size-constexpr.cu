// The book's Fig. 7.11 structure in an extern "C" block, sized by a TILE_SIZE of the learner's
// own: a constexpr under the name the grader also defines, with no pragma around it.
#include "halo/given/constant_mask_1d.cuh"

constexpr int TILE_SIZE = 256;

extern "C" {
__global__ void convolution_1D_tiled_kernel(const float* N, float* P, int Mask_Width, int Width) {
  __shared__ float N_ds[TILE_SIZE + MAX_MASK_WIDTH - 1];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int n = Mask_Width / 2;
  int halo_index_left = (blockIdx.x - 1) * blockDim.x + threadIdx.x;
  if (threadIdx.x >= blockDim.x - n) {
    N_ds[threadIdx.x - (blockDim.x - n)] = (halo_index_left < 0) ? 0 : N[halo_index_left];
  }
  N_ds[n + threadIdx.x] = (i < Width) ? N[i] : 0;
  int halo_index_right = (blockIdx.x + 1) * blockDim.x + threadIdx.x;
  if (threadIdx.x < n) {
    N_ds[n + blockDim.x + threadIdx.x] = (halo_index_right >= Width) ? 0 : N[halo_index_right];
  }
  __syncthreads();
  if (i < Width) {
    float Pvalue = 0;
    for (int j = 0; j < Mask_Width; j++) Pvalue += N_ds[threadIdx.x + j] * M[j];
    P[i] = Pvalue;
  }
}
}
